//! A single call's proposal followed to its end, for the caller who made
//! it: what an MCP client that speaks the tasks extension polls
//! (`tasks/get`), read from the database so any host process answers.
//!
//! The task is the proposal: its id is the proposal's, it is `working`
//! while a person decides through the one approval path (command line or
//! browser), and it ends with what that decision came to. Nothing here
//! decides: the caller may only withdraw their own proposal, which is a
//! rejection through the same path ([`Calls::withdraw_call`](crate::app::Calls::withdraw_call)). Only the
//! caller who made the call sees it; anyone else is told it does not
//! exist, as for an id that was never issued.

use tool_core::agent::RunState;
use tool_core::approval::Decision;
use tool_core::{Actor, Proposal, ProposalId, ToolOutput};

use crate::app::approvals::{NOT_APPLIED, held_words};
use crate::app::{Calls, HostError};
use crate::store::{CallOutcome, RunPhase};

/// The reason a withdrawal records: the requester took the call back.
pub const WITHDRAWN: &str = "withdrawn by its requester";

/// Where a call's proposal stands.
#[derive(Debug, Clone, PartialEq)]
pub enum CallTaskState {
    /// Waiting for a person's decision.
    Waiting,
    /// Approved by `approver`; the change is being applied.
    Applying {
        /// Who approved.
        approver: String,
    },
    /// Approved and written: the tool's output.
    Applied(ToolOutput),
    /// Approved, but nothing was written (a stale proposal, the tool's
    /// failure, or the process applying it stopped), and why.
    NotApplied(String),
    /// Rejected by someone other than the caller.
    Rejected {
        /// Who rejected.
        approver: String,
        /// Why.
        reason: String,
    },
    /// The caller withdrew it.
    Withdrawn,
    /// Nobody decided within the proposal's lifetime.
    Expired,
}

impl CallTaskState {
    /// Whether the task has ended.
    pub fn is_final(&self) -> bool {
        !matches!(
            self,
            CallTaskState::Waiting | CallTaskState::Applying { .. }
        )
    }
}

/// A call's proposal and where it stands.
#[derive(Debug, Clone, PartialEq)]
pub struct CallTask {
    /// The proposal (its id is the task's).
    pub proposal: Proposal,
    /// When the call proposed it (seconds since the epoch).
    pub created_at: i64,
    /// When it last changed: proposed, decided, applied.
    pub updated_at: i64,
    /// Where it stands.
    pub state: CallTaskState,
    /// Why it is held for an approver other than the caller, and what
    /// the caller had read, when it is ([`held_words`]).
    pub held: Option<String>,
}

impl CallTask {
    /// The task of a proposal a call has just made.
    pub fn waiting(proposal: Proposal) -> CallTask {
        let created_at = i64::try_from(proposal.created_at()).unwrap_or(i64::MAX);
        CallTask {
            held: held_words(&proposal, None),
            proposal,
            created_at,
            updated_at: created_at,
            state: CallTaskState::Waiting,
        }
    }

    /// One line for the person behind the client: what waits, and what
    /// it would change, or how it ended.
    pub fn status_message(&self) -> String {
        let proposal = &self.proposal;
        match &self.state {
            CallTaskState::Waiting => {
                let held = self
                    .held
                    .as_ref()
                    .map_or_else(String::new, |held| format!("; {held}"));
                format!(
                    "awaiting a person's approval in the host: {}{held}",
                    proposal.to_model_text()
                )
            }
            CallTaskState::Applying { approver } => {
                format!("approved by {approver}; the change is being applied")
            }
            CallTaskState::Applied(output) => format!("applied: {}", output.to_model_text()),
            CallTaskState::NotApplied(reason) => format!("{NOT_APPLIED}: {reason}"),
            CallTaskState::Rejected { approver, reason } => {
                format!("rejected by {approver}: {reason}")
            }
            CallTaskState::Withdrawn => WITHDRAWN.to_owned(),
            CallTaskState::Expired => {
                "expired: nobody decided in time; nothing was written".to_owned()
            }
        }
    }
}

