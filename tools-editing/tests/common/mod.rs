//! The harness every tool's tests share: the demo site, a registry of this
//! crate's tools (all enabled), the approval path, and a scripted model.

#![allow(dead_code)] // each test file uses part of it

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use futures_executor::block_on;
use serde_json::Value;
use site_model::{HistoryEntry, MemorySite, Records, Site};
use tool_core::agent::{
    Agent, Decision, Message, Model, ModelError, ModelRequest, ModelResponse, RunEnd, RunState,
    ToolCall,
};
use tool_core::approval::{Approval, ApprovalError, MemoryApprovals};
use tool_core::export::Provider;
use tool_core::gates::{
    Gates, Grant, HostSettings, RunConfig, RunInputs, Selection, Toggle, ToolSettings,
};
use tool_core::{Actor, Outcome, Proposal, Registry, RunId, ToolContext, ToolError, ToolOutput};

pub const TOOLS: [&str; 5] = [
    "create_content_element_draft",
    "create_translation_draft",
    "move_content_element",
    "set_file_alternative_text",
    "update_page_metadata",
];

pub fn actor(name: &str) -> Actor {
    Actor {
        id: name.into(),
        admin: matches!(name, "admin" | "ops"),
    }
}

/// One run of one actor against a fresh demo site.
pub struct Host {
    pub registry: Registry,
    pub site: Arc<MemorySite>,
    pub settings: HostSettings,
    pub config: RunConfig,
    pub actor: Actor,
    pub approvals: MemoryApprovals,
    pub extra: Option<fn(ToolContext) -> ToolContext>,
}

impl Host {
    pub fn new(actor_name: &str) -> Host {
        tools_editing::link();
        let mut settings = HostSettings::default();
        for tool in TOOLS {
            settings.tools.insert(
                tool.into(),
                ToolSettings {
                    state: Toggle::Enabled,
                    ..ToolSettings::default()
                },
            );
        }
        Host {
            registry: Registry::linked().unwrap(),
            site: Arc::new(MemorySite::demo()),
            settings,
            config: RunConfig::default(),
            actor: actor(actor_name),
            approvals: MemoryApprovals::new(),
            extra: None,
        }
    }

    pub fn inputs(&self) -> RunInputs<'_> {
        RunInputs {
            settings: &self.settings,
            actor: Some(&self.actor),
            config: &self.config,
            skills: &[],
            selection: &Selection::All,
        }
    }

    pub fn cx(&self) -> ToolContext {
        let site: Arc<dyn Site> = self.site.clone();
        let cx = ToolContext::new(RunId("editing-run".into()))
            .with_actor(self.actor.clone())
            .with_service(site);
        match self.extra {
            Some(extra) => extra(cx),
            None => cx,
        }
    }

    pub fn grant(&self) -> Grant {
        Gates::new(&self.registry, self.inputs()).resolve().grant
    }

    /// A gated call, as the model's would be.
    pub fn propose(&self, tool: &str, arguments: Value) -> Result<Proposal, ToolError> {
        let gates = Gates::new(&self.registry, self.inputs());
        match block_on(gates.call(&self.grant(), tool, arguments, &self.cx()))? {
            Outcome::Proposed(proposal) => Ok(*proposal),
            other => panic!("{tool} must propose, got {other:?}"),
        }
    }

    pub fn approval(&self) -> Approval<'_> {
        Approval {
            registry: &self.registry,
            run: self.inputs(),
            grant: None,
            store: &self.approvals,
        }
    }

    pub fn approve(
        &self,
        proposal: &Proposal,
        approver: &str,
    ) -> Result<ToolOutput, ApprovalError> {
        block_on(
            self.approval()
                .approve(proposal, &actor(approver), &self.cx()),
        )
    }

    pub fn history(&self, table: &str, id: u64) -> Vec<HistoryEntry> {
        block_on(self.site.history(table, id)).unwrap()
    }
}

