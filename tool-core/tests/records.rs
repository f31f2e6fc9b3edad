//! Decision records: one per gated call, naming the gate and rule that
//! decided, the tool's definition hash, and the arguments redacted.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use futures_executor::block_on;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tool_core::calls::{DecisionRecord, GateDecision, OutcomeKind};
use tool_core::gates::{
    Denial, Gate, Gates, HostSettings, RunConfig, RunInputs, Selection, Toggle, ToolSettings,
};
use tool_core::redact::REDACTED;
use tool_core::skills::{AllowedTools, SkillRef, TrustLevel, tokenize};
use tool_core::{
    Actor, DataClass, Egress, Execute, Registry, RunId, Tool, ToolContext, ToolError, ToolOutput,
};

/// Signs in to a service.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(data = "public", group = "accounts", effect = "read")]
struct SignIn {
    /// The account.
    user: String,
    /// Its password.
    password: String,
    /// A note.
    #[serde(default)]
    note: String,
}

impl Execute for SignIn {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let with_note = if self.note.is_empty() { "" } else { " (noted)" };
        let Self { user, password, .. } = self;
        Ok(ToolOutput::text(format!(
            "signed in {user} with {} characters{with_note}",
            password.len()
        )))
    }
}

/// For administrators.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(data = "public", group = "accounts", effect = "read", requires_admin)]
struct AdminOnly {}

impl Execute for AdminOnly {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("admin"))
    }
}

/// Reaches the network.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(data = "public", group = "web", effect = "read", egress = "own_site")]
struct Fetch {}

impl Execute for Fetch {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("fetched"))
    }
}

/// Returns personal data.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "accounts", effect = "read")]
struct Profile {}

impl Execute for Profile {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("profile"))
    }
}

/// Collects the records of a context.
#[derive(Clone, Default)]
struct Records(Arc<Mutex<Vec<DecisionRecord>>>);

impl Records {
    fn cx(&self, actor: Option<&Actor>) -> ToolContext {
        let records = self.clone();
        let cx = ToolContext::new(RunId("run-7".into())).with_decision_sink(
            move |r: &DecisionRecord| records.0.lock().unwrap().push(r.clone()),
        );
        match actor {
            Some(actor) => cx.with_actor(actor.clone()),
            None => cx,
        }
    }

    fn only(&self) -> DecisionRecord {
        let records = self.0.lock().unwrap();
        assert_eq!(records.len(), 1, "one record per call");
        records[0].clone()
    }
}

struct Setup {
    settings: HostSettings,
    config: RunConfig,
    skills: Vec<SkillRef>,
    selection: Selection,
    actor: Option<Actor>,
}

impl Default for Setup {
    fn default() -> Self {
        Setup {
            settings: HostSettings::default(),
            config: RunConfig {
                trust_zone: DataClass::Personal,
                ..RunConfig::default()
            },
            skills: Vec::new(),
            selection: Selection::All,
            actor: Some(Actor {
                id: "ada".into(),
                admin: false,
            }),
        }
    }
}

/// Calls `tool` with `arguments` under `setup` (the grant resolved by the
/// same gates) and returns the one record.
fn record(setup: &Setup, tool: &str, arguments: Value) -> DecisionRecord {
    let registry = Registry::linked().unwrap();
    let inputs = RunInputs {
        settings: &setup.settings,
        actor: setup.actor.as_ref(),
        config: &setup.config,
        skills: &setup.skills,
        selection: &setup.selection,
    };
    let gates = Gates::new(&registry, inputs);
    let grant = gates.resolve().grant;
    let records = Records::default();
    let cx = records.cx(setup.actor.as_ref());
    let _ = block_on(gates.call(&grant, tool, arguments, &cx));
    records.only()
}

fn refused(record: &DecisionRecord) -> (Gate, Denial) {
    match &record.decision {
        GateDecision::Refused { gate, rule } => (*gate, rule.clone()),
        other => panic!("not refused: {other:?}"),
    }
}

fn skill(id: &str, allowed_tools: &str) -> SkillRef {
    SkillRef {
        id: id.into(),
        enabled: true,
        orphaned: false,
        trust: TrustLevel(5),
        allowed_tools: AllowedTools::Declared(tokenize(allowed_tools).0),
        text: String::new(),
    }
}

#[test]
fn an_allowed_call_records_the_definition_and_how_it_ended() {
    let record = record(
        &Setup::default(),
        "sign_in",
        json!({"user": "ada", "password": "x"}),
    );
    let registry = Registry::linked().unwrap();
    assert_eq!(record.run, RunId("run-7".into()));
    assert_eq!(record.actor.as_deref(), Some("ada"));
    assert_eq!(record.tool, "sign_in");
    assert_eq!(
        record.definition,
        Some(registry.get("sign_in").unwrap().definition_hash())
    );
    assert_eq!(record.decision, GateDecision::Allowed { scoped: false });
    assert_eq!(record.outcome, OutcomeKind::Done);
    assert!(record.skills.is_empty());
}

