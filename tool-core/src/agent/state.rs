//! How a run ends or waits: [`RunEnd`], [`Finished`], the stored
//! [`RunState`] of a suspended run, approvals, and the budget check.

use serde::{Deserialize, Serialize};

use super::{Message, ModelError, Run, ToolCall, Usage};
use crate::Proposal;
use crate::exposure::Exposure;
use crate::gates::Grant;
use crate::stored_format::{Format, Versioned};

/// What a run invocation ([`Agent::start`](super::Agent::start) or
/// [`Agent::resume`](super::Agent::resume)) came to.
#[derive(Debug, Clone, PartialEq)]
#[must_use = "a suspended run must be stored to be resumed"]
#[expect(
    clippy::large_enum_variant,
    reason = "a run ends once; boxing the suspended state would cost every caller a deref for nothing"
)]
pub enum RunEnd {
    /// The run is over.
    Finished(Finished),
    /// A write call proposed a change: store the state, ask an approver,
    /// then [`resume`](super::Agent::resume) it.
    Suspended(RunState),
}

/// A run that is over.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finished {
    /// The model's final text; `None` when the run ended without one
    /// ([`RunStatus::Budget`], [`RunStatus::Failed`],
    /// [`RunStatus::Cancelled`]).
    pub answer: Option<String>,
    /// How it ended.
    pub status: RunStatus,
    /// Tokens used over the whole run, across suspensions.
    pub usage: Usage,
    /// Requests sent over the whole run.
    pub rounds: u32,
    /// The whole conversation, to continue it in a later run.
    pub messages: Vec<Message>,
    /// Every approval decision the run waited for, in order.
    pub decisions: Vec<ProposalDecision>,
    /// What its tool results brought in (gate 9).
    #[serde(default)]
    pub exposure: Exposure,
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
#[non_exhaustive]
pub enum RunStatus {
    /// The model answered without calls.
    Completed,
    /// The round cap was reached with calls pending; a last request without
    /// tools wrote the closing answer.
    Truncated,
    /// The host's budget check ended the run before a round.
    Budget {
        /// The check's reason.
        reason: String,
    },
    /// The model could not answer.
    Failed {
        /// Why.
        error: ModelError,
    },
    /// The host cancelled the run ([`CancelToken`](crate::calls::CancelToken)).
    /// The conversation so far is kept, every call answered (those that
    /// did not finish with "cancelled"); nothing was half-written, since
    /// applying a proposal is never cancelled.
    Cancelled,
}

pub use crate::approval::Decision;

/// A decision the run received, kept with the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProposalDecision {
    /// The call that proposed.
    pub call_id: String,
    /// What it proposed.
    pub proposal: Proposal,
    /// What was decided.
    pub decision: Decision,
}

/// The write call a suspended run waits on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingApproval {
    /// The call, as the model made it.
    pub call: ToolCall,
    /// What it proposes; nothing is written until it is approved.
    pub proposal: Proposal,
}

/// The version of the serialized [`RunState`] format this build writes and
/// reads.
pub const RUN_STATE_FORMAT: u32 = 1;

/// A suspended run: everything needed to resume it later, in another
/// process. Store it as is (`serde`); a format this build cannot read is
/// refused, never guessed.
///
/// The run's grant is stored with it; resuming narrows it to what the
/// gates allow then (`stored ∩ now`, [`Grant::resume`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunState {
    format: Format<RunState>,
    pub(super) messages: Vec<Message>,
    pub(super) grant: Grant,
    pub(super) round: u32,
    pub(super) usage: Usage,
    pub(super) pending: PendingApproval,
    pub(super) remaining: Vec<ToolCall>,
    pub(super) decisions: Vec<ProposalDecision>,
    /// Absent in states stored before it existed: read as nothing read.
    #[serde(default)]
    pub(super) exposure: Exposure,
}

impl Versioned for RunState {
    const WHAT: &'static str = "run state";
    const FORMAT: u32 = RUN_STATE_FORMAT;
}

