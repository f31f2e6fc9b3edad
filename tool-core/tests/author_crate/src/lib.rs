//! An extension author's crate, as the README shows it: a read tool and a
//! write tool, tool-core without default features. Built and tested by
//! tool-core's `author_crate` test in a copy outside the workspace.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tool_core::{
    Approver, Change, Execute, Proposal, Tool, ToolContext, ToolError, ToolOutput, Write,
};

/// Count the words of a text.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "notes",
    effect = "read",
    data = "internal",
    content = "trusted"
)]
pub struct CountWords {
    /// The text to count.
    #[schemars(length(min = 1))]
    text: String,
}

impl Execute for CountWords {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(
            self.text.split_whitespace().count().to_string(),
        ))
    }
}

/// Rename a note.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "notes",
    effect = "write",
    data = "internal",
    content = "trusted"
)]
pub struct RenameNote {
    /// The note's id.
    id: u32,
    /// Its new title.
    #[schemars(length(min = 1, max = 80))]
    title: String,
}

impl Write for RenameNote {
    async fn propose(self, _cx: &ToolContext) -> Result<Proposal, ToolError> {
        let change = Change {
            field: "title".into(),
            new: json!(self.title),
            replaces: json!("Untitled"),
        };
        Ok(Proposal::new(
            format!("note {}", self.id),
            vec![change],
            "rename the note",
        ))
    }

    async fn apply(proposal: &Proposal, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let Ok(Approver(approver)) = cx.service::<Approver>() else {
            return Err(ToolError::failed("no approver"));
        };
        Ok(ToolOutput::text(format!(
            "{} applied, approved by {}",
            proposal.tool(),
            approver.id
        )))
    }
}

// Generates `pub fn link()`, which a host calls once.
tool_core::linkable!();
