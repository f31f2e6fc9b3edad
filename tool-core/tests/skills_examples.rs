//! Call examples under a skill's `metadata` (docs/skills-examples.md): each
//! is run through gate 6's resolution and scope matchers, and one that comes
//! out the other way is an error naming the token that decided it.

use tool_core::ScopeKind;
use tool_core::skills::{
    Code, Diagnostic, KnownTool, Position, Severity, check_examples, read_skill,
};

/// A host that registers `Read` (a path scope) and nothing else: `Bash`
/// is known only through the kind a skill states for it.
const KNOWN: &[KnownTool<'static>] = &[
    KnownTool {
        name: "Read",
        scope: Some(ScopeKind::Path),
    },
    KnownTool {
        name: "get_env",
        scope: None,
    },
];

/// The reader's diagnostics, then the examples' check, for a skill whose
/// front matter ends with `rest` (`allowed-tools` on line 4).
fn check(rest: &str) -> Vec<Diagnostic> {
    let text = format!(
        "---\nname: review\ndescription: Reviews diffs before a commit. Use when asked to review changes.\n{rest}\n---\nBody\n"
    );
    let report = read_skill(&text, "review");
    let manifest = report.manifest.expect("a manifest");
    let mut found = report.diagnostics;
    found.extend(check_examples(&manifest, KNOWN));
    found
}

fn codes(found: &[Diagnostic]) -> Vec<Code> {
    found.iter().map(|d| d.code).collect()
}

const GIT: &str = "allowed-tools: Bash(git diff:*) Bash(git status) Read(src/**)\nmetadata:\n  allowed-tools-kind-Bash: command";

#[test]
fn admits_example_passes() {
    let found = check(&format!(
        "{GIT}\n  allowed-tools-admits: Bash(git diff --stat) Bash(git diff) Bash(git status) Read(src/a/b.rs)"
    ));
    assert_eq!(codes(&found), [], "{found:?}");
}

#[test]
fn refuses_example_passes() {
    let found = check(&format!(
        "{GIT}\n  allowed-tools-refuses: Bash(git push) Bash(git diffx) Bash(git status --short) Read(docs/x.md) get_env"
    ));
    assert_eq!(codes(&found), [], "{found:?}");
}

#[test]
fn admits_example_that_is_refused_is_s060_naming_the_example_and_the_tokens() {
    let found = check(&format!("{GIT}\n  allowed-tools-admits: Bash(git push)"));
    assert_eq!(codes(&found), [Code::ExampleRefused], "{found:?}");
    let d = &found[0];
    assert_eq!(d.severity(), Severity::Error);
    assert_eq!(
        d.position,
        Position {
            line: 7,
            column: 25
        }
    );
    assert_eq!(
        d.message,
        "`Bash(git push)` must be admitted but is refused: no token of `Bash` admits it, read \
         as a command; its tokens are `Bash(git diff:*)`, `Bash(git status)`"
    );
}

#[test]
fn admits_example_of_a_tool_no_token_names_is_s060() {
    let found = check(&format!("{GIT}\n  allowed-tools-admits: get_env"));
    assert_eq!(codes(&found), [Code::ExampleRefused], "{found:?}");
    assert!(
        found[0]
            .message
            .contains("no token of `allowed-tools` names `get_env`"),
        "{}",
        found[0].message
    );
}

#[test]
fn refuses_example_that_is_admitted_is_s061_naming_the_pattern_that_admitted_it() {
    let found = check(&format!(
        "{GIT}\n  allowed-tools-refuses: Bash(git status) Bash(git diff --cached)"
    ));
    assert_eq!(
        codes(&found),
        [Code::ExampleAdmitted, Code::ExampleAdmitted],
        "{found:?}"
    );
    assert_eq!(
        found[1].message,
        "`Bash(git diff --cached)` must be refused but is admitted: the token \
         `Bash(git diff:*)` admits it, read as a command; narrow that token"
    );
    assert!(found[0].message.contains("the token `Bash(git status)`"));
}

#[test]
fn refuses_example_admitted_by_a_whole_tool_names_that_token() {
    let found = check(
        "allowed-tools: Bash\nmetadata:\n  allowed-tools-kind-Bash: command\n  allowed-tools-refuses: Bash(git push)",
    );
    assert_eq!(codes(&found), [Code::ExampleAdmitted], "{found:?}");
    assert!(
        found[0]
            .message
            .contains("the token `Bash` admits it, since it allows every call of the tool"),
        "{}",
        found[0].message
    );
}

#[test]
fn refuses_example_of_a_skill_without_allowed_tools_is_s061() {
    let found = check("metadata:\n  allowed-tools-refuses: Read(src/a.rs)");
    assert_eq!(codes(&found), [Code::ExampleAdmitted], "{found:?}");
    assert!(found[0].message.contains("declares no `allowed-tools`"));
}

