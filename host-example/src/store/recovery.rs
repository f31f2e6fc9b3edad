//! Work left behind by a host process that stopped: runs still `running`
//! or `resuming` whose lease ran out. Finding them and recovering one are
//! separate, and the recovery is a compare-and-set on the run's status and
//! lease, so a run whose process renewed its lease meanwhile, or that
//! another process recovered first, is left alone.

use crate::store::RunLog;
use sqlx::Row;
use tool_core::approval::Decision;
use tool_core::{ProposalId, RunId};

use super::audit_chain::insert_audit;
use super::{AuditEntry, AuditKind, RunNote, RunPhase, StoreError, now, to_json};

/// A run whose process stopped working on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AbandonedRun {
    /// The run.
    pub run: RunId,
    /// Whose run it is.
    pub user: String,
    /// `running` or `resuming`.
    pub status: RunPhase,
    /// The process that held it, if one did.
    pub lease_owner: Option<String>,
}

/// What the audit trail says applying an approved proposal came to, with
/// its row's detail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApplyAudited {
    /// The change was written.
    Applied(String),
    /// The tool refused to write it (stale, invalid); nothing was written.
    Failed(String),
}

/// What recovering a run does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recovery {
    /// Back to `suspended`, its state untouched: its proposal can be
    /// decided again.
    Release,
    /// `failed`, with the reason noted.
    Fail,
}

/// Runs worked on whose lease ran out before `now_ms` (or that have none:
/// left by a build without leases).
const ABANDONED: &str = "status IN ('running', 'resuming')
    AND (lease_until_ms IS NULL OR lease_until_ms < $1)";