impl Calls<'_> {
    /// Where the proposal `id` that `caller` made by a single call stands.
    ///
    /// # Errors
    ///
    /// [`HostError::UnknownProposal`] for an id that names no proposal,
    /// one of another user, or one an agent run made: the same answer.
    pub async fn call_task(&self, caller: &Actor, id: &str) -> Result<CallTask, HostError> {
        let proposal_id = ProposalId::new(id);
        let (stored, run) = self.callers_proposal(caller, &proposal_id).await?;
        let held = held_words(&stored.proposal, run.state.as_ref().map(RunState::exposure));
        let proposal = stored.proposal;
        let created_at = i64::try_from(proposal.created_at()).unwrap_or(i64::MAX);
        let decisions = self.host.store().decisions();
        let mut decided = decisions.decision_at(&proposal_id).await?;
        if decided.is_none() && self.approvals.expired(proposal.created_at()) {
            // Decided expired through the one decision path, as the
            // worker's sweep does, so a process with no worker (stdio)
            // tells its caller too.
            self.approvals.expire_proposal(&proposal_id).await?;
            decided = decisions.decision_at(&proposal_id).await?;
        }
        if matches!(decided, Some((Decision::Approved { .. }, _)))
            && decisions.call_outcome(&proposal_id).await?.is_none()
        {
            // Being applied, or the process applying it stopped: what such
            // a process left is recovered here too once its lease ran out
            // (a process with no worker asks), so the task goes on.
            self.jobs.recover_abandoned().await?;
            // A run no longer being worked on whose outcome was not kept:
            // the audit trail says what applying came to.
            let resuming = self
                .host
                .store()
                .run_log()
                .run(&stored.run)
                .await?
                .is_some_and(|run| run.status == RunPhase::Resuming);
            if !resuming {
                self.jobs.settle_call(&stored.run, &proposal_id).await?;
            }
            decided = decisions.decision_at(&proposal_id).await?;
        }
        let Some((decision, decided_at)) = decided else {
            return Ok(CallTask {
                proposal,
                created_at,
                updated_at: created_at,
                state: CallTaskState::Waiting,
                held,
            });
        };
        let (state, updated_at) = match decision {
            Decision::Approved { approver } => {
                match self
                    .host
                    .store()
                    .decisions()
                    .call_outcome(&proposal_id)
                    .await?
                {
                    Some((CallOutcome::Applied(output), at)) => {
                        (CallTaskState::Applied(output), at)
                    }
                    Some((CallOutcome::Failed(reason), at)) => {
                        (CallTaskState::NotApplied(reason), at)
                    }
                    None => (
                        CallTaskState::Applying {
                            approver: approver.id,
                        },
                        decided_at,
                    ),
                }
            }
            Decision::Rejected { approver, reason } => {
                let state = if approver.id == caller.id && reason == WITHDRAWN {
                    CallTaskState::Withdrawn
                } else {
                    CallTaskState::Rejected {
                        approver: approver.id,
                        reason,
                    }
                };
                (state, decided_at)
            }
            _ => (CallTaskState::Expired, decided_at),
        };
        Ok(CallTask {
            proposal,
            created_at,
            updated_at,
            state,
            held,
        })
    }

    /// `caller` takes back the proposal `id` their single call made: a
    /// rejection through the one approval path, by them, with the reason
    /// [`WITHDRAWN`]. A proposal already decided stays as decided.
    ///
    /// # Errors
    ///
    /// [`HostError::UnknownProposal`] as for [`Calls::call_task`](crate::app::Calls::call_task);
    /// [`HostError::MayNotDecide`] when the caller no longer passes the
    /// gates for its tool.
    pub async fn withdraw_call(&self, caller: &Actor, id: &str) -> Result<(), HostError> {
        self.callers_proposal(caller, &ProposalId::new(id)).await?;
        match self
            .approvals
            .reject(id, &caller.id, WITHDRAWN, &mut ())
            .await
        {
            Ok(_) | Err(HostError::AlreadyDecided(_)) => Ok(()),
            Err(error) => Err(error),
        }
    }

    /// The proposal `id` and its run, if `caller` made it by a single
    /// call.
    async fn callers_proposal(
        &self,
        caller: &Actor,
        id: &ProposalId,
    ) -> Result<(crate::store::StoredProposal, crate::store::StoredRun), HostError> {
        let unknown = || HostError::UnknownProposal(id.as_str().to_owned());
        let stored = self
            .host
            .store()
            .decisions()
            .proposal(id)
            .await?
            .ok_or_else(unknown)?;
        let run = self
            .host
            .store()
            .run_log()
            .run(&stored.run)
            .await?
            .ok_or_else(unknown)?;
        if !run.is_single_call() || run.user != caller.id {
            return Err(unknown());
        }
        Ok((stored, run))
    }
}
