//! What applying an approved single call's proposal came to, kept so the
//! MCP client that made the call can learn it later from any process (its
//! task, `app::calls::tasks`).

use crate::store::Decisions;
use serde::{Deserialize, Serialize};
use sqlx::Row;
use tool_core::approval::Decision;
use tool_core::{ProposalId, ToolOutput};

use super::{StoreError, from_json, now, to_json};

/// How applying an approved proposal ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallOutcome {
    /// Written: the tool's output.
    Applied(ToolOutput),
    /// Nothing was written, and why (a stale proposal, the tool's failure).
    Failed(String),
}

impl Decisions<'_> {
    /// Records what applying proposal `id` came to. Recorded once: a
    /// second record for the same proposal is ignored, since a proposal is
    /// applied at most once.
    pub async fn record_call_outcome(
        &self,
        id: &ProposalId,
        outcome: &CallOutcome,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO call_outcomes (proposal_id, outcome, recorded_at) VALUES ($1, $2, $3)
             ON CONFLICT (proposal_id) DO NOTHING",
        )
        .bind(id.as_str())
        .bind(to_json(outcome))
        .bind(now())
        .execute(self.store.pool())
        .await?;
        Ok(())
    }

    /// What applying proposal `id` came to, and when it was recorded
    /// (seconds since the epoch), if it was.
    pub async fn call_outcome(
        &self,
        id: &ProposalId,
    ) -> Result<Option<(CallOutcome, i64)>, StoreError> {
        let row =
            sqlx::query("SELECT outcome, recorded_at FROM call_outcomes WHERE proposal_id = $1")
                .bind(id.as_str())
                .fetch_optional(self.store.pool())
                .await?;
        row.map(|row| {
            let outcome = from_json(&row, "outcome", || {
                format!("the outcome of {}", id.as_str())
            })?;
            Ok((outcome, row.try_get("recorded_at")?))
        })
        .transpose()
    }

    /// The decision recorded for proposal `id` and when it was made
    /// (seconds since the epoch), if it was decided.
    pub async fn decision_at(
        &self,
        id: &ProposalId,
    ) -> Result<Option<(Decision, i64)>, StoreError> {
        let row = sqlx::query("SELECT data, decided_at FROM decisions WHERE proposal_id = $1")
            .bind(id.as_str())
            .fetch_optional(self.store.pool())
            .await?;
        row.map(|row| {
            let decision = from_json(&row, "data", || format!("the decision on {}", id.as_str()))?;
            Ok((decision, row.try_get("decided_at")?))
        })
        .transpose()
    }
}
