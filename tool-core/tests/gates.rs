//! The gate cascade, grants, resume and call-time enforcement, on real
//! derived tools. Each rule of the gate cascade (`tool_core::gates`) is a named test.

mod common;

use std::collections::BTreeSet;

use futures_executor::block_on;
use serde_json::json;
use tool_core::gates::{
    Allowance, AllowedEffects, Denial, Gates, Grant, GroupSettings, HostSettings, RunConfig,
    RunInputs, Selection, Toggle, ToolSettings,
};
use tool_core::skills::{SkillRef, TrustLevel};
use tool_core::{Actor, Egress, Outcome, Registry, ToolError};

use common::{admin, capture_gate_events, cx, registry, skill, user};

struct Run {
    settings: HostSettings,
    actor: Option<Actor>,
    config: RunConfig,
    skills: Vec<SkillRef>,
    selection: Selection,
}

impl Run {
    fn new() -> Self {
        Run {
            settings: HostSettings::default(),
            actor: Some(user()),
            config: RunConfig::default(),
            skills: Vec::new(),
            selection: Selection::All,
        }
    }

    fn inputs(&self) -> RunInputs<'_> {
        RunInputs {
            settings: &self.settings,
            actor: self.actor.as_ref(),
            config: &self.config,
            skills: &self.skills,
            selection: &self.selection,
        }
    }

    fn gates<'r>(&self, registry: &'r Registry) -> Gates<'r> {
        Gates::new(registry, self.inputs())
    }

    fn offered(&self) -> Vec<String> {
        let registry = registry();
        let grant = self.gates(&registry).resolve().grant;
        grant.tool_names().map(str::to_owned).collect()
    }

    fn denial(&self, tool: &str) -> Option<Denial> {
        let registry = registry();
        self.gates(&registry).resolve().denial(tool).cloned()
    }

    fn set_group(&mut self, group: &str, state: Toggle) {
        self.settings.groups.entry(group.into()).or_default().state = state;
    }

    fn set_tool(&mut self, tool: &str, state: Toggle) {
        self.settings.tools.insert(
            tool.into(),
            ToolSettings {
                state,
                ..ToolSettings::default()
            },
        );
    }
}

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

// Gate 1: registered.

#[test]
fn gate1_unknown_selected_name_is_denied_as_not_registered_and_widens_nothing() {
    let mut run = Run::new();
    run.selection = Selection::Only(BTreeSet::from(["a_read".into(), "ghost".into()]));
    assert_eq!(run.offered(), names(&["a_read"]));
    assert_eq!(run.denial("ghost"), Some(Denial::NotRegistered));
}

#[test]
fn gate1_unknown_name_in_skills_grants_nothing() {
    let mut run = Run::new();
    run.skills = vec![skill("s", "ghost Ghost mcp__nowhere__tool")];
    assert_eq!(run.offered(), Vec::<String>::new());
}

// Gate 2: enabled.

#[test]
fn gate2_shipped_state_applies_when_unset() {
    let run = Run::new();
    assert_eq!(run.denial("a_off"), Some(Denial::ToolDisabled));
    // A write tool ships disabled without saying so.
    assert_eq!(run.denial("b_write"), Some(Denial::ToolDisabled));
    assert!(run.offered().contains(&"a_read".to_owned()));
}

#[test]
fn gate2_administrator_override_enables_and_disables_a_tool() {
    let mut run = Run::new();
    run.set_tool("a_off", Toggle::Enabled);
    run.set_tool("a_read", Toggle::Disabled);
    assert!(run.offered().contains(&"a_off".to_owned()));
    assert_eq!(run.denial("a_read"), Some(Denial::ToolDisabled));
}

#[test]
fn gate2_disabled_group_refuses_all_its_tools_even_with_a_tool_override() {
    let mut run = Run::new();
    run.set_group("alpha", Toggle::Disabled);
    run.set_tool("a_read", Toggle::Enabled);
    run.set_tool("a_off", Toggle::Enabled);
    for tool in ["a_read", "a_off", "a_scoped"] {
        assert_eq!(
            run.denial(tool),
            Some(Denial::GroupDisabled {
                group: "alpha".into()
            })
        );
    }
    assert!(run.offered().iter().all(|t| !t.starts_with("a_")));
}

