//! A skill's tool names against the registered tools (S040–S042).

use tool_core::ScopeKind;
use tool_core::skills::{AllowedTools, Code, Diagnostic, KnownTool, check_allowed_tools, tokenize};

// ---- registry check ----

const KNOWN: &[KnownTool<'static>] = &[
    KnownTool {
        name: "Read",
        scope: None,
    },
    KnownTool {
        name: "Bash",
        scope: Some(ScopeKind::Command),
    },
    KnownTool {
        name: "mcp__srv__one",
        scope: None,
    },
    KnownTool {
        name: "mcp__srv__two",
        scope: Some(ScopeKind::Text),
    },
    KnownTool {
        name: "mcp__other__x",
        scope: None,
    },
];

fn check(text: &str) -> Vec<Diagnostic> {
    let (tokens, _) = tokenize(text);
    check_allowed_tools(&AllowedTools::Declared(tokens), KNOWN)
}

#[test]
fn registered_tokens_resolve() {
    assert!(check("Read Bash(git:*) mcp__srv__one mcp__srv").is_empty());
}

#[test]
fn unresolved_tool_is_reported_with_a_near_name() {
    let d = check("Raed");
    assert_eq!(d[0].code, Code::UnresolvedTool);
    assert!(
        d[0].message.contains("did you mean `Read`"),
        "{}",
        d[0].message
    );
    assert!(!check("Zebra")[0].message.contains("did you mean"));
}

#[test]
fn case_slip_suggests_the_registered_name() {
    let d = check("bash");
    assert_eq!(d[0].code, Code::UnresolvedTool);
    assert!(
        d[0].message
            .contains("did you mean `Bash`? (names are case-sensitive)")
    );
}

#[test]
fn scope_on_tool_without_scope_field_is_unresolved() {
    let d = check("Read(/tmp/**)");
    assert_eq!(d[0].code, Code::UnenforceableScope);
}

#[test]
fn unknown_mcp_server_is_unresolved() {
    let d = check("mcp__SRV__*");
    assert_eq!(d[0].code, Code::UnresolvedServer);
    assert!(d[0].message.contains("did you mean `srv`"));
}

/// Servers whose names start like `files`; each has a tool `read`.
const NEIGHBOURS: &[KnownTool<'static>] = &[
    KnownTool {
        name: "mcp__files__read",
        scope: None,
    },
    KnownTool {
        name: "mcp__files__write",
        scope: None,
    },
    KnownTool {
        name: "mcp__files___read",
        scope: None,
    },
    KnownTool {
        name: "mcp__files-x__read",
        scope: None,
    },
    KnownTool {
        name: "mcp__filesX__read",
        scope: None,
    },
    KnownTool {
        name: "mcp__files_x__read",
        scope: None,
    },
    KnownTool {
        name: "mcp__filesystem__read",
        scope: None,
    },
];

#[test]
fn server_grant_with_no_exact_tool_is_unresolved() {
    let (tokens, _) = tokenize("mcp__file mcp__files_");
    let d = check_allowed_tools(&AllowedTools::Declared(tokens), NEIGHBOURS);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].code, Code::UnresolvedServer);
    assert!(d[0].message.contains("`file`"), "{}", d[0].message);
}
