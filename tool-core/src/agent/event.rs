//! Every step of a run, as an [`Event`] a host can watch live or keep.
//!
//! An event borrows what the loop holds anyway (the conversation, the
//! offered tools, the model's answer, the call): the loop copies nothing
//! to tell a sink, and builds no event at all for a sink that is not
//! [listening](EventSink::is_listening). A sink that keeps events takes
//! them [owned](Event::into_owned).

use std::borrow::Cow;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{ContextBudget, Decision, Message, RunStatus, ToolCall, Usage};
use crate::exposure::Exposure;
use crate::gates::Denial;
use crate::{Proposal, ToolError, ToolOutput};

/// One step of a run. Serializable, so a host can store a run's events and
/// build an inspector on them alone; a stored event reads back as an
/// `Event<'static>`, every field owned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Event<'a> {
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
        messages: Cow<'a, [Message]>,
        /// The tools offered, in the provider's form; `None` for none.
        tools: Option<Cow<'a, [Value]>>,
    },
    /// The model answered.
    ResponseReceived {
        /// The round.
        round: u32,
        /// Its text.
        text: Cow<'a, str>,
        /// Its calls, as it made them (before duplicate ids are dropped).
        calls: Cow<'a, [ToolCall]>,
        /// The tokens this request used.
        usage: Usage,
        /// The model's reasoning, where the provider returns it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        thinking: Option<Cow<'a, str>>,
        /// The provider's answer as it came, where the model captured it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        raw: Option<Cow<'a, Value>>,
    },
    /// A call went through the gated call path (or, after an approval, the
    /// proposal was applied).
    ToolExecuted {
        /// The round the call was made in.
        round: u32,
        /// The call's id.
        call_id: Cow<'a, str>,
        /// The tool the call named.
        tool: Cow<'a, str>,
        /// The arguments as the model sent them.
        arguments: Cow<'a, Value>,
        /// What came of it.
        result: CallResult,
        /// How long it took (wall clock).
        duration: Duration,
    },
    /// A call under way reported progress
    /// ([`ToolContext::progress`](crate::ToolContext::progress)). Reports
    /// made between two looks of the loop are folded into the newest per
    /// call; a host shows them live and need not keep them.
    ToolProgress {
        /// The round the call was made in.
        round: u32,
        /// The call's id.
        call_id: String,
        /// Its tool.
        tool: String,
        /// How much is done.
        done: u64,
        /// Of how much, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        total: Option<u64>,
        /// What is being done.
        message: String,
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
    /// A call's result raised what the run has read (gate 9): the
    /// exposure as it is now, and the granted tools it takes away from the
    /// next round's offer.
    ExposureRaised {
        /// The round.
        round: u32,
        /// The call whose result raised it.
        call_id: String,
        /// Its tool.
        tool: String,
        /// The run's exposure after the call.
        exposure: Exposure,
        /// The granted tools no longer offered, by name.
        withdrawn: Vec<String>,
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

impl Event<'_> {
    /// The event with every field owned, to keep beyond the step that
    /// produced it (borrowed fields are copied, owned ones moved).
    pub fn into_owned(self) -> Event<'static> {
        match self {
            Event::RoundStarted { round } => Event::RoundStarted { round },
            Event::ContextBudget { round, budget } => Event::ContextBudget { round, budget },
            Event::RequestSent {
                round,
                messages,
                tools,
            } => Event::RequestSent {
                round,
                messages: Cow::Owned(messages.into_owned()),
                tools: tools.map(|tools| Cow::Owned(tools.into_owned())),
            },
            Event::ResponseReceived {
                round,
                text,
                calls,
                usage,
                thinking,
                raw,
            } => Event::ResponseReceived {
                round,
                text: Cow::Owned(text.into_owned()),
                calls: Cow::Owned(calls.into_owned()),
                usage,
                thinking: thinking.map(|thinking| Cow::Owned(thinking.into_owned())),
                raw: raw.map(|raw| Cow::Owned(raw.into_owned())),
            },
            Event::ToolExecuted {
                round,
                call_id,
                tool,
                arguments,
                result,
                duration,
            } => Event::ToolExecuted {
                round,
                call_id: Cow::Owned(call_id.into_owned()),
                tool: Cow::Owned(tool.into_owned()),
                arguments: Cow::Owned(arguments.into_owned()),
                result,
                duration,
            },
            Event::ToolProgress {
                round,
                call_id,
                tool,
                done,
                total,
                message,
            } => Event::ToolProgress {
                round,
                call_id,
                tool,
                done,
                total,
                message,
            },
            Event::Suspended {
                round,
                call_id,
                proposal,
            } => Event::Suspended {
                round,
                call_id,
                proposal,
            },
            Event::ExposureRaised {
                round,
                call_id,
                tool,
                exposure,
                withdrawn,
            } => Event::ExposureRaised {
                round,
                call_id,
                tool,
                exposure,
                withdrawn,
            },
            Event::Resumed {
                round,
                call_id,
                decision,
            } => Event::Resumed {
                round,
                call_id,
                decision,
            },
            Event::Finished {
                answer,
                status,
                usage,
                rounds,
            } => Event::Finished {
                answer,
                status,
                usage,
                rounds,
            },
        }
    }
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
/// Implemented for `Vec<Event<'static>>` (keeps a copy of each), for `()`
/// (not listening: the loop builds no event for it) and for closures
/// `FnMut(&Event)` (to stream them live).
pub trait EventSink {
    /// Receives one event, in the order the steps happen. It borrows from
    /// the run: [`Event::into_owned`] a clone of it to keep it.
    fn event(&mut self, event: &Event<'_>);

    /// Whether the sink wants events at all. When `false` the loop builds
    /// none (nor the estimate of an [`Event::ContextBudget`]) and never
    /// calls `event`. `true` unless a sink says otherwise.
    fn is_listening(&self) -> bool {
        true
    }
}

impl EventSink for Vec<Event<'static>> {
    fn event(&mut self, event: &Event<'_>) {
        self.push(event.clone().into_owned());
    }
}

impl EventSink for () {
    fn event(&mut self, _event: &Event<'_>) {}

    fn is_listening(&self) -> bool {
        false
    }
}

impl<F: FnMut(&Event<'_>)> EventSink for F {
    fn event(&mut self, event: &Event<'_>) {
        self(event);
    }
}
