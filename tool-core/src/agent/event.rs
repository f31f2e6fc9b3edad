//! Every step of a run, as an [`Event`] a host can watch live or keep.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{ContextBudget, Decision, Message, RunStatus, ToolCall, Usage};
use crate::gates::Denial;
use crate::{Proposal, ToolError, ToolOutput};

/// One step of a run. Serializable, so a host can store a run's events and
/// build an inspector on them alone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Event {
    /// A round begins: one request to the model and the calls it makes.
    RoundStarted {
        /// The round, from 1. The closing request of a truncated run is one
        /// round past the cap.
        round: u32,
    },
    /// What the request about to be sent fills of the context window (an
    /// estimate).
    ContextBudget {
        /// The round.
        round: u32,
        /// The estimate, by part.
        budget: ContextBudget,
    },
    /// The request was sent.
    RequestSent {
        /// The round.
        round: u32,
        /// The whole conversation sent.
        messages: Vec<Message>,
        /// The tools offered, in the provider's form; `None` for none.
        tools: Option<Vec<Value>>,
    },
    /// The model answered.
    ResponseReceived {
        /// The round.
        round: u32,
        /// Its text.
        text: String,
        /// Its calls, as it made them (before duplicate ids are dropped).
        calls: Vec<ToolCall>,
        /// The tokens this request used.
        usage: Usage,
        /// The model's reasoning, where the provider returns it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        thinking: Option<String>,
        /// The provider's answer as it came, where the model captured it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        raw: Option<Value>,
    },
    /// A call went through the gated call path (or, after an approval, the
    /// proposal was applied).
    ToolExecuted {
        /// The round the call was made in.
        round: u32,
        /// The call's id.
        call_id: String,
        /// The tool the call named.
        tool: String,
        /// The arguments as the model sent them.
        arguments: Value,
        /// What came of it.
        result: CallResult,
        /// How long it took (wall clock).
        duration: Duration,
    },
    /// A write call proposed a change: the run waits for a decision.
    Suspended {
        /// The round.
        round: u32,
        /// The call that proposed.
        call_id: String,
        /// What approving would do.
        proposal: Proposal,
    },
    /// A decision arrived and the run goes on.
    Resumed {
        /// The round the run was suspended in.
        round: u32,
        /// The call the decision is about.
        call_id: String,
        /// The decision, with who made it.
        decision: Decision,
    },
    /// The run ended.
    Finished {
        /// The model's final text; `None` when the run ended without one
        /// (budget, failure).
        answer: Option<String>,
        /// How it ended.
        status: RunStatus,
        /// Tokens used over the whole run.
        usage: Usage,
        /// Requests sent over the whole run.
        rounds: u32,
    },
}

/// What came of one call, for the host. The model is given the output's
/// [text](ToolOutput::to_model_text) or the error's `model_text`, nothing of a
/// proposal (it waits for the decision), and never `detail` or `denial`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CallResult {
    /// The tool ran (or the approved proposal was applied).
    Output {
        /// Its output.
        output: ToolOutput,
    },
    /// A write tool proposed a change; nothing is written yet.
    Proposed {
        /// The proposal.
        proposal: Proposal,
    },
    /// The call failed or was refused.
    Error {
        /// What the model is told.
        model_text: String,
        /// The detail for the host (a refusal names its gate here).
        detail: String,
        /// The gate that refused, for a refusal.
        denial: Option<Denial>,
    },
}

impl CallResult {
    pub(crate) fn from_error(error: &ToolError) -> Self {
        CallResult::Error {
            model_text: error.model_text(),
            detail: error.to_string(),
            denial: match error {
                ToolError::Refused { denial, .. } => Some(denial.clone()),
                _ => None,
            },
        }
    }
}

/// Where a run's events go.
///
/// Implemented for `Vec<Event>` (keeps a copy of each), for `()` (drops
/// them) and for closures `FnMut(&Event)` (to stream them live).
pub trait EventSink {
    /// Receives one event, in the order the steps happen.
    fn event(&mut self, event: &Event);
}

impl EventSink for Vec<Event> {
    fn event(&mut self, event: &Event) {
        self.push(event.clone());
    }
}

impl EventSink for () {
    fn event(&mut self, _event: &Event) {}
}

impl<F: FnMut(&Event)> EventSink for F {
    fn event(&mut self, event: &Event) {
        self(event);
    }
}