#[test]
fn gate2_disabled_group_refuses_tools_installed_later() {
    let mut run = Run::new();
    run.set_group("late", Toggle::Disabled);
    let registry = Registry::builder()
        .linked()
        .add(common::Late::new("late_tool"))
        .build()
        .unwrap();
    let resolution = run.gates(&registry).resolve();
    assert_eq!(
        resolution.denial("late_tool"),
        Some(&Denial::GroupDisabled {
            group: "late".into()
        })
    );
}

#[test]
fn gate2_group_never_toggled_is_enabled() {
    let run = Run::new();
    assert!(run.offered().contains(&"g_read".to_owned()));
}

// Gate 3: admin.

#[test]
fn gate3_admin_tool_is_dropped_for_a_non_admin_and_for_no_actor() {
    let mut run = Run::new();
    assert_eq!(run.denial("a_admin"), Some(Denial::AdminOnly));
    run.actor = None;
    assert_eq!(run.denial("a_admin"), Some(Denial::AdminOnly));
    run.actor = Some(admin());
    assert!(run.offered().contains(&"a_admin".to_owned()));
}

// Gate 4: egress.

#[test]
fn gate4_network_tool_needs_its_group_granted_own_site() {
    let mut run = Run::new();
    assert_eq!(
        run.denial("a_net"),
        Some(Denial::Egress {
            declared: Egress::OwnSite,
            granted: Egress::None
        })
    );
    run.settings.groups.insert(
        "alpha".into(),
        GroupSettings {
            state: Toggle::Unset,
            egress: Egress::OwnSite,
            ..GroupSettings::default()
        },
    );
    assert!(run.offered().contains(&"a_net".to_owned()));
}

// Gate 5: configuration.

#[test]
fn gate5_empty_group_list_means_all_groups() {
    let run = Run::new();
    let offered = run.offered();
    assert!(offered.contains(&"a_read".to_owned()) && offered.contains(&"b_read".to_owned()));
}

#[test]
fn gate5_configuration_restricts_groups() {
    let mut run = Run::new();
    run.config.groups = BTreeSet::from(["beta".into()]);
    assert_eq!(run.offered(), names(&["b_read"]));
    assert_eq!(
        run.denial("a_read"),
        Some(Denial::GroupNotConfigured {
            group: "alpha".into()
        })
    );
}

#[test]
fn gate5_unknown_configured_group_yields_no_tools() {
    let mut run = Run::new();
    run.config.groups = BTreeSet::from(["zeta".into()]);
    assert!(run.offered().is_empty());
}

#[test]
fn gate5_read_only_configuration_gets_no_write_tool() {
    let mut run = Run::new();
    run.actor = Some(admin());
    run.set_tool("b_write", Toggle::Enabled);
    assert!(run.offered().contains(&"b_write".to_owned()));
    run.config.effects = AllowedEffects::ReadOnly;
    assert_eq!(run.denial("b_write"), Some(Denial::ReadOnlyRun));
}

// Gate 6: skills.

#[test]
fn gate6_no_skill_declaring_allowed_tools_is_no_opinion() {
    let mut run = Run::new();
    let all = run.offered();
    run.skills = vec![skill_absent("plain")];
    assert_eq!(run.offered(), all);
}

#[test]
fn gate6_declared_empty_list_grants_nothing() {
    let mut run = Run::new();
    run.skills = vec![skill("empty", "")];
    assert!(run.offered().is_empty());
    assert_eq!(run.denial("a_read"), Some(Denial::NotAllowedBySkills));
}

#[test]
fn gate6_union_of_the_effective_skills_lists() {
    let mut run = Run::new();
    run.skills = vec![
        skill("one", "a_read"),
        skill("two", "b_read"),
        skill_absent("three"),
    ];
    assert_eq!(run.offered(), names(&["a_read", "b_read"]));
}

