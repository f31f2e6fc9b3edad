-- Background work (app/worker/): one row per job, claimed by one host
-- process at a time with a lease it renews. `status` is queued, running,
-- done or dead (its last attempt failed, or it failed for good).
-- `run_after_ms` and `lease_until_ms` are milliseconds since the Unix
-- epoch (leases are short); the other times are seconds. `payload`,
-- `progress` and `result` are JSON text the job's kind defines.
CREATE TABLE jobs (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    user_name TEXT,
    payload TEXT NOT NULL,
    status TEXT NOT NULL,
    attempts BIGINT NOT NULL DEFAULT 0,
    max_attempts BIGINT NOT NULL,
    run_after_ms BIGINT NOT NULL,
    lease_owner TEXT,
    lease_until_ms BIGINT,
    progress TEXT,
    result TEXT,
    last_error TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    finished_at BIGINT
);
CREATE INDEX jobs_due ON jobs (status, run_after_ms);
CREATE INDEX jobs_lease ON jobs (lease_owner);
-- The records of a batch job (app/actions/batch/), one row each, in the
-- order pasted. `state` is waiting, started (its run's id chosen and kept
-- before the run is stored, so a restart finds it), done or kept (the
-- budget kept it from starting). `kind` is how its run ended.
CREATE TABLE batch_items (
    job_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    position BIGINT NOT NULL,
    record BIGINT NOT NULL,
    state TEXT NOT NULL,
    run_id TEXT,
    kind TEXT,
    said TEXT,
    tokens BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (job_id, position)
);
-- A run being worked on (running, resuming) belongs to the process
-- working on it until its lease runs out (milliseconds since the epoch).
ALTER TABLE runs ADD COLUMN lease_owner TEXT;
ALTER TABLE runs ADD COLUMN lease_until_ms BIGINT;
