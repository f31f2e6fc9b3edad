-- Standing approvals (docs/approvals.md): an approver's "the rest of this
-- run" for one tool within a stated limit. `data` is the
-- tool_core::approval::StandingApproval as JSON; `revoked_at` is set
-- when the approver (or an administrator) takes it back.
CREATE TABLE standing_approvals (
    id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL,
    data TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    revoked_at BIGINT,
    revoked_by TEXT
);
CREATE INDEX standing_approvals_run ON standing_approvals (run_id);
