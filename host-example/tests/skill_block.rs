//! A skill left out of the system prompt for the byte budget still counts
//! for gate 6: a run's grant comes from all its skills, not from those whose
//! text fit.

use tool_core::agent::Message;
use tool_core::gates::{Gates, HostSettings, RunConfig, Selection};
use tool_core::skills::{AllowedTools, SkillRef, TrustLevel, tokenize};
use tool_core::{Actor, Registry};

use host_example::app::RunSetup;

fn skill(id: &str, allowed_tools: &str, text: String) -> SkillRef {
    let (patterns, diagnostics) = tokenize(allowed_tools);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    SkillRef {
        id: id.into(),
        enabled: true,
        orphaned: false,
        trust: TrustLevel(1),
        allowed_tools: AllowedTools::Declared(patterns),
        text,
    }
}

fn setup(skills: Vec<SkillRef>) -> RunSetup {
    RunSetup {
        settings: HostSettings::default(),
        actor: Actor {
            id: "admin".into(),
            admin: true,
        },
        config: RunConfig::default(),
        skills,
        selection: Selection::All,
        notes: Vec::new(),
        mark_results: true,
    }
}

fn granted(registry: &Registry, setup: &RunSetup) -> Vec<String> {
    let grant = Gates::new(registry, setup.inputs()).resolve().grant;
    grant.tool_names().map(str::to_owned).collect()
}

fn prompt(setup: &RunSetup) -> String {
    match setup.system_prompt() {
        Message::System { text } => text,
        other => panic!("not a system message: {other:?}"),
    }
}

#[test]
fn a_skill_left_out_of_the_prompt_still_grants_its_tools() {
    let registry = host_example::registry().unwrap();
    // Two tools a run without skills is offered.
    let offered = granted(&registry, &setup(Vec::new()));
    let [first, second, ..] = offered.as_slice() else {
        panic!("fewer than two tools offered: {offered:?}");
    };
    let big = "Read every figure twice before you report it. ".repeat(1000);
    let skills = vec![
        skill("big", first, big.clone()),
        skill("small", second, "Be brief.".into()),
    ];
    let run = setup(skills.clone());

    let prompt = prompt(&run);
    assert!(!prompt.contains("## Skill: big"), "the big skill fits?");
    assert!(prompt.contains("## Skill: small") && prompt.contains("Be brief."));

    assert_eq!(granted(&registry, &run), [first.as_str(), second.as_str()]);
    // Without the big skill its tool is not offered: it is the dropped
    // skill that grants it.
    let without_big = setup(skills[1..].to_vec());
    assert_eq!(granted(&registry, &without_big), [second.as_str()]);
}
