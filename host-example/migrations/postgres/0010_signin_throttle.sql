-- Failed sign-ins, per user name (`user:NAME`) and per address
-- (`address:IP`), so every process sharing the database throttles alike
-- (app/signin.rs). `failures` counts since the last quiet spell;
-- `not_before` is when the next attempt may be checked, `locked_until`
-- the end of a lock (0: none); both are seconds since the Unix epoch.
CREATE TABLE signin_throttle (
    key TEXT PRIMARY KEY,
    failures BIGINT NOT NULL,
    last_failure_at BIGINT NOT NULL,
    not_before BIGINT NOT NULL,
    locked_until BIGINT NOT NULL
);
