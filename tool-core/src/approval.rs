//! Approving a write tool's proposal: one path, bound to the run's grant,
//! decided once.
//!
//! [`Approval::approve`] is the only public way to apply a proposal. It
//! checks, in this order, and writes nothing unless every check passes:
//!
//! 1. the proposal's tool is still in the run's grant (`stored ∩ now`) and
//!    the proposal's arguments pass that grant's scope, exactly as a call
//!    made now would be checked;
//! 2. the approver passes the gates for that tool (an approver who could
//!    not call it cannot approve it);
//! 3. the proposal is claimed in the [`ApprovalStore`]: the first decision
//!    wins, every later one is told it was already decided;
//! 4. the tool proposes again, on the proposal's own arguments, against the
//!    record as it is now: a fresh proposal that differs makes this one
//!    stale, and it is refused (this also re-runs the tool's own checks, so
//!    an edited proposal is refused);
//! 5. the tool applies, as a compare-and-set on the replaced values.
//!
//! docs/agent-loop.md shows the path inside a run; the host quick start
//! (`host-example/examples/host_quick_start.rs`) shows it whole.

use std::collections::HashMap;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::gates::{Denial, Gates, Grant, RunInputs};
use crate::{Actor, Proposal, ProposalId, Registry, ToolContext, ToolError, ToolOutput};

/// What was decided about one proposal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Decision {
    /// Apply it. The approver must pass the gates for the tool.
    Approved {
        /// Who approved.
        approver: Actor,
    },
    /// Do not apply it. The model is told, with the reason.
    Rejected {
        /// Who rejected.
        approver: Actor,
        /// Why; shown to the model.
        reason: String,
    },
}

impl Decision {
    /// Who decided.
    pub fn approver(&self) -> &Actor {
        match self {
            Decision::Approved { approver } | Decision::Rejected { approver, .. } => approver,
        }
    }
}

/// Where decisions are recorded, so that each proposal is decided once.
///
/// `claim` must be atomic: of two callers racing on one id (two threads,
/// two host processes on one database), exactly one gets `Ok`.
pub trait ApprovalStore: Send + Sync {
    /// Records `decision` for `id` unless a decision is recorded already;
    /// then returns that one.
    fn claim(&self, id: &ProposalId, decision: &Decision) -> Result<(), AlreadyDecided>;
}

/// A proposal was decided before.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the proposal was already decided")]
pub struct AlreadyDecided {
    /// The decision that won.
    pub decision: Decision,
}

/// An [`ApprovalStore`] in memory, for tests and single-process hosts.
#[derive(Debug, Default)]
pub struct MemoryApprovals {
    decided: Mutex<HashMap<ProposalId, Decision>>,
}

impl MemoryApprovals {
    /// An empty store.
    pub fn new() -> Self {
        MemoryApprovals::default()
    }

    /// The decision recorded for `id`, if any.
    pub fn decision(&self, id: &ProposalId) -> Option<Decision> {
        self.lock().get(id).cloned()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<ProposalId, Decision>> {
        // A panic while holding the lock cannot leave the map half-written:
        // every write is one insert.
        self.decided.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl ApprovalStore for MemoryApprovals {
    fn claim(&self, id: &ProposalId, decision: &Decision) -> Result<(), AlreadyDecided> {
        let mut decided = self.lock();
        if let Some(existing) = decided.get(id) {
            return Err(AlreadyDecided {
                decision: existing.clone(),
            });
        }
        decided.insert(id.clone(), decision.clone());
        Ok(())
    }
}

/// Why a proposal was not applied. Nothing was written in any case.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ApprovalError {
    /// The run's grant, as it is now, no longer admits the proposal (its
    /// tool or its scope).
    #[error("the run may no longer make this change: {denial}")]
    RunRefused {
        /// The first gate that said no.
        denial: Denial,
    },
    /// The approver does not pass the gates for the proposal's tool.
    #[error("the approver may not make this change: {denial}")]
    ApproverRefused {
        /// The first gate that said no.
        denial: Denial,
    },
    /// Someone decided first (or this is a replay).
    #[error(transparent)]
    AlreadyDecided(#[from] AlreadyDecided),
    /// The record changed since the proposal was made, or the proposal is
    /// not what its tool proposes for its arguments.
    #[error("the proposal is stale: the record changed since it was made; nothing was written")]
    Stale,
    /// A suspended run's stored proposal is not the proposal of its recorded
    /// call (another tool, or other arguments).
    #[error("the stored proposal does not match the call that made it; nothing was written")]
    Mismatch,
    /// The tool refused, or failed while applying.
    #[error(transparent)]
    Tool(#[from] ToolError),
}

impl ApprovalError {
    /// What the model is told in place of the call's result.
    pub fn model_text(&self) -> String {
        match self {
            ApprovalError::Tool(error) => error.model_text(),
            ApprovalError::RunRefused { .. } | ApprovalError::ApproverRefused { .. } => {
                "the change was not applied: it is no longer permitted; nothing was written"
                    .to_owned()
            }
            other => other.to_string(),
        }
    }
}

/// The one approval path of a run (see the module docs).
#[derive(Clone, Copy)]
pub struct Approval<'a> {
    /// The registry the run uses.
    pub registry: &'a Registry,
    /// The run's inputs (its actor, configuration, skills, selection) with
    /// the host's settings as they are now.
    pub run: RunInputs<'a>,
    /// The grant stored with the run; `None` for a run stored without one.
    pub grant: Option<&'a Grant>,
    /// Where decisions are recorded.
    pub store: &'a dyn ApprovalStore,
}

impl Approval<'_> {
    /// Checks everything a call checks, claims the proposal, proposes again
    /// and applies. `cx` is the run's context (its actor proposes again).
    pub async fn approve(
        &self,
        proposal: &Proposal,
        approver: &Actor,
        cx: &ToolContext,
    ) -> Result<ToolOutput, ApprovalError> {
        let run_gates = Gates::new(self.registry, self.run);
        let grant = Grant::resume(self.grant, &run_gates.resolve().grant);
        let tool = run_gates
            .check_call(&grant, proposal.tool(), proposal.arguments(), cx)
            .map_err(|denial| ApprovalError::RunRefused { denial })?;
        let as_approver = RunInputs {
            actor: Some(approver),
            ..self.run
        };
        if let Some(denial) = Gates::new(self.registry, as_approver).denial(proposal.tool()) {
            tracing::info!(
                target: "tool_core::gate",
                run = %cx.run(),
                tool = proposal.tool(),
                decision = "deny",
                gate = %denial.gate(),
                approver = approver.id.as_str(),
            );
            return Err(ApprovalError::ApproverRefused { denial });
        }
        self.store.claim(
            proposal.id(),
            &Decision::Approved {
                approver: approver.clone(),
            },
        )?;
        self.registry.apply_approved(tool, proposal, cx).await
    }

    /// Records a rejection; the first decision wins here too.
    pub fn reject(
        &self,
        proposal: &Proposal,
        approver: &Actor,
        reason: &str,
    ) -> Result<(), ApprovalError> {
        self.store.claim(
            proposal.id(),
            &Decision::Rejected {
                approver: approver.clone(),
                reason: reason.to_owned(),
            },
        )?;
        Ok(())
    }
}

impl std::fmt::Debug for Approval<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Approval")
            .field("grant", &self.grant)
            .finish_non_exhaustive()
    }
}
