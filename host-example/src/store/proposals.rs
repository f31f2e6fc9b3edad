//! Proposals of write tools and the decisions on them. [`SqlApprovals`] is
//! the durable [`ApprovalStore`]: a claim is an `INSERT` into `decisions`,
//! whose primary key is the proposal id, so the first decision wins across
//! every process sharing the database.

use crate::store::Decisions;
use std::collections::BTreeSet;

use sqlx::any::{AnyArguments, AnyRow};
use sqlx::query::Query;
use sqlx::{Any, Row};
use tool_core::approval::{AlreadyDecided, ApprovalStore, ClaimError, Decision};
use tool_core::{Actor, BoxFuture, Proposal, ProposalId, RunId};

use super::{Store, StoreError, from_json, now, one_line, to_json};

/// Where a proposal stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProposalStatus {
    /// Waiting for a decision.
    Pending,
    /// Approved.
    Approved,
    /// Rejected.
    Rejected,
    /// Not decided within its lifetime.
    Expired,
}

impl ProposalStatus {
    /// Its name in the table.
    pub fn as_str(self) -> &'static str {
        match self {
            ProposalStatus::Pending => "pending",
            ProposalStatus::Approved => "approved",
            ProposalStatus::Rejected => "rejected",
            ProposalStatus::Expired => "expired",
        }
    }

    fn of(decision: &Decision) -> ProposalStatus {
        match decision {
            Decision::Approved { .. } => ProposalStatus::Approved,
            Decision::Rejected { .. } => ProposalStatus::Rejected,
            _ => ProposalStatus::Expired,
        }
    }
}

/// A proposal as stored, with its run and status.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredProposal {
    /// The run that made it.
    pub run: RunId,
    /// The proposal.
    pub proposal: Proposal,
    /// `pending`, `approved`, `rejected` or `expired`.
    pub status: String,
}

impl StoredProposal {
    fn from_row(row: &AnyRow) -> Result<StoredProposal, StoreError> {
        let id: String = row.try_get("id")?;
        Ok(StoredProposal {
            run: RunId(row.try_get("run_id")?),
            proposal: from_json(row, "data", || format!("proposal {id}"))?,
            status: row.try_get("status")?,
        })
    }
}

impl Decisions<'_> {
    /// Stores a proposal `run` made, pending.
    pub async fn save_proposal(&self, run: &RunId, proposal: &Proposal) -> Result<(), StoreError> {
        insert_proposal(run, proposal)
            .execute(&self.store.pool)
            .await?;
        Ok(())
    }

    /// One proposal, if stored.
    pub async fn proposal(&self, id: &ProposalId) -> Result<Option<StoredProposal>, StoreError> {
        sqlx::query("SELECT id, run_id, data, status FROM proposals WHERE id = $1")
            .bind(id.as_str())
            .fetch_optional(&self.store.pool)
            .await?
            .as_ref()
            .map(StoredProposal::from_row)
            .transpose()
    }

    /// The proposals waiting for a decision, oldest first.
    pub async fn pending_proposals(&self) -> Result<Vec<StoredProposal>, StoreError> {
        sqlx::query(
            "SELECT id, run_id, data, status FROM proposals WHERE status = 'pending'
             ORDER BY created_at, id",
        )
        .fetch_all(&self.store.pool)
        .await?
        .iter()
        .map(StoredProposal::from_row)
        .collect()
    }

    /// The proposals `run` made, oldest first, whatever their status.
    pub async fn run_proposals(&self, run: &RunId) -> Result<Vec<StoredProposal>, StoreError> {
        sqlx::query(
            "SELECT id, run_id, data, status FROM proposals WHERE run_id = $1
             ORDER BY created_at, id",
        )
        .bind(run.0.as_str())
        .fetch_all(&self.store.pool)
        .await?
        .iter()
        .map(StoredProposal::from_row)
        .collect()
    }

    /// The `limit` proposals decided last, newest first, each with its
    /// decision and when it was made (seconds since the Unix epoch).
    pub async fn decided_proposals(
        &self,
        limit: usize,
    ) -> Result<Vec<(StoredProposal, Decision, i64)>, StoreError> {
        let rows = sqlx::query(
            "SELECT p.id, p.run_id, p.data, p.status, d.data AS decision, d.decided_at
             FROM proposals p JOIN decisions d ON d.proposal_id = p.id
             ORDER BY d.decided_at DESC, p.id LIMIT $1",
        )
        .bind(i64::try_from(limit).unwrap_or(i64::MAX))
        .fetch_all(&self.store.pool)
        .await?;
        rows.iter()
            .map(|row| {
                let proposal = StoredProposal::from_row(row)?;
                let decision = from_json(row, "decision", || {
                    format!("the decision on {}", proposal.proposal.id().as_str())
                })?;
                Ok((proposal, decision, row.try_get("decided_at")?))
            })
            .collect()
    }

    /// The decision recorded for a proposal, if any.
    pub async fn decision(&self, id: &ProposalId) -> Result<Option<Decision>, StoreError> {
        sqlx::query("SELECT data FROM decisions WHERE proposal_id = $1")
            .bind(id.as_str())
            .fetch_optional(&self.store.pool)
            .await?
            .as_ref()
            .map(|row| from_json(row, "data", || format!("the decision on {}", id.as_str())))
            .transpose()
    }

    /// The durable approval store over this database.
    pub fn approvals(&self) -> SqlApprovals {
        SqlApprovals {
            store: self.store.clone(),
        }
    }

    async fn claim(&self, id: &ProposalId, decision: &Decision) -> Result<(), ClaimError> {
        let failed =
            |error: &dyn std::fmt::Display| ClaimError::Store(one_line(&error.to_string()));
        let mut tx = self.store.begin_write().await.map_err(|e| failed(&e))?;
        let inserted = sqlx::query(
            "INSERT INTO decisions (proposal_id, data, decided_at) VALUES ($1, $2, $3)",
        )
        .bind(id.as_str())
        .bind(to_json(decision))
        .bind(now())
        .execute(&mut *tx)
        .await;
        match inserted {
            Ok(_) => {}
            Err(sqlx::Error::Database(error)) if error.is_unique_violation() => {
                drop(tx);
                let decision = self
                    .decision(id)
                    .await
                    .map_err(|e| failed(&e))?
                    .ok_or_else(|| ClaimError::Store("the winning decision vanished".into()))?;
                return Err(AlreadyDecided { decision }.into());
            }
            Err(error) => return Err(failed(&error)),
        }
        sqlx::query("UPDATE proposals SET status = $2 WHERE id = $1")
            .bind(id.as_str())
            .bind(ProposalStatus::of(decision).as_str())
            .execute(&mut *tx)
            .await
            .map_err(|e| failed(&e))?;
        tx.commit().await.map_err(|e| failed(&e))
    }
}

