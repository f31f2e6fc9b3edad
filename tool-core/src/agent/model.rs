//! What the loop exchanges with a model: messages, tool calls, token usage,
//! and the one trait a host implements per provider.

use std::future::Future;
use std::ops::{Add, AddAssign};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::export::Provider;

/// One message of the conversation, in the loop's provider-neutral form. A
/// [`Model`] maps each to its provider's wire form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Message {
    /// Instructions from the host.
    System {
        /// The instructions.
        text: String,
    },
    /// What a person (or the loop, for the closing request) says.
    User {
        /// The text.
        text: String,
    },
    /// What the model answered: text, tool calls, or both.
    Assistant {
        /// The text; empty when the model only called tools.
        text: String,
        /// The calls, in the order the model made them; every id is
        /// answered by exactly one [`Message::Tool`] before the next request.
        calls: Vec<ToolCall>,
    },
    /// The result of one call, sent back to the model.
    Tool {
        /// The id of the call it answers.
        call_id: String,
        /// The tool the call named (some providers want it beside the id).
        name: String,
        /// The result, or the model-facing text of the error.
        content: String,
        /// Whether `content` is an error.
        is_error: bool,
    },
}

impl Message {
    /// A system message.
    pub fn system(text: impl Into<String>) -> Self {
        Message::System { text: text.into() }
    }

    /// A user message.
    pub fn user(text: impl Into<String>) -> Self {
        Message::User { text: text.into() }
    }
}

/// One tool call, as the model made it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's id of the call; the result carries it back.
    pub id: String,
    /// The tool's name, as the model wrote it (it may name no tool at all).
    pub name: String,
    /// The arguments as sent: any JSON value (a provider that sends a
    /// string of JSON is parsed by the [`Model`]; what cannot be parsed is
    /// passed as a string and refused with a readable error).
    pub arguments: Value,
}

/// Tokens a request used, as the provider reported them. Sums saturate: a
/// provider reporting absurd numbers cannot overflow the run's total.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens read (the prompt).
    pub input_tokens: u64,
    /// Tokens written (the answer and the calls).
    pub output_tokens: u64,
}

impl Usage {
    /// Input plus output.
    pub fn total(&self) -> u64 {
        self.input_tokens.saturating_add(self.output_tokens)
    }
}

impl Add for Usage {
    type Output = Usage;

    fn add(self, other: Usage) -> Usage {
        Usage {
            input_tokens: self.input_tokens.saturating_add(other.input_tokens),
            output_tokens: self.output_tokens.saturating_add(other.output_tokens),
        }
    }
}

impl AddAssign for Usage {
    fn add_assign(&mut self, other: Usage) {
        *self = *self + other;
    }
}

/// What the loop asks a model. It borrows the run's conversation and
/// offered tools: the loop copies neither to ask.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelRequest<'a> {
    /// The conversation so far.
    pub messages: &'a [Message],
    /// The offered tools in the [`Model::provider`]'s form, in name order;
    /// `None` when no tool is offered: the request must then carry no tools
    /// field at all (several providers reject an empty list).
    pub tools: Option<&'a [Value]>,
}

/// What a model answered.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelResponse {
    /// The text; empty when it only called tools.
    pub text: String,
    /// The tool calls, in order; empty for a final answer.
    pub calls: Vec<ToolCall>,
    /// The tokens this request used.
    pub usage: Usage,
    /// The model's reasoning, where the provider returns it apart from the
    /// text (it is shown to the host, never sent back).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<String>,
    /// The provider's answer as it came, when the model was asked to keep
    /// it (for an inspector); `None` otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<Value>,
}

/// Why a model could not answer. Ends the run with
/// [`RunStatus::Failed`](super::RunStatus::Failed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ModelError {
    /// The provider could not be reached, or did not answer in time.
    #[error("the model provider could not be reached: {message}")]
    Unavailable {
        /// What the transport said.
        message: String,
    },
    /// The provider answered with an error (a refused request, a rate
    /// limit, an exhausted quota).
    #[error("the model provider refused the request: {message}")]
    Refused {
        /// What the provider said.
        message: String,
    },
    /// The provider's answer could not be read.
    #[error("the model's response could not be read: {message}")]
    InvalidResponse {
        /// What was wrong with it.
        message: String,
    },
}

/// A model the loop can ask: one provider's client, implemented by the host.
///
/// The returned future must be `Send`, so the loop runs on any executor;
/// tool-core itself depends on none.
pub trait Model: Send + Sync {
    /// The provider whose tool form [`ModelRequest::tools`] is in.
    fn provider(&self) -> Provider;

    /// Sends the conversation and the offered tools; returns the answer.
    fn complete(
        &self,
        request: ModelRequest<'_>,
    ) -> impl Future<Output = Result<ModelResponse, ModelError>> + Send;
}
