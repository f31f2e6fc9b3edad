//! Properties of `tool_core::skills` that must hold for every input: nothing
//! a skill file holds can panic the host (ARCHITECTURE.md, "Invariants"),
//! and the tokenizer and the allow-list behave predictably.

mod skills_support;

use std::sync::LazyLock;

use proptest::prelude::*;
use skills_support::{Allowed, registry_of};
use tool_core::skills::{AllowedTools, SkillRef, TrustLevel, read_skill, tokenize};
use tool_core::{Registry, ScopeKind};

const KNOWN: &[(&str, Option<ScopeKind>)] = &[
    ("Read", None),
    ("Bash", Some(ScopeKind::Command)),
    ("mcp__srv__one", None),
    ("mcp__srv__two", Some(ScopeKind::Text)),
];

/// Built once: every case resolves against the same tools.
static REGISTRY: LazyLock<Registry> = LazyLock::new(|| registry_of(KNOWN));

const CALLS: &[(&str, Option<&str>)] = &[
    ("Read", None),
    ("Bash", None),
    ("Bash", Some("ls")),
    ("Bash", Some("git diff")),
    ("Bash", Some("/tmp/a/b")),
    ("mcp__srv__one", None),
    ("mcp__srv__two", Some("x y")),
    ("mcp__srv__two", None),
];

/// Text built from the characters the tokenizer and YAML treat specially.
fn tricky_text() -> impl Strategy<Value = String> {
    "[A-Za-z_:*()\\\\,. \t\n'\"\\[\\]{}&!#|>-]{0,80}"
}

fn token() -> impl Strategy<Value = String> {
    "(Read|Bash|bash|mcp__srv|mcp__srv__\\*|mcp__srv__two|Nope)(\\((ls|git diff:\\*|/tmp/\\*\\*|\\*|x y)\\))?"
}

/// Gate 6 for a run whose one skill allows `tokens`.
fn allowed(tokens: &[String]) -> Allowed<'static> {
    let skills = [SkillRef {
        id: "s".into(),
        enabled: true,
        orphaned: false,
        trust: TrustLevel(0),
        allowed_tools: AllowedTools::Declared(tokenize(&tokens.join(" ")).0),
        text: String::new(),
    }];
    Allowed::with_floor(&REGISTRY, &skills, TrustLevel(0))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn tokenizer_never_panics(text in any::<String>(), tricky in tricky_text()) {
        let _ = tokenize(&text);
        let _ = tokenize(&tricky);
    }

    #[test]
    fn front_matter_reader_never_panics(text in any::<String>(), tricky in tricky_text()) {
        let _ = read_skill(&text, "demo");
        let _ = read_skill(&format!("---\n{tricky}\n---\nbody"), "demo");
        let _ = read_skill(&format!("---\nname: demo\nallowed-tools: {tricky}\n---\n"), "demo");
        let _ = read_skill(&format!("---\n{text}\n---\n"), "demo");
    }

    #[test]
    fn rejoined_tokens_tokenize_to_the_same_tokens(text in tricky_text()) {
        let (first, _) = tokenize(&text);
        let shown: Vec<String> = first.iter().map(ToString::to_string).collect();
        let (second, diagnostics) = tokenize(&shown.join(" "));
        prop_assert!(diagnostics.is_empty(), "{:?}", diagnostics);
        let grants = |p: &[tool_core::skills::ToolPattern]| {
            p.iter().map(|t| (t.target.clone(), t.scope.clone())).collect::<Vec<_>>()
        };
        prop_assert_eq!(grants(&first), grants(&second));
    }

    #[test]
    fn adding_a_token_never_removes_a_tool(
        tokens in proptest::collection::vec(token(), 0..6),
        extra in token(),
    ) {
        let before = allowed(&tokens);
        let mut more = tokens.clone();
        more.push(extra);
        let after = allowed(&more);
        for (tool, value) in CALLS {
            prop_assert!(!before.admits(tool) || after.admits(tool));
            prop_assert!(!before.admits_call(tool, *value) || after.admits_call(tool, *value));
        }
    }
}
