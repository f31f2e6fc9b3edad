-- Approvals of a proposal whose tool needs two different approvers
-- (`required = 2`, docs/approvals.md): one row per person, so the same
-- person never counts twice. The decision itself is still the one row in
-- `decisions`, claimed by the approval that completes the count.
CREATE TABLE approval_votes (
    proposal_id TEXT NOT NULL,
    approver TEXT NOT NULL,
    approved_at INTEGER NOT NULL,
    PRIMARY KEY (proposal_id, approver)
);
