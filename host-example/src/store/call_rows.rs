//! The rows of one call, committed together or not at all: a single
//! call's audit row with the proposal it made (and the run that holds the
//! proposer and grant), a run's event with its audit rows and the
//! proposal it carries. Calls finishing together may share one
//! transaction (the audit's group commit); a call's rows never span two.

use crate::store::Decisions;
use std::sync::Arc;

use sqlx::{Any, Row, Transaction};
use tool_core::agent::{CallResult, Event, RunState};
use tool_core::exposure::Exposure;
use tool_core::gates::Grant;
use tool_core::{Proposal, RunId};

use super::audit_chain::insert_audit;
use super::proposals::{insert_proposal, insert_proposal_once};
use super::{AuditEntry, StoreError, now, to_json};

/// A proposal one call outside any run made, with the run of its own
/// that holds who proposed, their grant and what they had read (as an
/// agent run's does, so approving it reads them the same way). The run is
/// stored `suspended` on it, a run of one step
/// ([`RunState::one_call`]).
#[derive(Debug, Clone)]
pub struct CallProposal {
    /// The run of its own.
    pub run: RunId,
    /// Who proposed.
    pub proposer: String,
    /// Their grant when they proposed.
    pub grant: Arc<Grant>,
    /// The proposal, pending.
    pub proposal: Proposal,
    /// What the caller had read when it proposed (gate 9): the approval
    /// is gated with it, as an agent run's is with its run's.
    pub exposure: Exposure,
}

/// The call id of a single call's one step (MCP has no call ids of its
/// own to keep).
const ONE_CALL_ID: &str = "call";

/// One single call's rows: its audit entry and the proposal it made.
#[derive(Debug, Clone)]
pub struct CallRows {
    /// The call in the audit trail.
    pub audit: AuditEntry,
    /// The proposal a write tool made, if any.
    pub proposal: Option<CallProposal>,
}

impl Decisions<'_> {
    #[cfg(any(test, feature = "test-support"))]
    /// Stores a proposal one call made, pending, with its run, in one
    /// transaction and without an audit row (for tests and tools that
    /// prepare a database; calls go through [`Decisions::record_calls`](crate::store::Decisions::record_calls)).
    pub async fn save_call_proposal(&self, made: &CallProposal) -> Result<(), StoreError> {
        let mut tx = self.store.begin_write().await?;
        insert_call_proposal(&mut tx, made).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Makes a single call's run stored `completed` with no state (as
    /// builds before runs of one step kept it) the run of one step on
    /// `proposal` it stands for, `suspended`, with the `grant` it was
    /// stored with and nothing read (those builds kept no exposure);
    /// nothing when it is already one.
    pub async fn suspend_call_run(
        &self,
        run: &RunId,
        grant: &Grant,
        proposal: &Proposal,
    ) -> Result<(), StoreError> {
        let state = one_call_state(grant.clone(), proposal.clone(), Exposure::default());
        sqlx::query(
            "UPDATE runs SET status = 'suspended', state = $2, updated_at = $3
             WHERE id = $1 AND status = 'completed' AND state IS NULL AND request IS NULL",
        )
        .bind(run.0.as_str())
        .bind(to_json(&state))
        .bind(now())
        .execute(&self.store.pool)
        .await?;
        Ok(())
    }

    /// Writes every call's rows in one transaction: one commit (one disk
    /// flush, where the durability asks for one) for the lot, all or none.
    pub async fn record_calls(&self, calls: &[CallRows]) -> Result<(), StoreError> {
        // A lone audit row is one statement, atomic by itself: no
        // transaction to open and close around it.
        if let [only] = calls
            && only.proposal.is_none()
        {
            return self.store.audit_log().audit(&only.audit).await;
        }
        // The chain first, then the database: see store/audit_chain.rs.
        let mut links = self.store.chain()?.begin(&self.store.pool).await?;
        let mut tx = self.store.begin_write().await?;
        for call in calls {
            if let Some(made) = &call.proposal {
                insert_call_proposal(&mut tx, made).await?;
            }
            insert_audit(&links.link(&call.audit))
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        links.committed();
        Ok(())
    }

    /// Appends `event` to the run's events with its audit rows and, for a
    /// call that proposed, its proposal (pending; kept once if already
    /// stored), in one transaction; returns the event's number (from 1).
    pub async fn record_event_with(
        &self,
        run: &RunId,
        event: &Event<'_>,
        audit: &[AuditEntry],
    ) -> Result<i64, StoreError> {
        let mut links = self.store.chain()?.begin(&self.store.pool).await?;
        let mut tx = self.store.begin_write().await?;
        let row = sqlx::query(
            "INSERT INTO run_events (run_id, seq, at, data)
             SELECT $1, COALESCE(MAX(seq), 0) + 1, $2, $3 FROM run_events WHERE run_id = $1
             RETURNING seq",
        )
        .bind(run.0.as_str())
        .bind(now())
        .bind(to_json(event))
        .fetch_one(&mut *tx)
        .await?;
        let seq = row.try_get("seq")?;
        if let Event::ToolExecuted {
            result: CallResult::Proposed { proposal },
            ..
        } = event
        {
            insert_proposal_once(run, proposal)
                .execute(&mut *tx)
                .await?;
        }
        for entry in audit {
            insert_audit(&links.link(entry)).execute(&mut *tx).await?;
        }
        tx.commit().await?;
        links.committed();
        Ok(seq)
    }
}

async fn insert_call_proposal(
    tx: &mut Transaction<'static, Any>,
    made: &CallProposal,
) -> Result<(), StoreError> {
    // A run of one step, waiting on its proposal like any suspended run:
    // decided, applied, audited and recovered through the one approval
    // path. No request: nothing asked a model.
    let state = one_call_state(
        (*made.grant).clone(),
        made.proposal.clone(),
        made.exposure.clone(),
    );
    sqlx::query(
        "INSERT INTO runs (id, user_name, status, grant_json, state, created_at, updated_at)
         VALUES ($1, $2, 'suspended', $3, $4, $5, $5)",
    )
    .bind(made.run.0.as_str())
    .bind(made.proposer.as_str())
    .bind(to_json(&*made.grant))
    .bind(to_json(&state))
    .bind(now())
    .execute(&mut **tx)
    .await?;
    insert_proposal(&made.run, &made.proposal)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// The state a single call's run of one step waits in: the one place its
/// call id is chosen.
fn one_call_state(grant: Grant, proposal: Proposal, exposure: Exposure) -> RunState {
    RunState::one_call(grant, ONE_CALL_ID, proposal, exposure)
}