#[test]
fn each_gate_that_refuses_is_named_with_its_rule() {
    let mut cases: Vec<(Setup, &str, Gate, Denial)> = Vec::new();

    let mut disabled = Setup::default();
    disabled.settings.tools.insert(
        "sign_in".into(),
        ToolSettings {
            state: Toggle::Disabled,
            ..ToolSettings::default()
        },
    );
    cases.push((disabled, "sign_in", Gate::Enabled, Denial::ToolDisabled));

    cases.push((
        Setup::default(),
        "admin_only",
        Gate::Admin,
        Denial::AdminOnly,
    ));

    cases.push((
        Setup::default(),
        "fetch",
        Gate::Egress,
        Denial::Egress {
            declared: Egress::OwnSite,
            granted: Egress::None,
        },
    ));

    let mut other_group = Setup::default();
    other_group.config.groups = BTreeSet::from(["web".to_owned()]);
    cases.push((
        other_group,
        "sign_in",
        Gate::Configuration,
        Denial::GroupNotConfigured {
            group: "accounts".into(),
        },
    ));

    let skills = Setup {
        skills: vec![skill("release-notes", "profile")],
        ..Setup::default()
    };
    cases.push((skills, "sign_in", Gate::Skills, Denial::NotAllowedBySkills));

    let selected = Setup {
        selection: Selection::Only(BTreeSet::from(["profile".to_owned()])),
        ..Setup::default()
    };
    cases.push((selected, "sign_in", Gate::Selection, Denial::NotSelected));

    let mut zone = Setup::default();
    zone.config.trust_zone = DataClass::Public;
    cases.push((
        zone,
        "profile",
        Gate::TrustZone,
        Denial::TrustZone {
            data: DataClass::Personal,
            ceiling: DataClass::Public,
        },
    ));

    cases.push((
        Setup::default(),
        "no_such_tool",
        Gate::Registered,
        Denial::NotRegistered,
    ));

    for (setup, tool, gate, rule) in cases {
        let record = record(&setup, tool, json!({}));
        assert_eq!(refused(&record), (gate, rule.clone()), "{tool}");
        assert_eq!(record.outcome, OutcomeKind::Refused, "{tool}");
        assert_eq!(record.definition.is_some(), tool != "no_such_tool");
    }
    // Serialized, the gate and the rule are plain words a log can query.
    let stored = serde_json::to_value(record(&Setup::default(), "admin_only", json!({}))).unwrap();
    assert_eq!(stored["decision"], "refused");
    assert_eq!(stored["gate"], "admin");
    assert_eq!(stored["rule"], json!({"gate": "admin_only"}));
}

#[test]
fn gate_six_names_the_skills_it_consulted() {
    let setup = Setup {
        skills: vec![
            skill("release-notes", "profile"),
            skill("onboarding", "sign_in"),
        ],
        ..Setup::default()
    };
    let record = record(&setup, "sign_in", json!({"user": "a", "password": "b"}));
    assert_eq!(record.decision, GateDecision::Allowed { scoped: false });
    assert_eq!(record.skills, ["release-notes", "onboarding"]);
}

#[test]
fn a_call_refused_at_call_time_names_the_grant() {
    let registry = Registry::linked().unwrap();
    let setup = Setup::default();
    let inputs = RunInputs {
        settings: &setup.settings,
        actor: setup.actor.as_ref(),
        config: &setup.config,
        skills: &[],
        selection: &Selection::Only(BTreeSet::new()),
    };
    let empty = Gates::new(&registry, inputs).resolve().grant;
    let gates = Gates::new(
        &registry,
        RunInputs {
            selection: &Selection::All,
            ..inputs
        },
    );
    let records = Records::default();
    let cx = records.cx(setup.actor.as_ref());
    let _ = block_on(gates.call(&empty, "profile", json!({}), &cx));
    assert_eq!(refused(&records.only()), (Gate::Grant, Denial::NotInGrant));
}

#[test]
fn a_secret_argument_never_appears_in_clear() {
    let record = record(
        &Setup::default(),
        "sign_in",
        json!({
            "user": "ada",
            "password": "hunter2",
            "note": "ghp_1234567890abcdefghijABCDEFGHIJ123456",
        }),
    );
    assert_eq!(record.arguments["user"], "ada");
    assert_eq!(record.arguments["password"], REDACTED);
    assert_eq!(record.arguments["note"], REDACTED);
    let stored = serde_json::to_string(&record).unwrap();
    assert!(!stored.contains("hunter2"), "{stored}");
    assert!(!stored.contains("ghp_"), "{stored}");
    // A record round-trips, for hosts that store and read them back.
    let read: DecisionRecord = serde_json::from_str(&stored).unwrap();
    assert_eq!(read, record);
}

#[test]
fn definition_hashes_are_stable_and_tell_tools_apart() {
    let one = Registry::linked().unwrap();
    let two = Registry::linked().unwrap();
    let hash = |r: &Registry, name: &str| r.get(name).unwrap().definition_hash();
    assert_eq!(hash(&one, "sign_in"), hash(&two, "sign_in"));
    assert_ne!(hash(&one, "sign_in"), hash(&one, "profile"));
    let text = serde_json::to_value(hash(&one, "sign_in")).unwrap();
    assert_eq!(text.as_str().map(str::len), Some(16));
}

#[test]
fn without_a_sink_nothing_is_recorded_and_the_call_runs() {
    let registry = Registry::linked().unwrap();
    let setup = Setup::default();
    let inputs = RunInputs {
        settings: &setup.settings,
        actor: None,
        config: &setup.config,
        skills: &[],
        selection: &Selection::All,
    };
    let gates = Gates::new(&registry, inputs);
    let grant = gates.resolve().grant;
    let cx = ToolContext::new(RunId("run".into()));
    let outcome = block_on(gates.call(
        &grant,
        "sign_in",
        json!({"user": "a", "password": "b"}),
        &cx,
    ));
    assert!(outcome.is_ok());
}
