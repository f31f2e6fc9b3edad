//! Writing tools: every call is a proposal that waits for a person's
//! approval; nothing is written before.
//!
//! | tool | group | writes to |
//! | --- | --- | --- |
//! | `set_note` | `tools-editing` | the host's [`Notes`] store |
//!
//! A host keeps this crate linked with `tools_editing::link();` and provides
//! the store as a service: `ToolContext::with_service(notes)` where `notes`
//! is an `Arc<dyn Notes>`.

#![forbid(unsafe_code)]

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tool_core::{Change, Proposal, Tool, ToolContext, ToolError, ToolOutput, Write};

/// The group of every tool in this crate.
pub const GROUP: &str = "tools-editing";

/// Keeps this crate, and so its tool registrations, linked into a host that
/// names no other item of it. Call it once before building the registry.
#[inline(never)]
pub fn link() {
    std::hint::black_box(&GROUP);
}

/// Notes keyed by a short id: the host's storage, behind a trait so the
/// host chooses where it lives.
pub trait Notes: Send + Sync {
    /// The note's text, or `None` when there is no such note.
    fn get(&self, id: &str) -> Option<String>;
    /// Writes the note.
    fn set(&self, id: &str, text: &str);
}

/// The most a note may hold; a longer proposal is refused whole.
const NOTE_MAX_CHARS: usize = 10_000;

/// Replace the text of an existing note. A person approves the change
/// before it is written.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "tools-editing",
    effect = "write",
    data = "confidential",
    scope(text = "id")
)]
#[serde(deny_unknown_fields)]
pub struct SetNote {
    /// The note's id.
    id: String,
    /// The note's new text, at most 10,000 characters.
    text: String,
}

impl Write for SetNote {
    async fn propose(self, cx: &ToolContext) -> Result<Proposal, ToolError> {
        let notes = cx.service::<Arc<dyn Notes>>()?;
        if self.text.chars().count() > NOTE_MAX_CHARS {
            return Err(ToolError::failed(format!(
                "a note holds at most {NOTE_MAX_CHARS} characters"
            )));
        }
        let Some(current) = notes.get(&self.id) else {
            return Err(ToolError::failed(format!("no note `{}`", self.id)));
        };
        Ok(Proposal::new(
            self.id.clone(),
            vec![Change {
                field: "text".into(),
                new: json!(self.text),
                replaces: json!(current),
            }],
            format!("replace the text of note `{}`", self.id),
        ))
    }

    async fn apply(proposal: &Proposal, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let notes = cx.service::<Arc<dyn Notes>>()?;
        let [change] = proposal.changes.as_slice() else {
            return Err(ToolError::failed(
                "a note proposal changes exactly one field",
            ));
        };
        let (Some(new), Value::String(replaces)) = (change.new.as_str(), &change.replaces) else {
            return Err(ToolError::failed("a note proposal holds text values"));
        };
        if notes.get(&proposal.record).as_ref() != Some(replaces) {
            return Err(ToolError::failed(format!(
                "note `{}` changed since the proposal: propose again",
                proposal.record
            )));
        }
        notes.set(&proposal.record, new);
        if notes.get(&proposal.record).as_deref() != Some(new) {
            return Err(ToolError::failed(format!(
                "note `{}` did not take the new text",
                proposal.record
            )));
        }
        Ok(ToolOutput::text(format!(
            "note `{}` updated",
            proposal.record
        )))
    }
}
