//! The author's tests: the tools through a registry (tool-core's `host`
//! as a dev-dependency only).

use futures_executor::block_on;
use serde_json::json;
use tool_core::approval::{Approval, MemoryApprovals};
use tool_core::gates::{HostSettings, RunConfig, RunInputs, Selection, Toggle, ToolSettings};
use tool_core::{Actor, Outcome, Registry, RunId, ToolContext, ToolError};

fn registry() -> Registry {
    author_crate::link();
    Registry::linked().expect("the tools are valid")
}

#[test]
fn the_read_tool_answers_and_its_checks_refuse_an_empty_text() {
    let registry = registry();
    let cx = ToolContext::new(RunId("run".into()));
    let counted = block_on(registry.call_ungated("count_words", json!({"text": "a b c"}), &cx));
    assert_eq!(
        counted.unwrap(),
        Outcome::Done(tool_core::ToolOutput::text("3"))
    );
    let refused = block_on(registry.call_ungated("count_words", json!({"text": ""}), &cx));
    let Err(ToolError::InvalidArguments { problems, .. }) = refused else {
        panic!("{refused:?}");
    };
    assert_eq!(problems[0].path, "/text");
    assert_eq!(problems[0].message, "\"\" is shorter than 1 character");
}

#[test]
fn the_write_tool_proposes_and_applies_once_approved() {
    let registry = registry();
    let requester = Actor {
        id: "ada".into(),
        admin: false,
    };
    let approver = Actor {
        id: "grace".into(),
        admin: true,
    };
    let cx = ToolContext::new(RunId("run".into())).with_actor(requester.clone());
    let proposed =
        block_on(registry.call_ungated("rename_note", json!({"id": 7, "title": "Plans"}), &cx));
    let Ok(Outcome::Proposed(proposal)) = proposed else {
        panic!("{proposed:?}");
    };
    assert_eq!(proposal.changes[0].new, json!("Plans"));
    // A write tool ships disabled: the administrator turns it on.
    let mut settings = HostSettings::default();
    settings.tools.insert(
        "rename_note".into(),
        ToolSettings {
            state: Toggle::Enabled,
            ..ToolSettings::default()
        },
    );
    let config = RunConfig::default();
    let approvals = MemoryApprovals::new();
    let approval = Approval {
        registry: &registry,
        run: RunInputs {
            settings: &settings,
            actor: Some(&requester),
            config: &config,
            skills: &[],
            selection: &Selection::All,
        },
        grant: None,
        store: &approvals,
    };
    let written = block_on(approval.approve(&proposal, &approver, &cx)).expect("approved");
    assert_eq!(
        written.to_model_text(),
        "rename_note applied, approved by grace"
    );
}
