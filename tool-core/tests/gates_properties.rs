//! Properties of the gates over random settings, actors, configurations,
//! skills and selections (proptest, 1,000 cases each).

mod common;
mod gates_reference;

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use tool_core::gates::{
    Allowance, AllowedEffects, Gates, Grant, GroupSettings, HostSettings, RunConfig, RunInputs,
    Selection, Toggle, ToolSettings,
};
use tool_core::skills::{SkillRef, TrustLevel};
use tool_core::{Actor, Egress, Registry};

const GROUPS: &[&str] = &["alpha", "beta", "gamma", "late", "zeta"];
const TOOLS: &[&str] = &[
    "a_read",
    "a_off",
    "a_admin",
    "a_scoped",
    "a_net",
    "b_read",
    "b_admin_net",
    "b_write",
    "g_read",
    "ghost",
];
const TOKENS: &[&str] = &[
    "a_read",
    "a_off",
    "a_scoped",
    "a_scoped(src/**)",
    "a_scoped(docs/*)",
    "b_read",
    "b_write",
    "g_read",
    "ghost",
    "A_READ",
    "mcp__files",
    "mcp__files_",
    "mcp__files__read",
    "mcp__nope",
];

fn toggle() -> impl Strategy<Value = Toggle> {
    prop_oneof![
        Just(Toggle::Unset),
        Just(Toggle::Enabled),
        Just(Toggle::Disabled)
    ]
}

fn egress() -> impl Strategy<Value = Egress> {
    prop_oneof![Just(Egress::None), Just(Egress::OwnSite)]
}

fn settings() -> impl Strategy<Value = HostSettings> {
    (
        prop::collection::btree_map(prop::sample::select(GROUPS), (toggle(), egress()), 0..5),
        prop::collection::btree_map(prop::sample::select(TOOLS), toggle(), 0..10),
        0u8..4,
    )
        .prop_map(|(groups, tools, floor)| HostSettings {
            groups: groups
                .into_iter()
                .map(|(g, (state, egress))| {
                    (
                        g.to_owned(),
                        GroupSettings {
                            state,
                            egress,
                            ..GroupSettings::default()
                        },
                    )
                })
                .collect(),
            tools: tools
                .into_iter()
                .map(|(t, state)| {
                    (
                        t.to_owned(),
                        ToolSettings {
                            state,
                            ..ToolSettings::default()
                        },
                    )
                })
                .collect(),
            sites: Vec::new(),
            skill_trust_floor: TrustLevel(floor),
            ..HostSettings::default()
        })
}

fn actor() -> impl Strategy<Value = Option<Actor>> {
    prop_oneof![
        Just(None),
        any::<bool>().prop_map(|admin| Some(Actor {
            id: "someone".into(),
            admin
        })),
    ]
}

fn config() -> impl Strategy<Value = RunConfig> {
    (
        prop::collection::btree_set(prop::sample::select(GROUPS).prop_map(str::to_owned), 0..3),
        any::<bool>(),
    )
        .prop_map(|(groups, read_only)| RunConfig {
            groups,
            effects: if read_only {
                AllowedEffects::ReadOnly
            } else {
                AllowedEffects::ReadWrite
            },
            ..RunConfig::default()
        })
}

fn skills() -> impl Strategy<Value = Vec<SkillRef>> {
    prop::collection::vec(
        (
            0usize..4,
            any::<bool>(),
            any::<bool>(),
            0u8..4,
            prop::option::of(prop::collection::vec(prop::sample::select(TOKENS), 0..4)),
        )
            .prop_map(|(id, enabled, orphaned, trust, tokens)| {
                let mut skill = match tokens {
                    Some(tokens) => common::skill(&format!("s{id}"), &tokens.join(" ")),
                    None => {
                        let mut s = common::skill(&format!("s{id}"), "");
                        s.allowed_tools = tool_core::skills::AllowedTools::Absent;
                        s
                    }
                };
                skill.enabled = enabled;
                skill.orphaned = orphaned;
                skill.trust = TrustLevel(trust);
                skill
            }),
        0..4,
    )
}

fn selection() -> impl Strategy<Value = Selection> {
    prop_oneof![
        Just(Selection::All),
        prop::collection::btree_set(prop::sample::select(TOOLS).prop_map(str::to_owned), 0..6)
            .prop_map(Selection::Only),
    ]
}

#[derive(Debug, Clone)]
struct World {
    settings: HostSettings,
    actor: Option<Actor>,
    config: RunConfig,
    skills: Vec<SkillRef>,
    selection: Selection,
}

fn world() -> impl Strategy<Value = World> {
    (settings(), actor(), config(), skills(), selection()).prop_map(
        |(settings, actor, config, skills, selection)| World {
            settings,
            actor,
            config,
            skills,
            selection,
        },
    )
}

impl World {
    fn grant(&self, registry: &Registry) -> Grant {
        let inputs = RunInputs {
            settings: &self.settings,
            actor: self.actor.as_ref(),
            config: &self.config,
            skills: &self.skills,
            selection: &self.selection,
        };
        Gates::new(registry, inputs).resolve().grant
    }
}

