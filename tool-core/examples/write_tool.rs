//! A write tool, whole: `propose` reads and returns a proposal (nothing is
//! written), a person approves it through the one approval path, and only
//! then `apply` writes, refusing if the record changed meanwhile.
//!
//! `cargo run -p tool-core --example write_tool`; `cargo test --workspace`
//! builds it and runs it.

use std::collections::BTreeMap;
use std::sync::Mutex;

use futures_executor::block_on;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tool_core::approval::MemoryApprovals;
use tool_core::{
    Actor, Approver, Change, Outcome, Proposal, Registry, Tool, ToolContext, ToolError, ToolOutput,
    Write,
};

/// The host's records: note titles by id.
struct Notes(Mutex<BTreeMap<u32, String>>);

/// Rename a note.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "notes",
    effect = "write",
    data = "internal",
    content = "trusted"
)]
struct RenameNote {
    /// The note.
    id: u32,
    /// Its new title.
    #[schemars(length(min = 1, max = 80))]
    title: String,
}

impl Write for RenameNote {
    async fn propose(self, cx: &ToolContext) -> Result<Proposal, ToolError> {
        let notes = cx.service::<Notes>()?.0.lock().unwrap();
        let Some(current) = notes.get(&self.id) else {
            return Err(ToolError::failed(format!("no note {}", self.id)));
        };
        let change = Change {
            field: "title".into(),
            new: json!(self.title),
            replaces: json!(current),
        };
        Ok(Proposal::new(
            format!("note {}", self.id),
            vec![change],
            "rename the note",
        ))
    }

    async fn apply(proposal: &Proposal, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let Approver(approver) = cx.service::<Approver>()?;
        let id: u32 = proposal.arguments()["id"].as_u64().unwrap_or(0) as u32;
        let mut notes = cx.service::<Notes>()?.0.lock().unwrap();
        let change = &proposal.changes[0];
        let Some(title) = notes.get_mut(&id) else {
            return Err(ToolError::failed("the note is gone"));
        };
        if json!(title) != change.replaces {
            return Err(ToolError::failed("the note changed since the proposal"));
        }
        *title = change.new.as_str().unwrap_or_default().to_owned();
        Ok(ToolOutput::text(format!(
            "note {id} renamed, approved by {}",
            approver.id
        )))
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::linked()?;
    let notes = Notes(Mutex::new(BTreeMap::from([(7, "Untitled".to_owned())])));
    // Write tools ship disabled: the administrator's setting turns it on.
    let settings = serde_json::from_str(r#"{"tools": {"rename_note": {"state": "enabled"}}}"#)?;
    let run = registry
        .run("example", Actor::user("ada"))
        .settings(settings)
        .service(notes)
        .start();

    let outcome = block_on(run.call("rename_note", json!({"id": 7, "title": "Plans"})))?;
    let Outcome::Proposed(proposal) = outcome else {
        return Err("a write tool proposes".into());
    };
    println!("proposed: {} ({})", proposal.summary, proposal.record);

    // Another person approves, through the one approval path.
    let approver = Actor::admin("grace");
    let approvals = MemoryApprovals::new();
    let written = block_on(run.approve(&proposal, &approver, &approvals))?;
    println!("applied: {}", written.to_model_text());
    let notes = run.context().service::<Notes>()?;
    assert_eq!(notes.0.lock().unwrap()[&7], "Plans");

    // Decided once: a second approval of the same proposal is refused.
    assert!(block_on(run.approve(&proposal, &approver, &approvals)).is_err());
    Ok(())
}

#[test]
fn runs() {
    main().unwrap();
}