#[test]
fn gate6_disabled_orphaned_and_untrusted_skills_do_not_count() {
    let mut run = Run::new();
    run.settings.skill_trust_floor = TrustLevel(2);
    let mut disabled = skill("disabled", "a_read");
    disabled.enabled = false;
    let mut orphaned = skill("orphaned", "b_read");
    orphaned.orphaned = true;
    let mut untrusted = skill("untrusted", "g_read");
    untrusted.trust = TrustLevel(1);
    let trusted = skill("trusted", "a_scoped");
    run.skills = vec![disabled, orphaned, untrusted, trusted];
    assert_eq!(run.offered(), names(&["a_scoped"]));
}

#[test]
fn gate6_scoped_grant_is_carried_into_the_grant() {
    let mut run = Run::new();
    run.skills = vec![skill("docs", "a_scoped(docs/**)")];
    let registry = registry();
    let grant = run.gates(&registry).resolve().grant;
    assert!(matches!(grant.allowance("a_scoped"), Some(Allowance::Scoped(p)) if p.len() == 1));
}

// Gate 7: selection.

#[test]
fn gate7_no_selection_is_all_and_empty_selection_is_none() {
    let mut run = Run::new();
    assert!(!run.offered().is_empty());
    run.selection = Selection::Only(BTreeSet::new());
    assert!(run.offered().is_empty());
    assert_eq!(run.denial("a_read"), Some(Denial::NotSelected));
}

// Order.

#[test]
fn order_first_refusing_gate_is_reported() {
    let mut run = Run::new();
    run.actor = None;
    run.config.groups = BTreeSet::from(["gamma".into()]);
    run.selection = Selection::Only(BTreeSet::new());
    // b_admin_net fails admin, egress, configuration and selection: admin first.
    assert_eq!(run.denial("b_admin_net"), Some(Denial::AdminOnly));
    run.actor = Some(admin());
    assert_eq!(
        run.denial("b_admin_net"),
        Some(Denial::Egress {
            declared: Egress::OwnSite,
            granted: Egress::None
        })
    );
    run.set_group("beta", Toggle::Disabled);
    assert_eq!(
        run.denial("b_admin_net"),
        Some(Denial::GroupDisabled {
            group: "beta".into()
        })
    );
}

// Grant: serializable, deterministic, versioned.

