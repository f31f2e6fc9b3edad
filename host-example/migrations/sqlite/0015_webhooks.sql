-- Signed webhooks (app/webhooks/): each one an administrator's setting
-- (never a model's, a tool's or a run's), kept in a table of its own so
-- `settings show` never prints a secret. `events` is a JSON array of
-- event types. The secret is kept as it is: the host must sign with it.
CREATE TABLE webhooks (
    name TEXT PRIMARY KEY,
    url TEXT NOT NULL,
    secret TEXT NOT NULL,
    events TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
-- One event to deliver to one webhook: `body` is the exact JSON sent (and
-- signed), `status` is `pending`, `delivered` or `dead` (its last attempt
-- failed: the dead-letter list). Deliveries of one webhook go out in
-- `seq` order. Times are seconds since the Unix epoch.
CREATE TABLE webhook_deliveries (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    webhook TEXT NOT NULL REFERENCES webhooks (name) ON DELETE CASCADE,
    event_id TEXT NOT NULL,
    event TEXT NOT NULL,
    body TEXT NOT NULL,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    last_error TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, webhook, seq);