/// The test tools and tools added at run time: MCP-style names (whose
/// server part `allowed-tools` can name) and groups whose first tool comes
/// in another order than their names.
fn wider_registry() -> Registry {
    let added = [
        ("late_a", "zeta"),
        ("mcp__files__read", "late"),
        ("mcp__files___write", "alpha"),
        ("mcp__filesystem__list", "gamma"),
        ("zz_last", "beta"),
    ];
    let mut builder = Registry::builder().linked();
    for (name, group) in added {
        builder = builder.add(common::Late::in_group(name, group));
    }
    builder.build().unwrap()
}

/// Whether `narrow` allows nothing that `wide` does not.
fn within(narrow: &Allowance, wide: &Allowance) -> bool {
    match (narrow, wide) {
        (_, Allowance::Whole) => true,
        (Allowance::Whole, Allowance::Scoped(_)) => false,
        (Allowance::Scoped(n), Allowance::Scoped(w)) => n.iter().all(|p| w.contains(p)),
    }
}

fn subset(narrow: &Grant, wide: &Grant) -> bool {
    narrow.tool_names().all(|name| {
        matches!(
            (narrow.allowance(name), wide.allowance(name)),
            (Some(n), Some(w)) if within(n, w)
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// No change between start and resume can add a tool (or widen a scope).
    #[test]
    fn resume_never_adds_a_tool(start in world(), later in world(), stored_missing in any::<bool>()) {
        let registry = common::registry();
        let stored = start.grant(&registry);
        let now = later.grant(&registry);
        let resumed = Grant::resume((!stored_missing).then_some(&stored), &now);
        prop_assert!(subset(&resumed, &now));
        if !stored_missing {
            prop_assert!(subset(&resumed, &stored));
        }
    }

    /// A disabled group offers none of its tools, whatever the per-tool
    /// overrides say.
    #[test]
    fn disabled_group_is_never_undone_by_a_tool_override(mut w in world(), group in prop::sample::select(GROUPS)) {
        w.settings.groups.entry(group.to_owned()).or_default().state = Toggle::Disabled;
        for tool in TOOLS {
            w.settings.tools.insert((*tool).to_owned(), ToolSettings { state: Toggle::Enabled, ..ToolSettings::default() });
        }
        let registry = common::registry();
        let grant = w.grant(&registry);
        for name in grant.tool_names() {
            prop_assert_ne!(registry.get(name).unwrap().declaration().group.as_ref(), group);
        }
    }

    /// The grant does not depend on the order tools were registered in.
    #[test]
    fn grant_does_not_depend_on_registration_order(w in world(), order in Just(vec![0usize, 1, 2, 3]).prop_shuffle()) {
        let late = [("late_a", "late"), ("late_b", "gamma"), ("late_c", "zeta"), ("late_d", "late")];
        let build = |indices: &[usize]| {
            let mut builder = Registry::builder().linked();
            for &i in indices {
                builder = builder.add(common::Late::in_group(late[i].0, late[i].1));
            }
            builder.build().unwrap()
        };
        let one = build(&[0, 1, 2, 3]);
        let other = build(&order);
        let a = serde_json::to_vec(&w.grant(&one)).unwrap();
        let b = serde_json::to_vec(&w.grant(&other)).unwrap();
        prop_assert_eq!(a, b);
    }

    /// The resolution is exactly what the rules say, tool by tool
    /// (`gates_reference`): every grant, allowance, denial and unknown name.
    #[test]
    fn resolution_matches_the_rules(w in world(), extra in prop::collection::btree_set(prop::sample::select(&["late_a", "mcp__files__read", "zz_last", "zz_unknown"][..]).prop_map(str::to_owned), 0..3)) {
        let registry = wider_registry();
        let mut selection = w.selection.clone();
        if let Selection::Only(names) = &mut selection {
            names.extend(extra);
        }
        let inputs = RunInputs {
            settings: &w.settings,
            actor: w.actor.as_ref(),
            config: &w.config,
            skills: &w.skills,
            selection: &selection,
        };
        let gates = Gates::new(&registry, inputs);
        let resolution = gates.resolve();
        let found = gates_reference::Plain::of(&resolution.grant, &resolution.denials, &resolution.unknown);
        prop_assert_eq!(found, gates_reference::resolve(&registry, &inputs));
        for tool in registry.tools() {
            prop_assert_eq!(gates.denial(tool.name()), resolution.denial(tool.name()).cloned());
        }
    }

    /// Same inputs, same bytes.
    #[test]
    fn grant_is_deterministic(w in world()) {
        let registry = common::registry();
        let a = serde_json::to_vec(&w.grant(&registry)).unwrap();
        let b = serde_json::to_vec(&w.grant(&registry)).unwrap();
        prop_assert_eq!(a, b);
    }
}

#[test]
fn property_inputs_cover_every_group_and_tool() {
    // Guards the strategies above: a renamed test tool would otherwise make
    // the properties vacuous.
    let registry = common::registry();
    let groups: BTreeSet<&str> = registry
        .tools()
        .iter()
        .map(|t| t.declaration().group.as_ref())
        .collect();
    for group in &groups {
        assert!(GROUPS.contains(group), "{group}");
    }
    let names: BTreeMap<&str, ()> = registry.tools().iter().map(|t| (t.name(), ())).collect();
    for name in names.keys() {
        assert!(TOOLS.contains(name), "{name}");
    }
}
