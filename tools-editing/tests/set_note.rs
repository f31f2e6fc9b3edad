//! `set_note` through a real registry, against an in-memory store.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use futures_executor::block_on;
use serde_json::json;
use tool_core::{Outcome, Proposal, Registry, RunId, Shipped, ToolContext, ToolError};
use tools_editing::Notes;

#[derive(Default)]
struct MemoryNotes(Mutex<HashMap<String, String>>);

impl Notes for MemoryNotes {
    fn get(&self, id: &str) -> Option<String> {
        self.0.lock().unwrap().get(id).cloned()
    }
    fn set(&self, id: &str, text: &str) {
        self.0
            .lock()
            .unwrap()
            .insert(id.to_owned(), text.to_owned());
    }
}

fn setup() -> (Registry, Arc<MemoryNotes>, ToolContext) {
    tools_editing::link();
    let registry = Registry::linked().unwrap();
    let notes = Arc::new(MemoryNotes::default());
    notes.set("todo", "buy milk");
    let store: Arc<dyn Notes> = notes.clone();
    let cx = ToolContext::new(RunId("t".into())).with_service(store);
    (registry, notes, cx)
}

fn propose(
    registry: &Registry,
    cx: &ToolContext,
    id: &str,
    text: &str,
) -> Result<Proposal, ToolError> {
    match block_on(registry.call("set_note", json!({"id": id, "text": text}), cx))? {
        Outcome::Proposed(proposal) => Ok(proposal),
        other => panic!("set_note must propose, got {other:?}"),
    }
}

#[test]
fn set_note_ships_disabled() {
    let (registry, _, _) = setup();
    let declaration = registry.get("set_note").unwrap().declaration();
    assert_eq!(declaration.shipped, Shipped::Disabled);
}

#[test]
fn proposing_writes_nothing_and_names_the_replaced_value() {
    let (registry, notes, cx) = setup();
    let proposal = propose(&registry, &cx, "todo", "buy oat milk").unwrap();
    assert_eq!(notes.get("todo").as_deref(), Some("buy milk"));
    assert_eq!(proposal.record, "todo");
    assert_eq!(proposal.changes[0].replaces, json!("buy milk"));
    assert_eq!(proposal.changes[0].new, json!("buy oat milk"));
}

#[test]
fn applying_writes_the_new_value() {
    let (registry, notes, cx) = setup();
    let proposal = propose(&registry, &cx, "todo", "buy oat milk").unwrap();
    block_on(registry.apply(&proposal, &cx)).unwrap();
    assert_eq!(notes.get("todo").as_deref(), Some("buy oat milk"));
}

#[test]
fn a_stale_proposal_is_refused_and_keeps_the_other_change() {
    let (registry, notes, cx) = setup();
    let proposal = propose(&registry, &cx, "todo", "buy oat milk").unwrap();
    notes.set("todo", "someone else's edit");
    let error = block_on(registry.apply(&proposal, &cx)).unwrap_err();
    assert!(error.model_text().contains("changed since"), "{error}");
    assert_eq!(notes.get("todo").as_deref(), Some("someone else's edit"));
}

#[test]
fn a_missing_note_or_oversized_text_is_refused_whole() {
    let (registry, notes, cx) = setup();
    assert!(propose(&registry, &cx, "nope", "x").is_err());
    assert!(propose(&registry, &cx, "todo", &"x".repeat(10_001)).is_err());
    assert_eq!(notes.get("todo").as_deref(), Some("buy milk"));
}

#[test]
fn without_a_store_the_tool_says_so() {
    tools_editing::link();
    let registry = Registry::linked().unwrap();
    let cx = ToolContext::new(RunId("t".into()));
    let error = propose(&registry, &cx, "todo", "x").unwrap_err();
    assert!(matches!(error, ToolError::MissingService { .. }));
}
