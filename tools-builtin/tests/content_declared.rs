//! Every tool of this workspace's tool crates says whether its output can
//! carry text written by others (`content = "trusted" | "untrusted"`,
//! gate 9, docs/exposure.md): absent counts as untrusted, which is safe,
//! but the choice should be written down where the tool is declared.

use std::path::Path;

/// The `#[tool(...)]` attributes under `dir`, with their file and line.
fn attributes(dir: &Path, found: &mut Vec<(String, usize, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            attributes(&path, found);
            continue;
        }
        if path.extension().is_none_or(|ext| ext != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (at, _) in text.match_indices("#[tool(") {
            let end = text[at..].find(")]\n").map_or(text.len(), |end| at + end);
            let line = text[..at].lines().count() + 1;
            found.push((path.display().to_string(), line, text[at..end].to_owned()));
        }
    }
}

#[test]
fn every_built_in_tool_declares_its_content() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = Vec::new();
    for krate in ["tools-builtin", "tools-editing"] {
        attributes(&root.join(krate).join("src"), &mut found);
    }
    // 29 read tools (two of them the `rag` group's) and 5 writing tools.
    assert_eq!(found.len(), 34, "{found:#?}");
    let undeclared: Vec<_> = found
        .iter()
        .filter(|(_, _, attribute)| {
            !attribute.contains("content = \"trusted\"")
                && !attribute.contains("content = \"untrusted\"")
        })
        .map(|(file, line, _)| format!("{file}:{line}"))
        .collect();
    assert!(
        undeclared.is_empty(),
        "no `content` declared: {undeclared:?}"
    );
}

#[test]
fn every_registered_built_in_tool_is_classified_as_declared() {
    tools_builtin::link();
    let registry = tool_core::Registry::linked().unwrap();
    let content = |name: &str| registry.get(name).unwrap().declaration().content;
    assert_eq!(content("get_page_content"), tool_core::Content::Untrusted);
    assert_eq!(content("fetch_logs"), tool_core::Content::Untrusted);
    assert_eq!(content("probe_url"), tool_core::Content::Untrusted);
    assert_eq!(content("browse_folder"), tool_core::Content::Untrusted);
    assert_eq!(content("get_system_status"), tool_core::Content::Trusted);
    assert_eq!(content("list_tables"), tool_core::Content::Trusted);
    assert_eq!(content("site_rag_query"), tool_core::Content::Untrusted);
    assert_eq!(content("site_fetch_source"), tool_core::Content::Untrusted);
}
