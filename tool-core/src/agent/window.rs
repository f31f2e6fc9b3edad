//! Where a request's context window goes: a cheap token **estimate** of
//! each part of a request ([`ContextBudget`]), sent as
//! [`Event::ContextBudget`](super::Event::ContextBudget) before every
//! request so a host can show what filled the window.
//!
//! The estimate is `ceil(UTF-8 bytes / 4)` ([`estimate_tokens`]), plus
//! [`MESSAGE_OVERHEAD_TOKENS`] per message for the provider's framing. It
//! knows no tokenizer: English prose runs near 4 bytes a token, JSON
//! schemas and code fewer, other scripts more (3 bytes per CJK character
//! is about one token each, so they are under-counted). Treat it as a
//! gauge, never as the provider's count: that comes back as
//! [`Usage`](super::Usage) with the response.

use std::io;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Message;

/// Tokens counted for each message's framing (role, separators).
pub const MESSAGE_OVERHEAD_TOKENS: u64 = 4;

/// The estimated tokens of `text`: its UTF-8 bytes / 4, rounded up.
///
/// ```
/// use tool_core::agent::estimate_tokens;
/// assert_eq!(estimate_tokens(""), 0);
/// assert_eq!(estimate_tokens("What is 2 + 3?"), 4);
/// ```
pub fn estimate_tokens(text: &str) -> u64 {
    (text.len() as u64).div_ceil(4)
}

/// The size of the model's context window and what is kept out of it for
/// the answer. Set by the host ([`Agent::context_window`](super::Agent::context_window));
/// the default is a small local model's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextWindow {
    /// Tokens the model reads and writes in one request.
    pub window: u64,
    /// Tokens kept for the answer.
    pub output_reserve: u64,
    /// Tokens kept for the estimate's error.
    pub safety_margin: u64,
}

impl ContextWindow {
    /// A window of `window` tokens, an output reserve of `output_reserve`
    /// and a safety margin of a tenth of the window: the estimate can be
    /// off by that much on ordinary text.
    pub fn new(window: u64, output_reserve: u64) -> Self {
        ContextWindow {
            window,
            output_reserve,
            safety_margin: window / 10,
        }
    }
}

impl Default for ContextWindow {
    /// 32,768 tokens with 4,096 kept for the answer.
    fn default() -> Self {
        ContextWindow::new(32_768, 4_096)
    }
}

/// The estimated tokens of one request, by part, against its window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextBudget {
    /// The window and what is kept out of it.
    pub limits: ContextWindow,
    /// The system messages, without the skills' lines.
    pub system_prompt: u64,
    /// The skills' lines in the system prompt.
    pub skills: u64,
    /// The offered tools' schemas, in the provider's form.
    pub tool_schemas: u64,
    /// Every message that is not a system message.
    pub transcript: u64,
}

impl ContextBudget {
    /// Estimates a request of `messages` offering `tools`, where
    /// `skill_bytes` bytes of the system messages are the skills' lines.
    pub fn estimate(
        limits: ContextWindow,
        messages: &[Message],
        tools: Option<&[Value]>,
        skill_bytes: usize,
    ) -> Self {
        Self::with_tool_schemas(limits, messages, tool_schema_tokens(tools), skill_bytes)
    }

    /// [`estimate`](Self::estimate) with the tools' part already counted
    /// ([`tool_schema_tokens`]): the offered tools do not change between
    /// the rounds of a run, so the loop counts them once.
    pub(super) fn with_tool_schemas(
        limits: ContextWindow,
        messages: &[Message],
        tool_schemas: u64,
        skill_bytes: usize,
    ) -> Self {
        let mut system = 0;
        let mut transcript = 0;
        for message in messages {
            let tokens = MESSAGE_OVERHEAD_TOKENS + message_tokens(message);
            match message {
                Message::System { .. } => system += tokens,
                _ => transcript += tokens,
            }
        }
        let skills = (skill_bytes as u64).div_ceil(4).min(system);
        ContextBudget {
            limits,
            system_prompt: system - skills,
            skills,
            tool_schemas,
            transcript,
        }
    }

    /// The estimated tokens of the whole request: the sum of its parts.
    pub fn total(&self) -> u64 {
        self.system_prompt
            .saturating_add(self.skills)
            .saturating_add(self.tool_schemas)
            .saturating_add(self.transcript)
    }

    /// What is left of the window after the request, the output reserve
    /// and the safety margin; negative when the request does not fit.
    pub fn left(&self) -> i64 {
        let usable = self
            .limits
            .window
            .saturating_sub(self.limits.output_reserve)
            .saturating_sub(self.limits.safety_margin);
        i64::try_from(usable)
            .unwrap_or(i64::MAX)
            .saturating_sub(i64::try_from(self.total()).unwrap_or(i64::MAX))
    }
}

fn message_tokens(message: &Message) -> u64 {
    match message {
        Message::System { text } | Message::User { text } => estimate_tokens(text),
        Message::Assistant { text, calls } => {
            estimate_tokens(text)
                + calls
                    .iter()
                    .map(|call| {
                        estimate_tokens(&call.id)
                            + estimate_tokens(&call.name)
                            + json_tokens(&call.arguments)
                    })
                    .sum::<u64>()
        }
        Message::Tool {
            call_id, content, ..
        } => estimate_tokens(call_id) + estimate_tokens(content),
    }
}

/// The estimated tokens of the offered tools' schemas, in the provider's
/// form: [`estimate_tokens`] of each one's compact JSON.
pub(super) fn tool_schema_tokens(tools: Option<&[Value]>) -> u64 {
    tools.map_or(0, |tools| tools.iter().map(json_tokens).sum())
}

/// [`estimate_tokens`] of `value`'s compact JSON (its `to_string()`),
/// counted as it is written instead of building the string.
fn json_tokens(value: &Value) -> u64 {
    let mut bytes = ByteCount(0);
    // Writing a `Value` cannot fail, and a byte counter never does.
    let _ = serde_json::to_writer(&mut bytes, value);
    bytes.0.div_ceil(4)
}

/// An `io::Write` that only counts the bytes written to it.
struct ByteCount(u64);

impl io::Write for ByteCount {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