impl RunState {
    /// `run`, suspended on `pending` with `remaining` calls of the same
    /// response still to answer.
    pub(super) fn suspend(run: Run, pending: PendingApproval, remaining: Vec<ToolCall>) -> Self {
        RunState {
            format: Format::CURRENT,
            messages: run.messages,
            grant: run.grant,
            round: run.round,
            usage: run.usage,
            pending,
            remaining,
            decisions: run.decisions,
            exposure: std::sync::Arc::unwrap_or_clone(run.exposure),
        }
    }

    /// A run of one step: `call`, made outside any model's loop (an MCP
    /// client's single call) with `grant` and what its caller had read
    /// (`exposure`), proposed `proposal` and waits for its decision.
    ///
    /// It is decided like any suspended run, through
    /// [`Agent::resume`](super::Agent::resume): the same gates, the same
    /// claim, the same apply. A host resumes it with a model that answers
    /// nothing, so the run ends once the call is answered. The call's
    /// arguments are the proposal's, so the resume's check that the
    /// proposal is the call's holds for a model of
    /// [`Provider::Mcp`](crate::export::Provider::Mcp).
    pub fn one_call(
        grant: Grant,
        call_id: impl Into<String>,
        proposal: Proposal,
        exposure: Exposure,
    ) -> Self {
        let call = ToolCall {
            id: call_id.into(),
            name: proposal.tool().to_owned(),
            arguments: proposal.arguments().clone(),
        };
        RunState {
            format: Format::CURRENT,
            messages: vec![Message::Assistant {
                text: String::new(),
                calls: vec![call.clone()],
            }],
            grant,
            round: 1,
            usage: Usage::default(),
            pending: PendingApproval { call, proposal },
            remaining: Vec::new(),
            decisions: Vec::new(),
            exposure,
        }
    }

    /// What the run's tool results have brought in so far (gate 9); a
    /// resume goes on from it.
    pub fn exposure(&self) -> &Exposure {
        &self.exposure
    }

    /// The conversation so far, up to the suspended call's response.
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// The run's grant as stored.
    pub fn grant(&self) -> &Grant {
        &self.grant
    }

    /// The round the run was suspended in.
    pub fn round(&self) -> u32 {
        self.round
    }

    /// Tokens used so far.
    pub fn usage(&self) -> Usage {
        self.usage
    }

    /// The call waiting for a decision.
    pub fn pending(&self) -> &PendingApproval {
        &self.pending
    }

    /// What the approver is asked to decide on.
    pub fn proposal(&self) -> &Proposal {
        &self.pending.proposal
    }

    /// The calls of the same response after the suspended one: they run,
    /// in order, after the decision.
    pub fn remaining(&self) -> &[ToolCall] {
        &self.remaining
    }

    /// The decisions the run received before this suspension.
    pub fn decisions(&self) -> &[ProposalDecision] {
        &self.decisions
    }
}

/// What a run has spent when a round is about to start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Spent {
    /// Requests sent so far.
    pub rounds: u32,
    /// Tokens used so far.
    pub usage: Usage,
}

/// A budget check's reason to end a run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct BudgetExceeded {
    /// Why, for the host and the run's status.
    pub reason: String,
}

impl BudgetExceeded {
    /// A reason to end the run.
    pub fn new(reason: impl Into<String>) -> Self {
        BudgetExceeded {
            reason: reason.into(),
        }
    }
}

/// A host's budget check, run before every round (the closing request of a
/// truncated run included). Implemented for closures
/// `Fn(&Spent) -> Result<(), BudgetExceeded>`.
pub trait Budget: Send + Sync {
    /// `Err` ends the run with [`RunStatus::Budget`] and the reason.
    fn check(&self, spent: &Spent) -> Result<(), BudgetExceeded>;
}

impl<F> Budget for F
where
    F: Fn(&Spent) -> Result<(), BudgetExceeded> + Send + Sync,
{
    fn check(&self, spent: &Spent) -> Result<(), BudgetExceeded> {
        self(spent)
    }
}
