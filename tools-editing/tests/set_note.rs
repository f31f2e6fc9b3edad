//! `set_note` through a real registry, against an in-memory store.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use futures_executor::block_on;
use serde_json::json;
use tool_core::approval::{Approval, ApprovalError, MemoryApprovals};
use tool_core::gates::{
    GroupSettings, HostSettings, RunConfig, RunInputs, Selection, Toggle, ToolSettings,
};
use tool_core::{
    Actor, DataClass, Outcome, Proposal, Registry, RunId, Shipped, ToolContext, ToolError,
    ToolOutput,
};
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
    match block_on(registry.call_ungated("set_note", json!({"id": id, "text": text}), cx))? {
        Outcome::Proposed(proposal) => Ok(proposal),
        other => panic!("set_note must propose, got {other:?}"),
    }
}

/// The host's settings with `set_note` switched on, as an administrator
/// would.
fn settings() -> HostSettings {
    let mut settings = HostSettings::default();
    settings
        .groups
        .insert("tools-editing".into(), GroupSettings::default());
    settings.tools.insert(
        "set_note".into(),
        ToolSettings {
            state: Toggle::Enabled,
        },
    );
    settings
}

fn approve(
    registry: &Registry,
    proposal: &Proposal,
    cx: &ToolContext,
) -> Result<ToolOutput, ApprovalError> {
    let settings = settings();
    let config = RunConfig {
        trust_zone: DataClass::Confidential,
        ..RunConfig::default()
    };
    let approver = Actor {
        id: "grace".into(),
        admin: false,
    };
    let store = MemoryApprovals::new();
    let approval = Approval {
        registry,
        run: RunInputs {
            settings: &settings,
            actor: cx.actor(),
            config: &config,
            skills: &[],
            selection: &Selection::All,
        },
        grant: None,
        store: &store,
    };
    block_on(approval.approve(proposal, &approver, cx))
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
    approve(&registry, &proposal, &cx).unwrap();
    assert_eq!(notes.get("todo").as_deref(), Some("buy oat milk"));
}

#[test]
fn a_stale_proposal_is_refused_and_keeps_the_other_change() {
    let (registry, notes, cx) = setup();
    let proposal = propose(&registry, &cx, "todo", "buy oat milk").unwrap();
    notes.set("todo", "someone else's edit");
    let error = approve(&registry, &proposal, &cx).unwrap_err();
    assert_eq!(error, ApprovalError::Stale);
    assert_eq!(notes.get("todo").as_deref(), Some("someone else's edit"));
}

#[test]
fn a_missing_note_or_oversized_text_is_refused_whole() {
    let (registry, notes, cx) = setup();
    assert_eq!(
        propose(&registry, &cx, "nope", "x"),
        Err(ToolError::failed("no note `nope`"))
    );
    assert_eq!(
        propose(&registry, &cx, "todo", &"x".repeat(10_001)),
        Err(ToolError::failed("a note holds at most 10000 characters"))
    );
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

#[test]
fn an_edited_proposal_is_refused_as_stale() {
    let (registry, notes, cx) = setup();
    let mut proposal = propose(&registry, &cx, "todo", "buy oat milk").unwrap();
    // Tampered after it was shown: what is applied must be what the tool
    // proposes for the recorded arguments.
    proposal.changes[0].new = json!("x".repeat(20_000));
    assert_eq!(
        approve(&registry, &proposal, &cx),
        Err(ApprovalError::Stale)
    );
    assert_eq!(notes.get("todo").as_deref(), Some("buy milk"));
}
