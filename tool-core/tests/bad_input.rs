//! Hostile or broken input, in one table: every row names what it is and
//! what must happen, and the test checks that nothing executed and nothing
//! was written.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use futures_executor::block_on;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tool_core::agent::RunState;
use tool_core::approval::{Approval, MemoryApprovals};
use tool_core::egress::{EgressGuard, Site};
use tool_core::gates::{
    Gates, Grant, HostSettings, RunConfig, RunInputs, Selection, Toggle, ToolSettings,
};
use tool_core::skills::{AllowedTools, Severity, read_skill, tokenize};
use tool_core::{
    Egress, Execute, Outcome, Proposal, ScopeKind, Tool, ToolContext, ToolError, ToolOutput,
};

use common::{Store, admin};

static EXECUTED: AtomicUsize = AtomicUsize::new(0);

/// Counts its runs; takes a bounded number and a scoped path.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    name = "counted",
    group = "delta",
    effect = "read",
    data = "public",
    scope(path = "path")
)]
#[serde(deny_unknown_fields)]
struct Counted {
    /// A file under `docs/`.
    path: String,
    /// How many, 1 to 10.
    #[schemars(range(min = 1, max = 10))]
    count: u8,
}

impl Execute for Counted {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        EXECUTED.fetch_add(1, Ordering::SeqCst);
        Ok(ToolOutput::text(format!("{} x{}", self.path, self.count)))
    }
}

