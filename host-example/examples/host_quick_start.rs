//! The README's host quick start, whole: link the tool crates, build the
//! registry, resolve a run's grant through the gates, call a tool through
//! them, and approve a write tool's proposal through the one approval path.
//!
//! `cargo test --workspace` builds it; `cargo run -p host-example --example
//! host_quick_start` runs it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use futures_executor::block_on;
use serde_json::json;
use tool_core::approval::{Approval, MemoryApprovals};
use tool_core::gates::{Gates, HostSettings, RunConfig, RunInputs, Selection};
use tool_core::{Actor, DataClass, Outcome, Registry, RunId, ToolContext};
use tools_editing::Notes;

/// The host's own configuration, as it would come from its storage: the
/// `set_note` tool, which ships disabled, switched on by an administrator.
const STORED_SETTINGS: &str = r#"{ "tools": { "set_note": { "state": "enabled" } } }"#;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // One line per tool crate: a host that names nothing of a crate may have
    // the linker drop it, and its tools with it.
    tools_builtin::link();
    tools_editing::link();

    // Fails, listing every problem at once, on duplicate or invalid tools.
    let registry = Registry::linked()?;

    // The run: who it acts for, what it may use.
    let settings: HostSettings = serde_json::from_str(STORED_SETTINGS)?;
    let actor = Actor {
        id: "root".into(),
        admin: true,
    };
    let config = RunConfig {
        trust_zone: DataClass::Confidential, // the most sensitive data the model may see
        ..RunConfig::default()               // all groups, read and write
    };
    let inputs = RunInputs {
        settings: &settings,
        actor: Some(&actor), // no actor is never an administrator
        config: &config,
        skills: &[], // the run's skills; their allowed-tools is gate 6
        selection: &Selection::All,
    };
    let gates = Gates::new(&registry, inputs);
    let resolution = gates.resolve(); // store resolution.grant with the run; log resolution.denials

    // The context the tools see: the same actor as the gates, and the
    // host's services.
    let notes: Arc<dyn Notes> = Arc::new(MemoryNotes::default());
    notes.set("todo", "buy milk");
    let cx = ToolContext::new(RunId("run-1".into()))
        .with_actor(actor.clone())
        .with_service(notes.clone());

    // A read tool runs at once.
    let outcome =
        block_on(gates.call(&resolution.grant, "get_env", json!({"prefix": "APP_"}), &cx))?;
    assert!(matches!(outcome, Outcome::Done(_)));

    // A write tool proposes; nothing is written until a person approves,
    // through the one approval path.
    let Outcome::Proposed(proposal) = block_on(gates.call(
        &resolution.grant,
        "set_note",
        json!({"id": "todo", "text": "buy oat milk"}),
        &cx,
    ))?
    else {
        return Err("set_note proposes".into());
    };
    let decisions = MemoryApprovals::new(); // a host keeps these in its database
    let approval = Approval {
        registry: &registry,
        run: inputs,
        grant: Some(&resolution.grant),
        store: &decisions,
    };
    let approver = Actor {
        id: "grace".into(),
        admin: false,
    };
    block_on(approval.approve(&proposal, &approver, &cx))?;
    assert_eq!(notes.get("todo").as_deref(), Some("buy oat milk"));
    Ok(())
}

/// The host's note storage; here, in memory.
#[derive(Default)]
struct MemoryNotes(Mutex<HashMap<String, String>>);

impl Notes for MemoryNotes {
    fn get(&self, id: &str) -> Option<String> {
        self.0.lock().ok()?.get(id).cloned()
    }

    fn set(&self, id: &str, text: &str) {
        if let Ok(mut notes) = self.0.lock() {
            notes.insert(id.to_owned(), text.to_owned());
        }
    }
}
