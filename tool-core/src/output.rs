//! What a call returns: a [`ToolOutput`], a [`Proposal`] waiting for
//! approval, or a [`ToolError`] with one text for the model and the detail
//! for the host.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A tool's result: text, JSON, or both.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolOutput {
    text: Option<String>,
    json: Option<Value>,
}

impl ToolOutput {
    /// A text result.
    pub fn text(text: impl Into<String>) -> Self {
        ToolOutput {
            text: Some(text.into()),
            json: None,
        }
    }

    /// A structured result.
    pub fn json(json: Value) -> Self {
        ToolOutput {
            text: None,
            json: Some(json),
        }
    }

    /// Both a text (for models that read text) and the structured value.
    pub fn both(text: impl Into<String>, json: Value) -> Self {
        ToolOutput {
            text: Some(text.into()),
            json: Some(json),
        }
    }

    /// The text part, if any.
    pub fn as_text(&self) -> Option<&str> {
        self.text.as_deref()
    }

    /// The structured part, if any.
    pub fn as_json(&self) -> Option<&Value> {
        self.json.as_ref()
    }

    /// What to put in the model's tool message: the text, else the JSON.
    pub fn to_model_text(&self) -> String {
        match (&self.text, &self.json) {
            (Some(text), _) => text.clone(),
            (None, Some(json)) => json.to_string(),
            (None, None) => String::new(),
        }
    }
}

/// One field a [`Write`](crate::Write) tool would change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Change {
    /// The field's name in the record.
    pub field: String,
    /// The value it would get.
    pub new: Value,
    /// The value it has now; applying refuses if it no longer has it.
    pub replaces: Value,
}

/// What a write tool would do, shown to a person before anything is written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Proposal {
    /// The tool that proposed it.
    pub tool: String,
    /// The record it would change (an id a person can look up).
    pub record: String,
    /// The fields it would change, with the values they replace.
    pub changes: Vec<Change>,
    /// One human sentence: what approving does.
    pub summary: String,
}

/// The result of a checked call.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// A read tool ran.
    Done(ToolOutput),
    /// A write tool proposed a change; nothing is written until approved.
    Proposed(Proposal),
}

/// One way the arguments failed the schema.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArgumentProblem {
    /// JSON Pointer to the failing value; empty for the whole object.
    pub path: String,
    /// Why it failed.
    pub message: String,
}

/// Why a call failed. [`ToolError::model_text`] is what the model may see;
/// `Display` is the detail for the host's logs.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// The tool does not exist, or this run may not call it. The model
    /// cannot tell the two apart.
    #[error("tool `{tool}` is not available")]
    NotAvailable {
        /// The name the caller asked for.
        tool: String,
    },
    /// A gate refused the call. The model is told exactly what it is told
    /// for a tool that does not exist; the [`Denial`](crate::gates::Denial)
    /// is for the host.
    #[error("tool `{tool}` refused: {denial} (gate: {})", denial.gate())]
    Refused {
        /// The name the caller asked for.
        tool: String,
        /// The first gate that said no.
        denial: crate::gates::Denial,
    },
    /// The arguments do not match the tool's schema.
    #[error("invalid arguments for `{tool}`: {}", describe(problems))]
    InvalidArguments {
        /// The tool called.
        tool: String,
        /// Every failing path, in document order.
        problems: Vec<ArgumentProblem>,
    },
    /// The tool needs a service the host did not put in the context.
    #[error("the host provides no `{service}`, which this tool needs")]
    MissingService {
        /// The service's type name.
        service: &'static str,
    },
    /// The tool ran and reports a failure the model may read.
    #[error("{message}")]
    Failed {
        /// Model-facing text; never secrets, never paths of the host.
        message: String,
    },
    /// The tool panicked. The panic message stays host-side: it may hold
    /// anything.
    #[error("tool `{tool}` panicked: {message}")]
    Panicked {
        /// The tool called.
        tool: String,
        /// The panic payload, when it was a string.
        message: String,
    },
}

impl ToolError {
    /// A failure reported by the tool itself, shown to the model as is.
    pub fn failed(message: impl Into<String>) -> Self {
        ToolError::Failed {
            message: message.into(),
        }
    }

    /// The text the model is given for this error.
    ///
    /// Refusals read exactly like unknown tools, byte for byte, so that a
    /// refusal never confirms that a tool exists.
    pub fn model_text(&self) -> String {
        match self {
            ToolError::Refused { tool, .. } => {
                ToolError::NotAvailable { tool: tool.clone() }.to_string()
            }
            ToolError::Panicked { tool, .. } => format!("tool `{tool}` failed"),
            ToolError::MissingService { .. } => "the tool is not available on this host".to_owned(),
            other => other.to_string(),
        }
    }
}

fn describe(problems: &[ArgumentProblem]) -> String {
    problems
        .iter()
        .map(|p| {
            let path = if p.path.is_empty() { "(root)" } else { &p.path };
            format!("at `{path}`: {}", p.message)
        })
        .collect::<Vec<_>>()
        .join("; ")
}