/// What a row feeds in.
enum Input {
    /// An `allowed-tools` value: must give an error diagnostic.
    Token(&'static str),
    /// A whole `SKILL.md`: must not be a valid skill, and a broken
    /// `allowed-tools` must never read as "no opinion".
    FrontMatter(&'static str),
    /// Arguments of a gated call to `counted`: refused, nothing runs.
    Arguments(Value),
    /// A tool name the model sends: refused like an unknown tool.
    ToolName(&'static str),
    /// A URL a tool asks the egress guard for: refused.
    Url(&'static str),
    /// A value for a `path` scope of `docs/**`: not admitted.
    Path(&'static str),
    /// A value for a `command` scope of `git diff:*`: not admitted.
    Command(&'static str),
    /// An edit of a stored proposal: approving it writes nothing.
    Proposal(Value),
    /// A stored grant: refused when read.
    StoredGrant(&'static str),
    /// A stored run state: refused when read.
    StoredRunState(&'static str),
}

use Input::*;

fn rows() -> Vec<(&'static str, Input)> {
    vec![
        // allowed-tools tokens
        ("unanchored star", Token("*")),
        ("star prefix", Token("Bash*")),
        ("mcp star server", Token("mcp__*")),
        ("empty scope", Token("Bash()")),
        ("unclosed scope", Token("Bash(git diff")),
        ("stray close paren", Token("Bash)")),
        ("scope without a name", Token("(git diff)")),
        ("text after a scope", Token("Bash(ls)x")),
        ("scope on a whole server", Token("mcp__files(x)")),
        ("double underscore server", Token("mcp__a__b__*")),
        ("bad escape", Token("Bash\\q")),
        ("every malformed part", Token("Ba*sh(git diff \\")),
        // front matter
        ("no front matter", FrontMatter("just text")),
        ("unclosed front matter", FrontMatter("---\nname: x\n")),
        (
            "front matter not a map",
            FrontMatter("---\n- a\n- b\n---\nbody"),
        ),
        (
            "allowed-tools twice",
            FrontMatter(
                "---\nname: x\ndescription: Reads x. Use when x is needed.\nallowed-tools: Read\nallowed-tools: Bash\n---\nbody",
            ),
        ),
        (
            "allowed_tools spelling",
            FrontMatter(
                "---\nname: x\ndescription: Reads x. Use when x is needed.\nallowed_tools: Read\n---\nbody",
            ),
        ),
        (
            "allowedTools spelling",
            FrontMatter(
                "---\nname: x\ndescription: Reads x. Use when x is needed.\nallowedTools: Read\n---\nbody",
            ),
        ),
        (
            "allowed-tool spelling",
            FrontMatter(
                "---\nname: x\ndescription: Reads x. Use when x is needed.\nallowed-tool: Read\n---\nbody",
            ),
        ),
        (
            "allowed-tools a map",
            FrontMatter(
                "---\nname: x\ndescription: Reads x. Use when x is needed.\nallowed-tools:\n  Read: yes\n---\nbody",
            ),
        ),
        (
            "allowed-tools a number",
            FrontMatter(
                "---\nname: x\ndescription: Reads x. Use when x is needed.\nallowed-tools: 7\n---\nbody",
            ),
        ),
        (
            "allowed-tools a bool",
            FrontMatter(
                "---\nname: x\ndescription: Reads x. Use when x is needed.\nallowed-tools: true\n---\nbody",
            ),
        ),
        (
            "name missing",
            FrontMatter("---\ndescription: Reads x. Use when x is needed.\n---\nbody"),
        ),
        (
            "yaml alias bomb",
            FrontMatter(
                "---\nname: x\na: &a [1,1,1,1,1,1,1,1]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a]\nc: [*b,*b,*b,*b,*b,*b,*b,*b]\n---\nbody",
            ),
        ),
        (
            "tab indentation",
            FrontMatter("---\nname: x\n\tdescription: y\n---\nbody"),
        ),
        // arguments
        ("not an object", Arguments(json!("docs/a.md"))),
        ("null", Arguments(Value::Null)),
        ("an array", Arguments(json!(["docs/a.md", 1]))),
        ("missing field", Arguments(json!({"path": "docs/a.md"}))),
        ("wrong type", Arguments(json!({"path": 7, "count": 1}))),
        (
            "out of range",
            Arguments(json!({"path": "docs/a.md", "count": 11})),
        ),
        (
            "negative",
            Arguments(json!({"path": "docs/a.md", "count": -1})),
        ),
        (
            "unknown field",
            Arguments(json!({"path": "docs/a.md", "count": 1, "sudo": true})),
        ),
        (
            "path outside the scope",
            Arguments(json!({"path": "src/main.rs", "count": 1})),
        ),
        (
            "path climbing out",
            Arguments(json!({"path": "docs/../.env", "count": 1})),
        ),
        (
            "absolute path",
            Arguments(json!({"path": "/etc/passwd", "count": 1})),
        ),
        (
            "huge arguments",
            Arguments(json!({"path": "docs/a.md", "count": 1, "pad": "x".repeat(2 << 20)})),
        ),
        (
            "deep nesting",
            Arguments(
                serde_json::from_str(&format!("{}{}", "[".repeat(120), "]".repeat(120))).unwrap(),
            ),
        ),
        // tool names
        ("unknown tool", ToolName("no_such_tool")),
        ("name with a space", ToolName("counted ")),
        ("name in another case", ToolName("Counted")),
        ("name with a NUL", ToolName("counted\u{0}")),
        ("look-alike name", ToolName("cоunted")),
        // URLs
        ("foreign host", Url("https://evil.example/")),
        ("user-info", Url("https://user:pw@docs.example/")),
        ("other port", Url("https://docs.example:8443/")),
        ("file scheme", Url("file:///etc/passwd")),
        ("protocol-relative", Url("//evil.example/x")),
        ("host suffix", Url("https://docs.example.evil.example/")),
        ("javascript", Url("javascript:alert(1)")),
        // paths
        ("path absolute", Path("/docs/a.md")),
        ("path climb", Path("docs/../../etc/passwd")),
        ("path backslash", Path("docs\\..\\..\\x")),
        ("path NUL", Path("docs/a\u{0}.md")),
        ("path drive letter", Path("C:/docs/a.md")),
        ("path dot segment", Path("docs/./a.md")),
        ("path home", Path("~/docs/a.md")),
        // commands
        ("command chaining", Command("git diff; rm -rf ~")),
        ("command substitution", Command("git diff $(id)")),
        ("command backticks", Command("git diff `id`")),
        ("command redirection", Command("git diff > /etc/passwd")),
        ("command newline", Command("git diff\nid")),
        ("command unbalanced quote", Command("git diff 'x")),
        ("command pipe", Command("git diff | sh")),
        // proposals
        (
            "proposal changes edited",
            Proposal(json!({"changes": [{"field": "value", "new": "evil", "replaces": null}]})),
        ),
        (
            "proposal record edited",
            Proposal(json!({"record": "other"})),
        ),
        ("proposal tool edited", Proposal(json!({"tool": "counted"}))),
        (
            "proposal arguments edited",
            Proposal(json!({"arguments": {"record": "other", "value": "v"}})),
        ),
        (
            "proposal id edited",
            Proposal(json!({"id": "00000000000000000000000000000000"})),
        ),
        // stored grants
        (
            "grant of a newer format",
            StoredGrant(r#"{"format": 2, "tools": {}}"#),
        ),
        (
            "grant without a format",
            StoredGrant(r#"{"tools": {"counted": "whole"}}"#),
        ),
        (
            "grant with an extra field",
            StoredGrant(r#"{"format": 1, "tools": {}, "admin": true}"#),
        ),
        ("grant not an object", StoredGrant(r#"["counted"]"#)),
        (
            "grant with a bad allowance",
            StoredGrant(r#"{"format": 1, "tools": {"counted": "everything"}}"#),
        ),
        // stored run states
        (
            "run state of a newer format",
            StoredRunState(r#"{"format": 2}"#),
        ),
        (
            "run state truncated",
            StoredRunState(r#"{"format": 1, "messages": ["#),
        ),
        ("run state empty object", StoredRunState("{}")),
        ("run state not JSON", StoredRunState("\u{0}\u{1}")),
    ]
}

#[test]
fn every_hostile_input_is_refused_and_nothing_runs_or_is_written() {
    let rows = rows();
    assert!(rows.len() >= 60, "the table holds {} rows", rows.len());
    let registry = common::registry();
    let mut settings = HostSettings::default();
    settings.tools.insert(
        "b_write".into(),
        ToolSettings {
            state: Toggle::Enabled,
            ..ToolSettings::default()
        },
    );
    let config = RunConfig::default();
    let (tokens, _) = tokenize("counted(docs/**) b_write");
    let skills = [tool_core::skills::SkillRef {
        id: "scoped".into(),
        enabled: true,
        orphaned: false,
        trust: tool_core::skills::TrustLevel(5),
        allowed_tools: AllowedTools::Declared(tokens),
        text: String::new(),
    }];
    let actor = admin();
    let inputs = RunInputs {
        settings: &settings,
        actor: Some(&actor),
        config: &config,
        skills: &skills,
        selection: &Selection::All,
    };
    let gates = Gates::new(&registry, inputs);
    let grant = gates.resolve().grant;
    assert!(grant.allowance("counted").is_some() && grant.allowance("b_write").is_some());
    let store = Arc::new(Store::default());
    let cx = ToolContext::new(tool_core::RunId("bad-input".into()))
        .with_service(Arc::clone(&store))
        .with_actor(actor.clone());
    let guard = EgressGuard::new(
        Egress::OwnSite,
        vec![Site::parse("https://docs.example").unwrap()],
    );
    let Ok(Outcome::Proposed(proposal)) = block_on(gates.call(
        &grant,
        "b_write",
        json!({"record": "r1", "value": "v"}),
        &cx,
    )) else {
        panic!("b_write must propose");
    };

    for (name, input) in rows {
        let before = EXECUTED.load(Ordering::SeqCst);
        match input {
            Token(text) => {
                let (_, diagnostics) = tokenize(text);
                assert!(
                    diagnostics.iter().any(|d| d.severity() == Severity::Error),
                    "{name}: {diagnostics:?}"
                );
            }
            FrontMatter(text) => {
                let report = read_skill(text, "x");
                assert!(!report.is_valid(), "{name}: read as valid");
                if let Some(manifest) = &report.manifest
                    && text
                        .to_lowercase()
                        .replace(['_', '-'], "")
                        .contains("allowedtool")
                {
                    assert_eq!(
                        manifest.allowed_tools,
                        AllowedTools::Declared(Vec::new()),
                        "{name}: a broken allowed-tools must grant nothing"
                    );
                }
            }
            Arguments(arguments) => {
                let outcome = block_on(gates.call(&grant, "counted", arguments, &cx));
                assert!(
                    matches!(
                        outcome,
                        Err(ToolError::InvalidArguments { .. }
                            | ToolError::ArgumentsTooLarge { .. }
                            | ToolError::Refused { .. })
                    ),
                    "{name}: {outcome:?}"
                );
            }
            ToolName(tool) => {
                let outcome = block_on(gates.call(
                    &grant,
                    tool,
                    json!({"path": "docs/a.md", "count": 1}),
                    &cx,
                ));
                let error = outcome.expect_err(name);
                assert_eq!(
                    error.model_text(),
                    format!("tool `{tool}` is not available"),
                    "{name}"
                );
            }
            Url(url) => assert!(guard.check(url).is_err(), "{name}: {url} admitted"),
            Path(value) => {
                let pattern = tool_core::skills::ScopePattern::new("docs/**");
                assert!(!pattern.admits(ScopeKind::Path, value), "{name}");
            }
            Command(value) => {
                let pattern = tool_core::skills::ScopePattern::new("git diff:*");
                assert!(!pattern.admits(ScopeKind::Command, value), "{name}");
            }
            Proposal(edit) => {
                let mut stored = serde_json::to_value(&proposal).unwrap();
                for (key, value) in edit.as_object().unwrap() {
                    stored[key] = value.clone();
                }
                let edited: Proposal = serde_json::from_value(stored).unwrap();
                let approvals = MemoryApprovals::new();
                let approval = Approval {
                    registry: &registry,
                    run: inputs,
                    grant: Some(&grant),
                    store: &approvals,
                };
                // An edited id alone is a fresh decision of an unchanged
                // proposal; everything else must be refused.
                let outcome = block_on(approval.approve(&edited, &actor, &cx));
                if name != "proposal id edited" {
                    assert!(outcome.is_err(), "{name}: {outcome:?}");
                    assert!(store.0.lock().unwrap().is_empty(), "{name}: wrote");
                } else {
                    store.0.lock().unwrap().clear();
                }
            }
            StoredGrant(text) => {
                assert!(serde_json::from_str::<Grant>(text).is_err(), "{name}");
            }
            StoredRunState(text) => {
                assert!(serde_json::from_str::<RunState>(text).is_err(), "{name}");
            }
        }
        assert_eq!(
            EXECUTED.load(Ordering::SeqCst),
            before,
            "{name}: the tool ran"
        );
    }
    // The control: a good call runs, once.
    let good = block_on(gates.call(
        &grant,
        "counted",
        json!({"path": "docs/a.md", "count": 1}),
        &cx,
    ));
    assert!(good.is_ok(), "{good:?}");
    assert_eq!(EXECUTED.load(Ordering::SeqCst), 1);
}
