//! Golden tests: every tool this host links, exported for every provider,
//! compared byte for byte with `tests/golden/<provider>.json`.
//!
//! After an intended change, regenerate with
//! `UPDATE_GOLDEN=1 cargo test -p host-example --test golden` and read the
//! diff before committing.

use std::path::PathBuf;

use serde_json::Value;
use tool_core::export::Provider;

fn golden_path(provider: Provider) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("{provider}.json"))
}

#[test]
fn every_tool_exports_as_its_golden_file_for_every_provider() {
    let registry = host_example::registry().unwrap();
    assert!(registry.len() >= 4, "the host links its tool crates");
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut stale = Vec::new();
    for provider in Provider::ALL {
        let tools: Vec<Value> = registry
            .tools()
            .iter()
            .map(|tool| tool.export(provider).clone())
            .collect();
        let actual = serde_json::to_string_pretty(&tools).unwrap() + "\n";
        let path = golden_path(provider);
        if update {
            std::fs::write(&path, &actual).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&path).unwrap_or_default();
        if expected != actual {
            stale.push(format!("{}:\n{actual}", path.display()));
        }
    }
    assert!(
        stale.is_empty(),
        "exports differ from the golden files (regenerate with UPDATE_GOLDEN=1 after checking):\n{}",
        stale.join("\n")
    );
}

#[test]
fn the_workspace_tools_export_without_issues() {
    let registry = host_example::registry().unwrap();
    assert_eq!(registry.export_issues(), []);
}
