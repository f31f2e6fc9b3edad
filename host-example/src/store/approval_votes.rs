//! Approvals of proposals whose tool needs two different approvers: one
//! row per person ([`SqlApprovals::second`](tool_core::approval::ApprovalStore::second)),
//! counted under the proposal's lock so two people approving at once are
//! both counted.

use crate::store::Decisions;
use std::collections::BTreeSet;

use sqlx::Row;
use tool_core::ProposalId;
use tool_core::approval::ClaimError;

use super::{Backend, StoreError, now, one_line};

impl Decisions<'_> {
    /// Records `approver`'s approval of `id` (once per person) and returns
    /// everyone who has approved it so far.
    pub(crate) async fn second(
        &self,
        id: &ProposalId,
        approver: &str,
    ) -> Result<BTreeSet<String>, ClaimError> {
        self.count_approval(id, approver)
            .await
            .map_err(|error| ClaimError::Store(one_line(&error.to_string())))
    }

    async fn count_approval(
        &self,
        id: &ProposalId,
        approver: &str,
    ) -> Result<BTreeSet<String>, StoreError> {
        let mut tx = self.store.begin_write().await?;
        if self.store.backend() == Backend::Postgres {
            // SQLite's write transaction is the whole database's; here the
            // proposal's row is the lock, so a second approver waits for
            // the first's count and sees it.
            sqlx::query("SELECT id FROM proposals WHERE id = $1 FOR UPDATE")
                .bind(id.as_str())
                .execute(&mut *tx)
                .await?;
        }
        sqlx::query(
            "INSERT INTO approval_votes (proposal_id, approver, approved_at) VALUES ($1, $2, $3)
             ON CONFLICT (proposal_id, approver) DO NOTHING",
        )
        .bind(id.as_str())
        .bind(approver)
        .bind(now())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        // Read after the commit: every approval committed before this one
        // (the lock ordered them) is there, so of two people approving at
        // once, the later sees both.
        self.approvals_of(id).await
    }

    /// Everyone who has approved `id` so far, where two must.
    pub async fn approvals_of(&self, id: &ProposalId) -> Result<BTreeSet<String>, StoreError> {
        sqlx::query("SELECT approver FROM approval_votes WHERE proposal_id = $1")
            .bind(id.as_str())
            .fetch_all(self.store.pool())
            .await?
            .iter()
            .map(|row| row.try_get("approver").map_err(StoreError::from))
            .collect()
    }

    /// Takes back `approver`'s approval of `id`, unless the proposal was
    /// decided meanwhile; whether there was one to take back.
    pub async fn withdraw_approval(
        &self,
        id: &ProposalId,
        approver: &str,
    ) -> Result<bool, StoreError> {
        let removed = sqlx::query(
            "DELETE FROM approval_votes WHERE proposal_id = $1 AND approver = $2
             AND NOT EXISTS (SELECT 1 FROM decisions WHERE proposal_id = $1)",
        )
        .bind(id.as_str())
        .bind(approver)
        .execute(self.store.pool())
        .await?;
        Ok(removed.rows_affected() > 0)
    }
}