/// The statement storing `proposal` of `run`, pending.
pub(super) fn insert_proposal<'q>(
    run: &'q RunId,
    proposal: &'q Proposal,
) -> Query<'q, Any, AnyArguments<'q>> {
    bind_proposal(
        sqlx::query(
            "INSERT INTO proposals (id, run_id, tool, record, data, created_at, status)
             VALUES ($1, $2, $3, $4, $5, $6, 'pending')",
        ),
        run,
        proposal,
    )
}

/// [`insert_proposal`], doing nothing when the proposal is stored already
/// (a suspending run's proposal, stored with the event that made it).
pub(super) fn insert_proposal_once<'q>(
    run: &'q RunId,
    proposal: &'q Proposal,
) -> Query<'q, Any, AnyArguments<'q>> {
    bind_proposal(
        sqlx::query(
            "INSERT INTO proposals (id, run_id, tool, record, data, created_at, status)
             VALUES ($1, $2, $3, $4, $5, $6, 'pending') ON CONFLICT (id) DO NOTHING",
        ),
        run,
        proposal,
    )
}

fn bind_proposal<'q>(
    query: Query<'q, Any, AnyArguments<'q>>,
    run: &'q RunId,
    proposal: &'q Proposal,
) -> Query<'q, Any, AnyArguments<'q>> {
    query
        .bind(proposal.id().as_str())
        .bind(run.0.as_str())
        .bind(proposal.tool())
        .bind(proposal.record.as_str())
        .bind(to_json(proposal))
        .bind(i64::try_from(proposal.created_at()).unwrap_or(i64::MAX))
}

/// The durable [`ApprovalStore`]: the first decision on a proposal wins, in
/// this process and every other one on the same database.
#[derive(Debug, Clone)]
pub struct SqlApprovals {
    store: Store,
}

impl ApprovalStore for SqlApprovals {
    fn claim<'a>(
        &'a self,
        id: &'a ProposalId,
        decision: &'a Decision,
    ) -> BoxFuture<'a, Result<(), ClaimError>> {
        Box::pin(async move { self.store.decisions().claim(id, decision).await })
    }

    fn second<'a>(
        &'a self,
        id: &'a ProposalId,
        approver: &'a Actor,
    ) -> BoxFuture<'a, Result<BTreeSet<String>, ClaimError>> {
        Box::pin(async move { self.store.decisions().second(id, &approver.id).await })
    }
}
