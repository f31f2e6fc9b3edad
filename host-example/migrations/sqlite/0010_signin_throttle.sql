-- Failed sign-ins, per user name (`user:NAME`) and per address
-- (`address:IP`), so every process sharing the database throttles alike
-- (app/signin.rs). `failures` counts since the last quiet spell;
-- `not_before` is when the next attempt may be checked, `locked_until`
-- the end of a lock (0: none); both are seconds since the Unix epoch.
CREATE TABLE signin_throttle (
    key TEXT PRIMARY KEY,
    failures INTEGER NOT NULL,
    last_failure_at INTEGER NOT NULL,
    not_before INTEGER NOT NULL,
    locked_until INTEGER NOT NULL
);
