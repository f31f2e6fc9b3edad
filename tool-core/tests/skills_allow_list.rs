//! Gate 6 on the path production uses: the grant a run's skills give it
//! and the call check, over a registry of the tools each test names.

mod skills_support;

use skills_support::*;
use tool_core::ScopeKind;
use tool_core::skills::{EffectiveSkills, TrustLevel};

#[test]
fn no_declaring_skill_means_no_opinion() {
    let registry = registry_of(KNOWN);
    let allowed = Allowed::new(&registry, &[skill("a", None), skill("b", None)]);
    assert!(allowed.no_opinion());
    assert!(Allowed::new(&registry, &[]).no_opinion());
}

#[test]
fn declared_empty_list_allows_nothing() {
    let registry = registry_of(KNOWN);
    let allowed = Allowed::new(&registry, &[skill("a", None), skill("b", Some(""))]);
    assert!(!allowed.admits("Read"));
    assert!(allowed.allows_nothing());
}

#[test]
fn allow_list_is_the_union_of_declared_lists() {
    let registry = registry_of(KNOWN);
    let allowed = Allowed::new(
        &registry,
        &[
            skill("a", Some("Read")),
            skill("b", Some("mcp__srv")),
            skill("c", None),
        ],
    );
    assert_eq!(
        allowed.granted(),
        ["Read", "mcp__srv__one", "mcp__srv__two"]
    );
}

#[test]
fn ineffective_skills_do_not_count() {
    let mut disabled = skill("a", Some("Read"));
    disabled.enabled = false;
    let mut orphaned = skill("b", Some("Read"));
    orphaned.orphaned = true;
    let mut untrusted = skill("c", Some("Read"));
    untrusted.trust = TrustLevel(0);
    let registry = registry_of(KNOWN);
    assert!(Allowed::new(&registry, &[disabled, orphaned, untrusted]).no_opinion());
}

#[test]
fn duplicate_skill_ids_count_once() {
    let skills = [skill("a", Some("Read")), skill("a", Some("Bash"))];
    let effective = EffectiveSkills::select(&skills, TrustLevel(0));
    assert_eq!(effective.iter().count(), 1);
    let registry = registry_of(KNOWN);
    let allowed = Allowed::with_floor(&registry, &skills, TrustLevel(0));
    assert_eq!(allowed.granted(), ["Read"]);
}

#[test]
fn unknown_names_never_widen_the_list() {
    let registry = registry_of(KNOWN);
    let allowed = Allowed::new(&registry, &[skill("a", Some("Nope mcp__ghost Read(/x)"))]);
    assert!(allowed.allows_nothing());
}

#[test]
fn whole_grant_admits_any_call() {
    let registry = registry_of(KNOWN);
    let allowed = Allowed::new(&registry, &[skill("a", Some("Bash(ls) Bash"))]);
    assert!(allowed.admits_call("Bash", Some("rm -rf /")));
    assert!(allowed.admits_call("Bash", None));
}

#[test]
fn scoped_grant_admits_only_matching_calls() {
    let registry = registry_of(KNOWN);
    let allowed = Allowed::new(
        &registry,
        &[
            skill("a", Some("Bash(git diff:*)")),
            skill("b", Some("Bash(ls)")),
        ],
    );
    assert!(allowed.admits("Bash"));
    assert!(allowed.admits_call("Bash", Some("git diff --stat")));
    assert!(allowed.admits_call("Bash", Some("ls")));
    assert!(!allowed.admits_call("Bash", Some("git push")));
}

#[test]
fn missing_scope_value_matches_no_scope() {
    let registry = registry_of(KNOWN);
    let allowed = Allowed::new(
        &registry,
        &[
            skill("a", Some("Bash(*)")),
            skill("b", Some("mcp__srv__two(x)")),
        ],
    );
    assert!(allowed.admits_call("Bash", None));
    assert!(allowed.admits_call("mcp__srv__two", Some("x")));
    assert!(!allowed.admits_call("mcp__srv__two", None));
}

#[test]
fn scope_on_unscoped_tool_grants_nothing() {
    let registry = registry_of(KNOWN);
    let allowed = Allowed::new(&registry, &[skill("a", Some("Read(/tmp/**)"))]);
    assert!(!allowed.admits("Read"));
    assert!(!allowed.admits_call("Read", Some("/tmp/x")));
}

// ---- server-wide grants name one server ----

/// Servers whose names start like `files`; each has a tool `read`.
const NEIGHBOURS: &[(&str, Option<ScopeKind>)] = &[
    ("mcp__files__read", None),
    ("mcp__files__write", None),
    ("mcp__files___read", None),
    ("mcp__files-x__read", None),
    ("mcp__filesX__read", None),
    ("mcp__files_x__read", None),
    ("mcp__filesystem__read", None),
];

/// The tools that `allowed-tools: {tokens}` lets through among the neighbours.
fn granted(tokens: &str) -> Vec<String> {
    let registry = registry_of(NEIGHBOURS);
    let allowed = Allowed::new(&registry, &[skill("a", Some(tokens))]);
    assert!(!allowed.no_opinion(), "{tokens}");
    allowed.granted()
}

#[test]
fn server_grant_does_not_reach_servers_that_start_the_same_way() {
    for tokens in ["mcp__files", "mcp__files__*"] {
        assert_eq!(
            granted(tokens),
            ["mcp__files__read", "mcp__files__write"],
            "{tokens}"
        );
    }
}

#[test]
fn server_part_may_end_in_an_underscore() {
    // `mcp__files___read` is the tool `read` of `files_`, not `_read` of `files`.
    for tokens in ["mcp__files_", "mcp__files___*"] {
        assert_eq!(granted(tokens), ["mcp__files___read"], "{tokens}");
    }
}

#[test]
fn server_part_may_hold_single_underscores() {
    assert_eq!(granted("mcp__files_x"), ["mcp__files_x__read"]);
    assert_eq!(granted("mcp__files_x__*"), ["mcp__files_x__read"]);
}

#[test]
fn server_part_keeps_hyphens_and_capitals_exactly() {
    assert_eq!(granted("mcp__files-x"), ["mcp__files-x__read"]);
    assert_eq!(granted("mcp__filesX"), ["mcp__filesX__read"]);
    assert_eq!(granted("mcp__filesystem"), ["mcp__filesystem__read"]);
    assert!(granted("mcp__Files mcp__file mcp__files-").is_empty());
}

#[test]
fn server_grant_still_matches_its_own_tools() {
    // `mcp__files__` is a prefix of `mcp__files__read`, and that tool is the
    // server's: the exact match must not lose it.
    let registry = registry_of(NEIGHBOURS);
    let allowed = Allowed::new(&registry, &[skill("a", Some("mcp__files"))]);
    assert!(allowed.admits("mcp__files__read"));
    assert!(allowed.admits_call("mcp__files__read", Some("anything")));
    assert!(!allowed.admits("mcp__files___read"));
    assert!(!allowed.admits("mcp__files_x__read"));
}