impl RunLog<'_> {
    /// Up to `limit` runs whose process stopped working on them: `running`
    /// or `resuming` with their lease run out at `now_ms`.
    pub async fn abandoned_runs(
        &self,
        now_ms: i64,
        limit: usize,
    ) -> Result<Vec<AbandonedRun>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT id, user_name, status, lease_owner FROM runs WHERE {ABANDONED}
             ORDER BY updated_at LIMIT $2"
        ))
        .bind(now_ms)
        .bind(i64::try_from(limit).unwrap_or(i64::MAX))
        .fetch_all(&self.store.pool)
        .await?;
        rows.iter()
            .map(|row| {
                let run = RunId(row.try_get("id")?);
                Ok(AbandonedRun {
                    status: super::runs::phase_of(&row.try_get::<String, _>("status")?, &run.0)?,
                    user: row.try_get("user_name")?,
                    lease_owner: row.try_get("lease_owner")?,
                    run,
                })
            })
            .collect()
    }

    /// Recovers `abandoned` as `recovery` says, noting `reason` on the run
    /// and in the audit trail (as `actor`), in one transaction; `false`
    /// (nothing written) when it is no longer abandoned at `now_ms`: its
    /// status changed or its lease was renewed.
    pub async fn recover_run(
        &self,
        abandoned: &AbandonedRun,
        recovery: Recovery,
        reason: &str,
        actor: &str,
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        self.recover_run_with(abandoned, recovery, None, reason, actor, now_ms)
            .await
    }

    /// [`RunLog::recover_run`](crate::store::RunLog::recover_run) releasing `abandoned` (back to `suspended`)
    /// and taking back the recorded approval of `proposal`, whose change
    /// was never applied, in the same transaction: the proposal is
    /// `pending` again, to be decided again.
    pub async fn release_claim(
        &self,
        abandoned: &AbandonedRun,
        proposal: &ProposalId,
        reason: &str,
        actor: &str,
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        let release = Recovery::Release;
        self.recover_run_with(abandoned, release, Some(proposal), reason, actor, now_ms)
            .await
    }

    /// What applying the approved `proposal`, decided in `run`, came to,
    /// as the audit trail says: its `applied` row is written in the
    /// change's own transaction
    /// ([`SqlSite::auditing`](crate::store::SqlSite::auditing)), its
    /// `failed` row with the run's event of the failed call. `None` when
    /// neither is there: nothing was written.
    pub async fn apply_audited(
        &self,
        run: &RunId,
        proposal: &ProposalId,
    ) -> Result<Option<ApplyAudited>, StoreError> {
        let row = sqlx::query(
            "SELECT decision, detail FROM audit WHERE run_id = $1 AND kind = 'write'
             AND decision IN ('applied', 'failed') AND detail LIKE $2
             ORDER BY seq DESC LIMIT 1",
        )
        .bind(run.0.as_str())
        .bind(format!("%({})", proposal.as_str()))
        .fetch_optional(&self.store.pool)
        .await?;
        row.map(|row| {
            let detail: Option<String> = row.try_get("detail")?;
            let detail = detail.unwrap_or_default();
            Ok(match row.try_get::<String, _>("decision")?.as_str() {
                "applied" => ApplyAudited::Applied(detail),
                _ => ApplyAudited::Failed(detail),
            })
        })
        .transpose()
    }

    async fn recover_run_with(
        &self,
        abandoned: &AbandonedRun,
        recovery: Recovery,
        unclaim: Option<&ProposalId>,
        reason: &str,
        actor: &str,
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        let (status, outcome) = match recovery {
            Recovery::Release => ("suspended", None),
            Recovery::Fail => (
                "failed",
                Some(serde_json::json!({ "recovered": reason }).to_string()),
            ),
        };
        // The chain first, then the database: see store/audit_chain.rs.
        let mut links = self.store.chain()?.begin(&self.store.pool).await?;
        let mut tx = self.store.begin_write().await?;
        let done = sqlx::query(&format!(
            "UPDATE runs SET status = $2, outcome = COALESCE($3, outcome),
                 state = CASE WHEN $2 = 'failed' THEN NULL ELSE state END,
                 lease_owner = NULL, lease_until_ms = NULL, updated_at = $4
             WHERE id = $5 AND status = $6 AND {ABANDONED}"
        ))
        .bind(now_ms)
        .bind(status)
        .bind(outcome)
        .bind(now())
        .bind(abandoned.run.0.as_str())
        .bind(abandoned.status.as_str())
        .execute(&mut *tx)
        .await?;
        if done.rows_affected() != 1 {
            return Ok(false);
        }
        if recovery == Recovery::Fail {
            // A run that will not go on cannot apply what it proposed: a
            // proposal stored before the process stopped, and the run did
            // not wait on it yet, expires rather than wait for ever.
            sqlx::query(
                "INSERT INTO decisions (proposal_id, data, decided_at)
                 SELECT id, $2, $3 FROM proposals WHERE run_id = $1 AND status = 'pending'",
            )
            .bind(abandoned.run.0.as_str())
            .bind(to_json(&Decision::Expired))
            .bind(now())
            .execute(&mut *tx)
            .await?;
            sqlx::query(
                "UPDATE proposals SET status = 'expired' WHERE run_id = $1 AND status = 'pending'",
            )
            .bind(abandoned.run.0.as_str())
            .execute(&mut *tx)
            .await?;
        }
        if let Some(proposal) = unclaim {
            // The approval was recorded but its change never committed:
            // the decision is taken back, so the proposal waits again.
            sqlx::query("DELETE FROM decisions WHERE proposal_id = $1")
                .bind(proposal.as_str())
                .execute(&mut *tx)
                .await?;
            sqlx::query("UPDATE proposals SET status = 'pending' WHERE id = $1")
                .bind(proposal.as_str())
                .execute(&mut *tx)
                .await?;
        }
        let note = RunNote::Recovered {
            reason: reason.to_owned(),
        };
        sqlx::query(
            "INSERT INTO run_notes (run_id, seq, at, data)
             SELECT $1, COALESCE(MAX(seq), 0) + 1, $2, $3 FROM run_notes WHERE run_id = $1",
        )
        .bind(abandoned.run.0.as_str())
        .bind(now())
        .bind(to_json(&note))
        .execute(&mut *tx)
        .await?;
        let mut entry = AuditEntry::new(
            AuditKind::Write,
            actor,
            match recovery {
                Recovery::Release => "released",
                Recovery::Fail => "failed",
            },
        );
        entry.run = Some(abandoned.run.0.clone());
        entry.tool = Some("recovery".to_owned());
        entry.detail = Some(reason.to_owned());
        insert_audit(&links.link(&entry)).execute(&mut *tx).await?;
        tx.commit().await?;
        links.committed();
        Ok(true)
    }
}
