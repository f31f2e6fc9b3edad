//! Asking the client a call came through: the person behind it (an
//! elicitation), its model (sampling), where the person works (roots), and
//! its log. MCP carries these as
//! requests from the server to the client; a host that serves MCP hands
//! the call's context a [`ClientChannel`]
//! ([`ToolContext::with_client`](crate::ToolContext::with_client)).
//! Everywhere else (an agent run, the browser, the command line) there is
//! no client to ask: [`ToolContext::elicit`](crate::ToolContext::elicit)
//! and [`ToolContext::sample`](crate::ToolContext::sample) answer
//! [`AskError::NoClient`] at once, never waiting.
//!
//! On MCP's 2026-07-28 revision a server sends no request inside a call:
//! a question goes back in the call's result, and the client makes the
//! call again with the answer. The call runs again from the start, and
//! each question it asked before is answered at once from what came back;
//! a question not yet answered is [`AskError::InputRequired`]. Name each
//! question ([`ToolContext::elicit_as`](crate::ToolContext::elicit_as) and
//! the like) where the client should see the name; unnamed ones are
//! numbered in the order the call asks them, so a call asks in the same
//! order each time.
//!
//! What the client answers is text a person or a model wrote: a call that
//! got an answer counts as carrying person-written text (gate 9), like one
//! that read an [`Authored`](crate::Authored) value. And nothing a client
//! answers decides an approval: a write tool still only proposes.

use std::future::Future;
use std::pin::Pin;

use serde_json::{Map, Value};

/// A future a [`ClientChannel`] answers with.
pub type Asking<'a, T> = Pin<Box<dyn Future<Output = Result<T, AskError>> + Send + 'a>>;

/// Where a call's questions to its client go.
pub trait ClientChannel: Send + Sync + 'static {
    /// Asks the person behind the client to fill in `request`'s form.
    fn elicit(&self, request: Elicitation) -> Asking<'_, Elicited>;

    /// Asks the person behind the client to go to `url` (to sign in, to
    /// pay: what must not pass through the client), telling them
    /// `message`. A client that cannot: [`AskError::Unsupported`].
    fn elicit_url(&self, message: &str, url: &str) -> Asking<'_, Elicited> {
        let _ = (message, url);
        Box::pin(async { Err(AskError::Unsupported("this client opens no URL".into())) })
    }

    /// Asks the client's model to answer `request`.
    fn sample(&self, request: Sampling) -> Asking<'_, Sampled>;

    /// Sends a log message to the client, if it asked for messages of this
    /// level; quick, never waiting for the client.
    fn log(&self, level: LogLevel, message: &str);

    /// Asks the client where its person works (MCP's roots). A client
    /// that offers none: [`AskError::Unsupported`].
    fn roots(&self) -> Asking<'_, Vec<Root>> {
        Box::pin(async { Err(AskError::Unsupported("this client offers no roots".into())) })
    }

    /// [`elicit`](Self::elicit) under the name `key`: where the answer
    /// comes back with the call made again (MCP 2026-07-28's input-required
    /// results), the key is what names it, so a call asks each question
    /// under a key of its own. A channel that answers at once ignores it.
    fn elicit_as(&self, key: &str, request: Elicitation) -> Asking<'_, Elicited> {
        let _ = key;
        self.elicit(request)
    }

    /// [`sample`](Self::sample) under the name `key` (see
    /// [`elicit_as`](Self::elicit_as)).
    fn sample_as(&self, key: &str, request: Sampling) -> Asking<'_, Sampled> {
        let _ = key;
        self.sample(request)
    }

    /// [`roots`](Self::roots) under the name `key` (see
    /// [`elicit_as`](Self::elicit_as)).
    fn roots_as(&self, key: &str) -> Asking<'_, Vec<Root>> {
        let _ = key;
        self.roots()
    }
}

/// One place the person behind the client works in: a folder, a
/// repository, as a URI (MCP's `Root`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    /// Where it is (`file:///…` for a folder).
    pub uri: String,
    /// What the client calls it.
    pub name: Option<String>,
}

/// A form for the person behind the client.
#[derive(Debug, Clone, PartialEq)]
pub struct Elicitation {
    /// What to tell them.
    pub message: String,
    /// The form: a JSON Schema object of flat, primitive properties (MCP's
    /// `requestedSchema`).
    pub schema: Map<String, Value>,
}

/// What the person did with the form.
#[derive(Debug, Clone, PartialEq)]
pub enum Elicited {
    /// They filled it in: the values, by property.
    Accepted(Map<String, Value>),
    /// They said no.
    Declined,
    /// They dismissed it without choosing.
    Cancelled,
}

/// A question for the client's model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sampling {
    /// The conversation so far, oldest first.
    pub messages: Vec<SamplingMessage>,
    /// At most this many tokens in the answer.
    pub max_tokens: u32,
    /// The system prompt, if any.
    pub system_prompt: Option<String>,
}

/// One message of a [`Sampling`] conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SamplingMessage {
    /// Whether the user or the assistant said it.
    pub from_user: bool,
    /// What was said.
    pub text: String,
}

impl SamplingMessage {
    /// A message from the user.
    pub fn user(text: impl Into<String>) -> Self {
        SamplingMessage {
            from_user: true,
            text: text.into(),
        }
    }
}

/// The client model's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sampled {
    /// Its text.
    pub text: String,
    /// The model that answered, as the client names it.
    pub model: String,
}

/// How severe a log message is (RFC 5424's levels, as MCP names them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    /// Detail for debugging.
    Debug,
    /// Information.
    Info,
    /// Normal but significant.
    Notice,
    /// A warning.
    Warning,
    /// An error.
    Error,
    /// A critical condition.
    Critical,
    /// Action must be taken at once.
    Alert,
    /// The system is unusable.
    Emergency,
}

/// Why a question to the client has no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AskError {
    /// The call did not come through a client that can be asked (an agent
    /// run, the browser, the command line).
    #[error("there is no client to ask: this call did not come from an MCP client")]
    NoClient,
    /// The client did not declare the capability (`elicitation`,
    /// `sampling`), or its protocol revision cannot carry the question.
    #[error("the client cannot answer this: {0}")]
    Unsupported(String),
    /// No answer came in time.
    #[error("the client did not answer in time")]
    TimedOut,
    /// The call was cancelled while it waited.
    #[error("the call was cancelled while the client was asked")]
    Cancelled,
    /// The client answered with an error, or went away.
    #[error("the client could not answer: {0}")]
    Failed(String),
    /// The question (named by its key) goes to the client in the call's
    /// result, and the client makes the call again with the answer (MCP
    /// 2026-07-28's input-required results). A tool that needs the answer
    /// stops here; the server tells the client what was asked.
    #[error("the client is asked `{0}` and makes the call again with the answer")]
    InputRequired(String),
}
