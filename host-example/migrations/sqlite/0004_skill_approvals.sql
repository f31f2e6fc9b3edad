-- Skills an administrator approved: the digest of every file in the
-- skill's folder (and each file's hash, to name the one that changed),
-- who approved it and when. One row per skill name; approving again
-- replaces it.
CREATE TABLE skill_approvals (
    name TEXT PRIMARY KEY,
    folder TEXT NOT NULL,
    digest TEXT NOT NULL,
    files TEXT NOT NULL,
    approved_by TEXT NOT NULL,
    approved_at INTEGER NOT NULL
);
-- What the host noted about a run beside the agent's events, such as a
-- skill it did not trust and why.
CREATE TABLE run_notes (
    run_id TEXT NOT NULL REFERENCES runs (id),
    seq INTEGER NOT NULL,
    at INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
);
