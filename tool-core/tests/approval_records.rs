//! The approval path explains itself as a gated call does: one decision
//! record per approval, naming the approver, the gate and rule that
//! decided, the arguments redacted, and how it ended.

mod common;

use std::sync::{Arc, Mutex};

use futures_executor::block_on;
use serde_json::json;
use tool_core::approval::{Approval, ApprovalError, MemoryApprovals};
use tool_core::calls::{DecisionRecord, GateDecision, OutcomeKind};
use tool_core::gates::{
    Denial, Gate, Gates, HostSettings, RunConfig, RunInputs, Selection, Toggle, ToolSettings,
};
use tool_core::redact::REDACTED;
use tool_core::{Actor, Outcome, Proposal, RunId, ToolContext, ToolOutput};

use common::{admin, registry, user};

const SECRET: &str = "ghp_1234567890abcdefghijABCDEFGHIJ123456";

/// A run of an administrator with `b_write` enabled, collecting records.
struct Run {
    settings: HostSettings,
    config: RunConfig,
    store: Arc<common::Store>,
    records: Arc<Mutex<Vec<DecisionRecord>>>,
}

impl Run {
    fn new() -> Self {
        let mut settings = HostSettings::default();
        settings.tools.insert(
            "b_write".into(),
            ToolSettings {
                state: Toggle::Enabled,
                ..ToolSettings::default()
            },
        );
        Run {
            settings,
            config: RunConfig::default(),
            store: common::store(),
            records: Arc::default(),
        }
    }

    fn inputs<'a>(&'a self, actor: &'a Actor) -> RunInputs<'a> {
        RunInputs {
            settings: &self.settings,
            actor: Some(actor),
            config: &self.config,
            skills: &[],
            selection: &Selection::All,
        }
    }

    fn cx(&self, actor: &Actor) -> ToolContext {
        let records = Arc::clone(&self.records);
        ToolContext::new(RunId("run-approve".into()))
            .with_service(Arc::clone(&self.store))
            .with_actor(actor.clone())
            .with_decision_sink(move |r: &DecisionRecord| records.lock().unwrap().push(r.clone()))
    }

    /// A proposal by the run's actor (an administrator) through the gated
    /// call; its own record is dropped.
    fn propose(&self, value: &str) -> Proposal {
        let registry = registry();
        let actor = admin();
        let gates = Gates::new(&registry, self.inputs(&actor));
        let grant = gates.resolve().grant;
        let arguments = json!({"record": "r1", "value": value});
        let outcome = block_on(gates.call(&grant, "b_write", arguments, &self.cx(&actor)));
        self.records.lock().unwrap().clear();
        match outcome {
            Ok(Outcome::Proposed(proposal)) => *proposal,
            other => panic!("b_write must propose, got {other:?}"),
        }
    }

    fn approve(
        &self,
        proposal: &Proposal,
        approver: &Actor,
    ) -> (Result<ToolOutput, ApprovalError>, DecisionRecord) {
        let registry = registry();
        let actor = admin();
        let approvals = MemoryApprovals::new();
        let approval = Approval {
            registry: &registry,
            run: self.inputs(&actor),
            grant: None,
            store: &approvals,
        };
        let result = block_on(approval.approve(proposal, approver, &self.cx(&actor)));
        let records = std::mem::take(&mut *self.records.lock().unwrap());
        assert_eq!(records.len(), 1, "one record per approval: {records:?}");
        (result, records.into_iter().next().unwrap())
    }
}

#[test]
fn an_approval_emits_a_decision_record_naming_the_approver_with_arguments_redacted() {
    let run = Run::new();
    let proposal = run.propose(SECRET);
    let approver = Actor {
        id: "ops".into(),
        admin: true,
    };
    let (result, record) = run.approve(&proposal, &approver);
    assert!(result.is_ok(), "{result:?}");
    assert_eq!(record.run, RunId("run-approve".into()));
    assert_eq!(record.actor.as_deref(), Some("root"));
    assert_eq!(record.approver.as_deref(), Some("ops"));
    assert_eq!(record.tool, "b_write");
    assert_eq!(record.decision, GateDecision::Allowed { scoped: false });
    assert_eq!(record.outcome, OutcomeKind::Applied);
    assert_eq!(
        record.definition,
        registry().get("b_write").map(|t| t.definition_hash())
    );
    assert_eq!(record.arguments["record"], "r1");
    assert_eq!(record.arguments["value"], REDACTED);
    let stored = serde_json::to_string(&record).unwrap();
    assert!(!stored.contains("ghp_"), "{stored}");
    assert!(stored.contains("\"approver\":\"ops\""), "{stored}");
}

#[test]
fn an_approver_refused_by_the_gates_is_recorded_with_the_gate_and_rule() {
    let run = Run::new();
    let proposal = run.propose("v");
    // `b_write` requires an administrator; `ada` is not one.
    let (result, record) = run.approve(&proposal, &user());
    assert!(
        matches!(result, Err(ApprovalError::ApproverRefused { .. })),
        "{result:?}"
    );
    assert_eq!(record.approver.as_deref(), Some("ada"));
    assert_eq!(
        record.decision,
        GateDecision::Refused {
            gate: Gate::Admin,
            rule: Denial::AdminOnly,
        }
    );
    assert_eq!(record.outcome, OutcomeKind::Refused);
    assert_eq!(
        run.store.0.lock().unwrap().get("r1"),
        None,
        "nothing written"
    );
}

#[test]
fn a_gated_call_records_no_approver() {
    let run = Run::new();
    let registry = registry();
    let actor = admin();
    let gates = Gates::new(&registry, run.inputs(&actor));
    let grant = gates.resolve().grant;
    let arguments = json!({"record": "r1", "value": "v"});
    block_on(gates.call(&grant, "b_write", arguments, &run.cx(&actor))).unwrap();
    let records = run.records.lock().unwrap();
    assert_eq!(records[0].approver, None);
    let stored = serde_json::to_string(&records[0]).unwrap();
    assert!(!stored.contains("approver"), "{stored}");
}