/// What each tool's tests need to know about it.
pub struct Case {
    pub tool: &'static str,
    /// Who proposes.
    pub proposer: &'static str,
    pub valid: Value,
    /// Invalid in one part only: refused whole.
    pub invalid: Value,
    /// What the refusal of `invalid` says, naming that part.
    pub invalid_says: &'static str,
    /// A record the proposer may not edit, and one that does not exist.
    pub forbidden: Value,
    pub missing: Value,
    /// A site user without edit rights on the record (passes the gates).
    pub outsider: &'static str,
    /// Where the history of the write lands.
    pub history: (&'static str, u64),
    /// Whether the site holds what `valid` proposed.
    pub written: fn(&MemorySite) -> bool,
    /// Changes the record between propose and approve.
    pub interfere: fn(&MemorySite),
}

pub fn proposing_writes_nothing(case: &Case) {
    let host = Host::new(case.proposer);
    let before = host.site.snapshot();
    let proposal = host.propose(case.tool, case.valid.clone()).unwrap();
    assert_eq!(host.site.snapshot(), before, "propose wrote");
    assert!(!proposal.record.is_empty());
    assert!(!proposal.changes.is_empty());
    assert!(
        proposal.summary.starts_with("Approving "),
        "{}",
        proposal.summary
    );
}

/// What every person-written field of [`marked_site`] ends with.
pub const MARKER: &str = "[[person-written]]";

/// The demo site with [`MARKER`] at the end of every field a person
/// writes (`site_model::demo::marked_data`); the demo's people keep their
/// login names, as the tests act as them.
pub fn marked_site() -> MemorySite {
    let actors = ["admin", "ops", "petra", "nils", "clara"];
    MemorySite::new(site_model::demo::marked_data("", MARKER, &actors))
}

/// On a site whose person-written text is marked, whatever reaches the
/// model (the values a proposal would write, which a door shows, and the
/// applied result) either holds none of it or is counted as others' text,
/// whatever the tool declares.
pub fn what_a_person_wrote_is_marked_wherever_it_reaches_the_model(case: &Case) {
    let mut host = Host::new(case.proposer);
    host.site = Arc::new(marked_site());
    let proposal = host.propose(case.tool, case.valid.clone()).unwrap();
    let values: Vec<&Value> = proposal.changes.iter().map(|change| &change.new).collect();
    let shown = serde_json::to_string(&values).unwrap();
    assert!(
        !shown.contains(MARKER) || proposal.carries_text_not_sent(),
        "{}: unmarked values {shown}",
        case.tool
    );
    let output = host.approve(&proposal, "admin").unwrap();
    let text = output.to_model_text();
    assert!(
        !text.contains(MARKER) || output.carries_authored(),
        "{}: unmarked result {text}",
        case.tool
    );
}

pub fn approving_applies_verifies_and_records_history(case: &Case) {
    let host = Host::new(case.proposer);
    let proposal = host.propose(case.tool, case.valid.clone()).unwrap();
    let output = host.approve(&proposal, "admin").unwrap();
    assert!(
        output.to_model_text().starts_with("written and verified"),
        "{}",
        output.to_model_text()
    );
    assert!((case.written)(&host.site), "the re-read values differ");
    let (table, id) = case.history;
    let entry = &host.history(table, id)[0];
    assert_eq!(entry.proposed_by, Some(case.proposer.into()));
    assert_eq!(entry.approved_by, Some("admin".into()));
    assert!(!entry.changes.is_empty());
}

pub fn an_invalid_part_refuses_the_whole_call(case: &Case) {
    let host = Host::new(case.proposer);
    let before = host.site.snapshot();
    let error = host.propose(case.tool, case.invalid.clone()).unwrap_err();
    assert!(
        error.model_text().contains(case.invalid_says),
        "{}: {}",
        case.tool,
        error.model_text()
    );
    assert_eq!(host.site.snapshot(), before);
}

pub fn a_forbidden_record_reads_like_a_missing_one(case: &Case) {
    let host = Host::new(case.proposer);
    let forbidden = host.propose(case.tool, case.forbidden.clone()).unwrap_err();
    let missing = host.propose(case.tool, case.missing.clone()).unwrap_err();
    assert_eq!(forbidden.model_text(), missing.model_text());
    assert_eq!(forbidden.model_text(), site_model::NOT_FOUND);
}

pub fn a_change_since_the_proposal_makes_it_stale(case: &Case) {
    let host = Host::new(case.proposer);
    let proposal = host.propose(case.tool, case.valid.clone()).unwrap();
    (case.interfere)(&host.site);
    let before = host.site.snapshot();
    assert_eq!(host.approve(&proposal, "admin"), Err(ApprovalError::Stale));
    assert_eq!(host.site.snapshot(), before);
}

pub fn two_racing_approvers_write_once(case: &Case) {
    let host = Host::new(case.proposer);
    let proposal = host.propose(case.tool, case.valid.clone()).unwrap();
    let results: Vec<bool> = std::thread::scope(|scope| {
        let racers: Vec<_> = ["admin", "ops"]
            .into_iter()
            .map(|approver| {
                let (host, proposal) = (&host, &proposal);
                scope.spawn(move || host.approve(proposal, approver).is_ok())
            })
            .collect();
        racers.into_iter().map(|r| r.join().unwrap()).collect()
    });
    assert_eq!(results.iter().filter(|ok| **ok).count(), 1);
    let (table, id) = case.history;
    let ours = host
        .history(table, id)
        .into_iter()
        .filter(|entry| entry.approved_by.is_some())
        .count();
    assert_eq!(ours, 1, "exactly one write");
}

pub fn a_replay_is_refused(case: &Case) {
    let host = Host::new(case.proposer);
    let proposal = host.propose(case.tool, case.valid.clone()).unwrap();
    host.approve(&proposal, "admin").unwrap();
    let after = host.site.snapshot();
    assert!(matches!(
        host.approve(&proposal, "admin"),
        Err(ApprovalError::AlreadyDecided(_))
    ));
    assert_eq!(host.site.snapshot(), after);
}

pub fn an_approver_without_edit_rights_is_refused(case: &Case) {
    let host = Host::new(case.proposer);
    let proposal = host.propose(case.tool, case.valid.clone()).unwrap();
    let before = host.site.snapshot();
    let error = host.approve(&proposal, case.outsider).unwrap_err();
    assert!(
        error.model_text().contains("approver may not edit"),
        "{error:?}"
    );
    assert_eq!(host.site.snapshot(), before);
}

// The scripted model (as in tool-core's agent tests).

type Reply = Result<ModelResponse, ModelError>;

/// Answers from a script and records every request.
pub struct Scripted {
    script: Mutex<VecDeque<Reply>>,
    pub seen: Mutex<Vec<Vec<Message>>>,
}

impl Scripted {
    pub fn new(script: impl IntoIterator<Item = Reply>) -> Self {
        Scripted {
            script: Mutex::new(script.into_iter().collect()),
            seen: Mutex::new(Vec::new()),
        }
    }