#[test]
fn command_chaining_under_refuses_passes() {
    let found = check(&format!(
        "{GIT}\n  allowed-tools-refuses: \"Bash(git diff; rm -rf ~) Bash(git diff && id) Bash(git diff $(id)) Bash(git diff > f)\""
    ));
    assert_eq!(codes(&found), [], "{found:?}");
}

#[test]
fn command_chaining_under_admits_is_s060() {
    let found = check(&format!(
        "{GIT}\n  allowed-tools-admits: \"Bash(git diff; rm -rf ~)\""
    ));
    assert_eq!(codes(&found), [Code::ExampleRefused], "{found:?}");
}

#[test]
fn climbing_path_under_refuses_passes() {
    let found = check(&format!(
        "{GIT}\n  allowed-tools-refuses: Read(src/../.env) Read(/src/a) Read(./src/a)"
    ));
    assert_eq!(codes(&found), [], "{found:?}");
}

#[test]
fn a_registered_tools_own_kind_decides_over_the_stated_one() {
    // As text, `src/**` would admit `src/../.env`; `Read` declares a path.
    let found = check(
        "allowed-tools: Read(src/**)\nmetadata:\n  allowed-tools-kind-Read: text\n  allowed-tools-refuses: Read(src/../.env)",
    );
    assert_eq!(codes(&found), [], "{found:?}");
}

#[test]
fn escapes_and_nested_parentheses_are_read_as_in_allowed_tools() {
    let found = check(
        "allowed-tools: Bash(python -c \"print\\(1\\)\") Read\nmetadata:\n  allowed-tools-kind-Bash: text\n  allowed-tools-admits: Bash(python -c \"print\\(1\\)\")\n  allowed-tools-refuses: Bash(python -c \"print(2)\")",
    );
    assert_eq!(codes(&found), [], "{found:?}");
}

#[test]
fn malformed_example_is_s062() {
    let found = check(&format!(
        "{GIT}\n  allowed-tools-admits: Bash(git diff --stat) Bash(git diff"
    ));
    assert_eq!(codes(&found), [Code::MalformedExample], "{found:?}");
    let d = &found[0];
    assert_eq!(d.severity(), Severity::Error);
    // At the `(` that is never closed.
    assert_eq!(
        d.position,
        Position {
            line: 7,
            column: 51
        }
    );
    assert!(
        d.message
            .starts_with("an example of `metadata.allowed-tools-admits` cannot be read"),
        "{}",
        d.message
    );
    assert!(d.message.contains("S024"), "{}", d.message);
}

#[test]
fn example_naming_a_whole_server_is_s062() {
    let found = check(&format!("{GIT}\n  allowed-tools-refuses: mcp__files__*"));
    assert_eq!(codes(&found), [Code::MalformedExample], "{found:?}");
}

#[test]
fn stated_kind_that_is_no_kind_is_s062() {
    let found = check(
        "allowed-tools: Bash(git diff:*)\nmetadata:\n  allowed-tools-kind-Bash: shell\n  allowed-tools-refuses: Bash(git push)",
    );
    assert_eq!(
        codes(&found),
        [Code::MalformedExample, Code::ExampleUnchecked],
        "{found:?}"
    );
    assert!(
        found[0]
            .message
            .contains("write `command`, `path` or `text`")
    );
}

#[test]
fn unknown_kind_is_s063_warning_never_a_pass() {
    let found = check(
        "allowed-tools: Bash(git diff:*)\nmetadata:\n  allowed-tools-admits: Bash(git diff)\n  allowed-tools-refuses: Bash(git push)",
    );
    assert_eq!(
        codes(&found),
        [Code::ExampleUnchecked, Code::ExampleUnchecked],
        "{found:?}"
    );
    assert_eq!(found[0].severity(), Severity::Warning);
    assert_eq!(
        found[0].message,
        "`Bash(git diff)` is not checked: no tool named `Bash` is registered and the skill does \
         not state the kind of its scope argument; add `allowed-tools-kind-Bash: command` (or \
         `path`, `text`) under `metadata`"
    );
}

#[test]
fn examples_stay_in_metadata() {
    let text = "---\nname: review\ndescription: Reviews diffs before a commit. Use when asked to review changes.\nmetadata:\n  allowed-tools-admits: Read(src/a.rs)\n---\n";
    let manifest = read_skill(text, "review").manifest.unwrap();
    assert_eq!(
        manifest
            .metadata
            .get("allowed-tools-admits")
            .map(String::as_str),
        Some("Read(src/a.rs)")
    );
    assert_eq!(manifest.examples.examples.len(), 1);
    assert_eq!(manifest.examples.examples[0].to_string(), "Read(src/a.rs)");
}
