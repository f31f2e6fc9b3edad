//! A host that only depends on tool crates sees their tools.

use std::collections::BTreeSet;
use std::process::Command;

#[test]
fn registry_holds_the_tools_of_every_linked_crate() {
    let registry = host_example::registry().unwrap();
    let names: Vec<&str> = registry.tools().iter().map(|t| t.name()).collect();
    // One tool of each crate `registry()` links: a crate whose link line
    // did nothing would be missing here, since nothing else in the host
    // names it (nor does this test, which would link it by itself).
    for expected in [
        "get_env",
        "get_env_raw",
        "get_system_status",
        "update_page_metadata",
        "create_translation_draft",
    ] {
        assert!(
            names.contains(&expected),
            "{expected} missing from {names:?}"
        );
    }
    let crates: BTreeSet<&str> = registry
        .tools()
        .iter()
        .map(|t| t.site().crate_name)
        .collect();
    assert_eq!(
        crates,
        BTreeSet::from(["tools-builtin", "tools-editing"]),
        "the registry holds the tools of exactly the linked crates"
    );
    let editing: Vec<&str> = registry
        .tools()
        .iter()
        .filter(|t| t.declaration().group == "editing")
        .map(|t| t.name())
        .collect();
    assert_eq!(editing.len(), 5, "{editing:?}");
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted);
}

#[test]
fn tools_command_prints_the_registry_as_a_table() {
    let output = Command::new(env!("CARGO_BIN_EXE_host-example"))
        .arg("tools")
        .output()
        .unwrap();
    assert!(output.status.success());
    let table = String::from_utf8(output.stdout).unwrap();
    let mut lines = table.lines();
    let header: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    assert_eq!(
        header,
        [
            "NAME", "GROUP", "EFFECT", "EGRESS", "ADMIN", "SHIPPED", "DEFINED", "AT"
        ]
    );
    let raw: Vec<&str> = table
        .lines()
        .find(|l| l.starts_with("get_env_raw "))
        .unwrap()
        .split_whitespace()
        .collect();
    assert_eq!(
        &raw[..6],
        ["get_env_raw", "system", "read", "none", "yes", "disabled"]
    );
    assert!(
        raw[6] == "tools-builtin" && raw[7].contains("env.rs:"),
        "{raw:?}"
    );
}

#[test]
fn unknown_command_prints_usage_and_fails() {
    let output = Command::new(env!("CARGO_BIN_EXE_host-example"))
        .arg("frobnicate")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .to_lowercase()
            .contains("usage")
    );
}
