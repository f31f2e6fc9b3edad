//! Standing approvals of agent runs, kept where every host process finds
//! them: given, listed for a run, revoked.

use crate::store::Decisions;
use sqlx::Row;
use tool_core::RunId;
use tool_core::approval::StandingApproval;

use super::{StoreError, from_json, now, to_json};

/// A standing approval with its run and whether it was revoked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredStanding {
    /// The run it is for.
    pub run: RunId,
    /// What was approved, by whom, within what.
    pub standing: StandingApproval,
    /// Who revoked it, if anyone did.
    pub revoked_by: Option<String>,
}

impl Decisions<'_> {
    /// Keeps `standing` for `run`.
    pub async fn save_standing(
        &self,
        run: &RunId,
        standing: &StandingApproval,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO standing_approvals (id, run_id, data, created_at) VALUES ($1, $2, $3, $4)",
        )
        .bind(standing.id.as_str())
        .bind(run.0.as_str())
        .bind(to_json(standing))
        .bind(now())
        .execute(self.store.pool())
        .await?;
        Ok(())
    }

    /// The standing approvals of `run` not revoked, oldest first.
    pub async fn standing_of_run(&self, run: &RunId) -> Result<Vec<StandingApproval>, StoreError> {
        sqlx::query(
            "SELECT id, data FROM standing_approvals WHERE run_id = $1 AND revoked_at IS NULL
             ORDER BY created_at, id",
        )
        .bind(run.0.as_str())
        .fetch_all(self.store.pool())
        .await?
        .iter()
        .map(|row| {
            let id: String = row.try_get("id")?;
            from_json(row, "data", || format!("standing approval {id}"))
        })
        .collect()
    }

    /// One standing approval, revoked or not.
    pub async fn standing(&self, id: &str) -> Result<Option<StoredStanding>, StoreError> {
        let row =
            sqlx::query("SELECT run_id, data, revoked_by FROM standing_approvals WHERE id = $1")
                .bind(id)
                .fetch_optional(self.store.pool())
                .await?;
        row.map(|row| {
            Ok(StoredStanding {
                run: RunId(row.try_get("run_id")?),
                standing: from_json(&row, "data", || format!("standing approval {id}"))?,
                revoked_by: row.try_get("revoked_by")?,
            })
        })
        .transpose()
    }

    /// Revokes standing approval `id` as `by`; whether it was in force.
    pub async fn revoke_standing(&self, id: &str, by: &str) -> Result<bool, StoreError> {
        let revoked = sqlx::query(
            "UPDATE standing_approvals SET revoked_at = $2, revoked_by = $3
             WHERE id = $1 AND revoked_at IS NULL",
        )
        .bind(id)
        .bind(now())
        .bind(by)
        .execute(self.store.pool())
        .await?;
        Ok(revoked.rows_affected() > 0)
    }
}