    /// The content of the last tool message the model was sent.
    pub fn last_tool_result(&self) -> (String, bool) {
        let seen = self.seen.lock().unwrap();
        seen.last()
            .and_then(|messages| {
                messages.iter().rev().find_map(|message| match message {
                    Message::Tool {
                        content, is_error, ..
                    } => Some((content.clone(), *is_error)),
                    _ => None,
                })
            })
            .expect("the model was sent a tool result")
    }
}

impl Model for Scripted {
    fn provider(&self) -> Provider {
        Provider::Anthropic
    }

    async fn complete(&self, request: ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
        self.seen.lock().unwrap().push(request.messages.to_vec());
        self.script
            .lock()
            .unwrap()
            .pop_front()
            .expect("the model was asked more often than scripted")
    }
}

pub fn call(name: &str, arguments: Value) -> Reply {
    Ok(ModelResponse {
        calls: vec![ToolCall {
            id: "call-1".into(),
            name: name.into(),
            arguments,
        }],
        ..ModelResponse::default()
    })
}

pub fn answer(text: &str) -> Reply {
    Ok(ModelResponse {
        text: text.into(),
        ..ModelResponse::default()
    })
}

/// A call, a suspended run stored as JSON, resumed in a fresh loop with
/// `decision`: what the model was told as the call's result.
pub fn through_the_agent(
    host: &Host,
    tool: &str,
    arguments: Value,
    decision: Decision,
) -> (String, bool) {
    let model = Scripted::new([call(tool, arguments)]);
    let end = block_on(Agent::new(&host.registry, &model).start(
        vec![Message::user("please")],
        host.inputs(),
        &host.cx(),
        &mut (),
    ));
    let RunEnd::Suspended(state) = end else {
        panic!("a write call suspends the run")
    };
    let stored = serde_json::to_string(&state).unwrap();

    let registry = Registry::linked().unwrap();
    let model = Scripted::new([answer("done")]);
    let state: RunState = serde_json::from_str(&stored).unwrap();
    let end = block_on(Agent::new(&registry, &model).resume(
        state,
        decision,
        host.inputs(),
        &host.approvals,
        &host.cx(),
        &mut (),
    ));
    assert!(matches!(end, RunEnd::Finished(_)));
    model.last_tool_result()
}

/// Drives `case.valid` through the agent loop with an approval.
pub fn the_agent_loop_applies_after_approval(case: &Case) {
    let host = Host::new(case.proposer);
    let approved = Decision::Approved {
        approver: actor("admin"),
    };
    let (text, is_error) = through_the_agent(&host, case.tool, case.valid.clone(), approved);
    assert!(!is_error, "{text}");
    // The applied result reaches the model marked as data.
    let marked = format!("<tool_result tool=\"{}\">\n", case.tool);
    assert!(text.starts_with(&marked), "{text}");
    assert!(text.contains("\nwritten and verified"), "{text}");
    assert!((case.written)(&host.site));
}

/// Every generic check of one tool as one `#[test]` each.
#[macro_export]
macro_rules! generic_tests {
    ($case:expr) => {
        #[test]
        fn what_a_person_wrote_is_marked_wherever_it_reaches_the_model() {
            common::what_a_person_wrote_is_marked_wherever_it_reaches_the_model(&$case);
        }
        #[test]
        fn proposing_writes_nothing() {
            common::proposing_writes_nothing(&$case);
        }
        #[test]
        fn approving_applies_verifies_and_records_history() {
            common::approving_applies_verifies_and_records_history(&$case);
        }
        #[test]
        fn an_invalid_part_refuses_the_whole_call() {
            common::an_invalid_part_refuses_the_whole_call(&$case);
        }
        #[test]
        fn a_forbidden_record_reads_like_a_missing_one() {
            common::a_forbidden_record_reads_like_a_missing_one(&$case);
        }
        #[test]
        fn a_change_since_the_proposal_makes_it_stale() {
            common::a_change_since_the_proposal_makes_it_stale(&$case);
        }
        #[test]
        fn two_racing_approvers_write_once() {
            common::two_racing_approvers_write_once(&$case);
        }
        #[test]
        fn a_replay_is_refused() {
            common::a_replay_is_refused(&$case);
        }
        #[test]
        fn an_approver_without_edit_rights_is_refused() {
            common::an_approver_without_edit_rights_is_refused(&$case);
        }
        #[test]
        fn the_agent_loop_applies_after_approval() {
            common::the_agent_loop_applies_after_approval(&$case);
        }
    };
}

pub fn update(site: &MemorySite, target: site_model::Target, field: &str, old: Value, new: Value) {
    use site_model::{ChangeSet, Changes, Operation};
    let operation = Operation::Update {
        target,
        expected: [(field.to_owned(), old)].into_iter().collect(),
        new: [(field.to_owned(), new)].into_iter().collect(),
    };
    block_on(site.apply(ChangeSet {
        operations: vec![operation],
        history: Vec::new(),
    }))
    .unwrap();
}