#[test]
fn grant_is_deterministic_and_round_trips() {
    let mut run = Run::new();
    run.skills = vec![skill(
        "s",
        "a_scoped(src/**) a_scoped(docs/*) a_read b_read",
    )];
    let registry = registry();
    let one = serde_json::to_vec(&run.gates(&registry).resolve().grant).unwrap();
    let two = serde_json::to_vec(&run.gates(&registry).resolve().grant).unwrap();
    assert_eq!(one, two);
    let back: Grant = serde_json::from_slice(&one).unwrap();
    assert_eq!(serde_json::to_vec(&back).unwrap(), one);
    assert!(
        String::from_utf8(one)
            .unwrap()
            .starts_with(r#"{"format":1,"#)
    );
}

#[test]
fn grant_of_an_unknown_format_is_refused_not_guessed() {
    let error = serde_json::from_str::<Grant>(r#"{"format":2,"tools":{}}"#).unwrap_err();
    assert!(error.to_string().contains("format 2"), "{error}");
}

// Resume.

#[test]
fn resume_is_stored_intersected_with_now() {
    let registry = registry();
    let mut run = Run::new();
    let stored = run.gates(&registry).resolve().grant;
    run.set_tool("a_read", Toggle::Disabled);
    run.set_tool("a_off", Toggle::Enabled);
    let now = run.gates(&registry).resolve().grant;
    let resumed = Grant::resume(Some(&stored), &now);
    let names: Vec<&str> = resumed.tool_names().collect();
    assert!(!names.contains(&"a_read"), "taken away while waiting");
    assert!(!names.contains(&"a_off"), "never added while waiting");
    assert!(names.contains(&"b_read"));
}

#[test]
fn resume_without_stored_grant_uses_the_grant_resolved_now() {
    let registry = registry();
    let now = Run::new().gates(&registry).resolve().grant;
    assert_eq!(Grant::resume(None, &now), now);
}

#[test]
fn resume_narrows_scopes_to_those_in_both() {
    let registry = registry();
    let mut run = Run::new();
    run.skills = vec![skill("s", "a_scoped(src/**) a_scoped(docs/**)")];
    let stored = run.gates(&registry).resolve().grant;
    run.skills = vec![skill("s", "a_scoped")];
    let now = run.gates(&registry).resolve().grant;
    let resumed = Grant::resume(Some(&stored), &now);
    assert_eq!(resumed.allowance("a_scoped"), stored.allowance("a_scoped"));
    run.skills = vec![skill("s", "a_scoped(src/**)")];
    let narrower = run.gates(&registry).resolve().grant;
    let resumed = Grant::resume(Some(&stored), &narrower);
    assert_eq!(
        resumed.allowance("a_scoped"),
        narrower.allowance("a_scoped")
    );
}

// Enforcement at every call.

#[test]
fn call_to_an_offered_tool_runs() {
    let registry = registry();
    let run = Run::new();
    let gates = run.gates(&registry);
    let grant = gates.resolve().grant;
    let outcome = block_on(gates.call(&grant, "a_read", json!({}), &cx()));
    assert!(matches!(outcome, Ok(Outcome::Done(_))), "{outcome:?}");
}

#[test]
fn call_whose_context_acts_for_another_actor_is_refused() {
    let registry = registry();
    let run = Run::new();
    let gates = run.gates(&registry);
    let grant = gates.resolve().grant;
    // The gates were built for `user()`; a context acting for an
    // administrator must not borrow their verdicts.
    let as_admin = cx().with_actor(admin());
    let error = block_on(gates.call(&grant, "a_read", json!({}), &as_admin)).unwrap_err();
    assert!(
        matches!(
            &error,
            ToolError::Refused {
                denial: Denial::OtherActor,
                ..
            }
        ),
        "{error:?}"
    );
    assert_eq!(error.model_text(), "tool `a_read` is not available");
    // The run's own actor, or none at all, is accepted.
    let as_user = cx().with_actor(user());
    let outcome = block_on(gates.call(&grant, "a_read", json!({}), &as_user));
    assert!(matches!(outcome, Ok(Outcome::Done(_))), "{outcome:?}");
}

#[test]
fn refused_call_reads_exactly_like_an_unknown_tool() {
    let registry = registry();
    let run = Run::new();
    let gates = run.gates(&registry);
    let grant = gates.resolve().grant;
    let refused = block_on(gates.call(&grant, "a_admin", json!({}), &cx())).unwrap_err();
    let unknown = block_on(gates.call(&grant, "a_admln", json!({}), &cx())).unwrap_err();
    assert_eq!(
        refused.model_text().replace("a_admin", "X"),
        unknown.model_text().replace("a_admln", "X")
    );
    assert_eq!(refused.model_text(), "tool `a_admin` is not available");
    assert!(matches!(
        refused,
        ToolError::Refused {
            denial: Denial::AdminOnly,
            ..
        }
    ));
}

#[test]
fn call_is_checked_before_the_arguments_are_parsed() {
    let registry = registry();
    let run = Run::new();
    let gates = run.gates(&registry);
    let grant = gates.resolve().grant;
    // Arguments that would fail validation: a refusal, not an argument error,
    // so the model learns nothing about the tool's schema.
    let error = block_on(gates.call(&grant, "a_admin", json!("garbage"), &cx())).unwrap_err();
    assert!(matches!(error, ToolError::Refused { .. }), "{error:?}");
}

#[test]
fn tool_disabled_mid_run_is_refused_at_its_next_call() {
    let registry = registry();
    let mut run = Run::new();
    let grant = run.gates(&registry).resolve().grant;
    run.set_tool("a_read", Toggle::Disabled);
    let gates_now = run.gates(&registry);
    let error = block_on(gates_now.call(&grant, "a_read", json!({}), &cx())).unwrap_err();
    assert!(matches!(
        error,
        ToolError::Refused {
            denial: Denial::ToolDisabled,
            ..
        }
    ));
}

#[test]
fn tool_enabled_mid_run_is_still_refused_without_the_grant() {
    let registry = registry();
    let mut run = Run::new();
    let grant = run.gates(&registry).resolve().grant;
    run.set_tool("a_off", Toggle::Enabled);
    let gates_now = run.gates(&registry);
    let error = block_on(gates_now.call(&grant, "a_off", json!({}), &cx())).unwrap_err();
    assert!(matches!(
        error,
        ToolError::Refused {
            denial: Denial::NotInGrant,
            ..
        }
    ));
}

#[test]
fn scoped_grant_admits_only_calls_inside_the_scope() {
    let registry = registry();
    let mut run = Run::new();
    run.skills = vec![skill("docs", "a_scoped(docs/**)")];
    let gates = run.gates(&registry);
    let grant = gates.resolve().grant;
    let inside = block_on(gates.call(&grant, "a_scoped", json!({"path": "docs/a/b.md"}), &cx()));
    assert!(inside.is_ok(), "{inside:?}");
    for path in ["src/main.rs", "docs/../src/main.rs", "../docs/x"] {
        let outside =
            block_on(gates.call(&grant, "a_scoped", json!({"path": path}), &cx())).unwrap_err();
        assert!(
            matches!(
                outside,
                ToolError::Refused {
                    denial: Denial::OutOfScope,
                    ..
                }
            ),
            "{path}: {outside:?}"
        );
        assert_eq!(outside.model_text(), "tool `a_scoped` is not available");
    }
    let missing = block_on(gates.call(&grant, "a_scoped", json!({}), &cx())).unwrap_err();
    assert!(matches!(
        missing,
        ToolError::Refused {
            denial: Denial::OutOfScope,
            ..
        }
    ));
}

#[test]
fn every_decision_is_a_tracing_event() {
    let registry = registry();
    let run = Run::new();
    let gates = run.gates(&registry);
    let grant = gates.resolve().grant;
    let events = capture_gate_events(|| {
        let _ = block_on(gates.call(&grant, "a_read", json!({}), &cx()));
        let _ = block_on(gates.call(&grant, "a_admin", json!({}), &cx()));
    });
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(events[0]["tool"], "a_read");
    assert_eq!(events[0]["decision"], "allow");
    assert_eq!(events[0]["run"], "test-run");
    assert_eq!(events[1]["tool"], "a_admin");
    assert_eq!(events[1]["decision"], "deny");
    assert_eq!(events[1]["gate"], "admin");
}

// Egress guard in the context.

#[test]
fn tool_gets_the_egress_guard_of_its_group() {
    let registry = registry();
    let mut run = Run::new();
    run.settings.sites = vec!["https://docs.example".parse().unwrap()];
    run.settings.groups.insert(
        "alpha".into(),
        GroupSettings {
            state: Toggle::Unset,
            egress: Egress::OwnSite,
            ..GroupSettings::default()
        },
    );
    let gates = run.gates(&registry);
    let grant = gates.resolve().grant;
    let own = block_on(gates.call(&grant, "a_net", json!({"url": "/guide"}), &cx()));
    assert_eq!(common::text(own), "ok https://docs.example/guide");
    let evil = block_on(gates.call(
        &grant,
        "a_net",
        json!({"url": "https://evil.example/"}),
        &cx(),
    ));
    assert!(common::text(evil).starts_with("refused"));
}

#[test]
fn outside_a_gated_call_the_guard_refuses_everything() {
    let registry = registry();
    let outcome = block_on(registry.call_ungated("a_net", json!({"url": "/guide"}), &cx()));
    assert!(common::text(outcome).starts_with("refused"));
}

fn skill_absent(id: &str) -> SkillRef {
    let mut skill = skill(id, "");
    skill.allowed_tools = tool_core::skills::AllowedTools::Absent;
    skill
}
