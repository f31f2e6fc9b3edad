//! The skill block: the skills' text under the prompt's byte budget. A
//! skill left out for the budget is logged, and still counts for gate 6
//! (`tool_core::gates`); host-example's `tests/skill_block.rs` checks that a
//! host's run keeps it.

mod skills_support;

use std::sync::{Arc, Mutex};

use serde_json::{Map, Value, json};
use skills_support::{Allowed, registry_of};
use tool_core::ScopeKind;
use tool_core::skills::{
    AllowedTools, Dropped, EffectiveSkills, SkillRef, TrustLevel, compose_skill_block, tokenize,
};

/// One event as recorded: its level, target and fields.
#[derive(Debug, Clone)]
struct Recorded {
    level: tracing::Level,
    target: String,
    fields: Map<String, Value>,
}

/// Records every event whose target is in `tool_core::skills`.
#[derive(Default)]
struct SkillEvents {
    events: Arc<Mutex<Vec<Recorded>>>,
}

impl tracing::Subscriber for SkillEvents {
    fn enabled(&self, metadata: &tracing::Metadata<'_>) -> bool {
        metadata.target().starts_with("tool_core::skills")
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        let mut fields = Fields(Map::new());
        event.record(&mut fields);
        self.events.lock().unwrap().push(Recorded {
            level: *event.metadata().level(),
            target: event.metadata().target().to_owned(),
            fields: fields.0,
        });
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

struct Fields(Map<String, Value>);

impl tracing::field::Visit for Fields {
    fn record_u64(&mut self, field: &tracing::field::Field, value: u64) {
        self.0.insert(field.name().into(), json!(value));
    }
    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        self.0.insert(field.name().into(), json!(value));
    }
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.0
            .insert(field.name().into(), json!(format!("{value:?}")));
    }
}

fn capture_skill_events<T>(f: impl FnOnce() -> T) -> (T, Vec<Recorded>) {
    let subscriber = SkillEvents::default();
    let events = Arc::clone(&subscriber.events);
    let out = tracing::subscriber::with_default(subscriber, f);
    let events = events.lock().unwrap().clone();
    (out, events)
}

fn skill(id: &str, allowed_tools: &str, text: &str) -> SkillRef {
    let (patterns, diagnostics) = tokenize(allowed_tools);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    SkillRef {
        id: id.into(),
        enabled: true,
        orphaned: false,
        trust: TrustLevel(1),
        allowed_tools: AllowedTools::Declared(patterns),
        text: text.into(),
    }
}

const KNOWN: &[(&str, Option<ScopeKind>)] = &[
    ("read_notes", None),
    ("run_report", Some(ScopeKind::Command)),
    ("send_mail", None),
];

#[test]
fn a_skill_dropped_for_the_budget_is_logged_with_its_size_and_still_allows_its_tools() {
    let big_text = "Run the quarterly report, then check every figure. ".repeat(40);
    let skills = [
        skill("notes", "read_notes", "Read the notes first."),
        skill("reports", "run_report(quarterly:*)", &big_text),
        skill("short", "", "Be brief."),
    ];
    let effective = EffectiveSkills::select(&skills, TrustLevel(0));
    let budget = 200;
    let ((block, dropped), events) =
        capture_skill_events(|| compose_skill_block(&effective, budget));

    let section = format!("## Skill: reports\n\n{}\n\n", big_text.trim_end());
    assert_eq!(
        dropped,
        [Dropped {
            id: "reports".into(),
            bytes: section.len(),
        }]
    );
    assert!(block.contains("## Skill: notes") && block.contains("## Skill: short"));
    assert!(!block.contains("quarterly report"));
    assert!(block.len() <= budget);

    assert_eq!(events.len(), 1, "{events:?}");
    let warning = &events[0];
    assert_eq!(warning.level, tracing::Level::WARN);
    assert_eq!(warning.target, "tool_core::skills::block");
    assert_eq!(warning.fields["skill"], "reports");
    assert_eq!(warning.fields["bytes"], section.len());
    assert_eq!(warning.fields["byte_budget"], budget);
    let message = warning.fields["message"].as_str().unwrap();
    assert!(message.contains("byte budget"), "{message}");

    // The dropped skill's grant stands: a run with the same skills is
    // granted what only `reports` grants (without it, `run_report` is not
    // allowed at all), and nothing else is widened.
    let registry = registry_of(KNOWN);
    let allowed = Allowed::with_floor(&registry, &skills, TrustLevel(0));
    let without_reports = [skills[0].clone(), skills[2].clone()];
    let narrower = Allowed::with_floor(&registry, &without_reports, TrustLevel(0));
    assert!(!narrower.admits("run_report"));
    assert_eq!(allowed.granted(), ["read_notes", "run_report"]);
    assert!(allowed.admits_call("run_report", Some("quarterly --year 2025")));
    assert!(!allowed.admits_call("run_report", Some("payroll")));
}

#[test]
fn nothing_is_logged_when_every_skill_fits() {
    let skills = [skill("notes", "read_notes", "Read the notes first.")];
    let effective = EffectiveSkills::select(&skills, TrustLevel(0));
    let ((_, dropped), events) = capture_skill_events(|| compose_skill_block(&effective, 4096));
    assert!(dropped.is_empty());
    assert!(events.is_empty(), "{events:?}");
}

#[test]
fn every_drop_is_logged() {
    let skills = [
        skill("first", "read_notes", &"x".repeat(300)),
        skill("second", "send_mail", &"y".repeat(400)),
    ];
    let effective = EffectiveSkills::select(&skills, TrustLevel(0));
    let ((block, dropped), events) = capture_skill_events(|| compose_skill_block(&effective, 100));
    assert_eq!(block, "");
    let logged: Vec<(&Value, &Value)> = events
        .iter()
        .map(|e| (&e.fields["skill"], &e.fields["bytes"]))
        .collect();
    let expected: Vec<(Value, Value)> = dropped
        .iter()
        .map(|d| (json!(d.id), json!(d.bytes)))
        .collect();
    assert_eq!(logged.len(), 2);
    for ((skill, bytes), (want_skill, want_bytes)) in logged.iter().zip(&expected) {
        assert_eq!(*skill, want_skill);
        assert_eq!(*bytes, want_bytes);
    }
    let registry = registry_of(KNOWN);
    let allowed = Allowed::with_floor(&registry, &skills, TrustLevel(0));
    assert_eq!(allowed.granted(), ["read_notes", "send_mail"]);
}

#[test]
fn skill_block_respects_the_byte_budget() {
    let skills = [skill("a", "", "Text of a."), skill("b", "", "Text of b.")];
    let effective = EffectiveSkills::select(&skills, TrustLevel(0));
    let (all, dropped) = compose_skill_block(&effective, usize::MAX);
    assert!(dropped.is_empty());
    assert!(all.contains("Text of a.") && all.contains("Text of b."));
    let (block, dropped) = compose_skill_block(&effective, all.len() - 1);
    assert!(block.len() < all.len());
    assert_eq!(
        dropped,
        [Dropped {
            id: "b".into(),
            bytes: all.len() - block.len()
        }]
    );
}
