//! Every read tool, with every argument the demo data makes meaningful:
//! the walk the secrets test and the provenance test share.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use futures_executor::block_on;
use serde_json::{Value, json};
use site_model::{Site, SiteData, public_sources};
use tools_builtin::rag::{PublicIndex, SubstringIndex};
use tools_builtin::system::Environment;

/// Tools this walk leaves out, and why.
pub const NOT_WALKED: [(&str, &str); 2] = [
    // Its purpose is the raw values; it ships disabled and is for
    // administrators only.
    ("get_env_raw", "the raw variant"),
    // Needs a live site to probe; tests/system.rs checks its redaction
    // against a loopback server.
    ("probe_url", "needs a server"),
];

/// Queries that each start a secret of the demo data, or name the kind.
const PROBES: [&str; 12] = [
    "DEMO-SECRET",
    "sk_live",
    "ghp_",
    "AKIA",
    "whsec_",
    "password",
    "secret",
    "token",
    "BEGIN",
    "argon2",
    "otpauth",
    "Bearer",
];

fn source_files(root: &Path, prefix: &str, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(root).unwrap() {
        let entry = entry.unwrap();
        let name = format!("{prefix}{}", entry.file_name().to_string_lossy());
        if entry.file_type().unwrap().is_dir() {
            source_files(&entry.path(), &format!("{name}/"), out);
        } else {
            out.push(name);
        }
    }
}

/// The arguments to try per tool; the folders browsed are those `data`'s
/// files are in.
pub fn arguments(data: &SiteData) -> Vec<(&'static str, Value)> {
    let tables = ["news", "products", "api_clients", "nope"];
    let mut calls: Vec<(&str, Value)> = vec![
        ("get_system_status", json!({})),
        ("list_tables", json!({})),
        ("list_storages", json!({})),
        ("validate_schema", json!({})),
        ("find_missing_files", json!({"limit": 100})),
        ("list_users", json!({"limit": 200})),
        ("list_users_raw", json!({"limit": 200})),
        ("list_groups", json!({})),
        ("get_site_config", json!({})),
        ("get_pagetree", json!({"depth": 10})),
        ("get_env", json!({})),
        ("fetch_logs", json!({"limit": 50})),
        ("fetch_logs", json!({"level": "debug", "limit": 50})),
    ];
    for level in ["error", "warning", "notice", "info"] {
        calls.push(("fetch_logs", json!({"level": level, "limit": 50})));
    }
    for index in 0..8 {
        calls.push(("get_last_error", json!({"index": index})));
    }
    for site in ["main", "outlet", "nope"] {
        calls.push(("get_site_config", json!({"site": site})));
        calls.push((
            "resolve_url",
            json!({"url": format!("https://{site}.example/")}),
        ));
    }
    for table in tables {
        calls.push(("get_table_schema", json!({"table": table})));
        calls.push(("validate_schema", json!({"table": table})));
        calls.push(("read_records", json!({"table": table, "limit": 50})));
        for id in 1..=12 {
            calls.push((
                "get_record_history",
                json!({"table": table, "id": id, "limit": 50}),
            ));
        }
    }
    for page in 0..=45 {
        calls.push(("get_page_content", json!({"page": page})));
        calls.push(("get_pagetree", json!({"root": page, "depth": 10})));
    }
    for page in (0..=45).chain(100..=135) {
        calls.push(("site_fetch_source", json!({"id": format!("page:{page}")})));
    }
    for file in 0..=22 {
        calls.push(("site_fetch_source", json!({"id": format!("file:{file}")})));
        calls.push(("read_file_meta", json!({"id": file})));
        calls.push(("get_file_references", json!({"id": file})));
    }
    let folders: BTreeSet<&str> = data
        .files
        .iter()
        .flat_map(|file| {
            let path = file.path.for_host();
            path.match_indices('/').map(|(end, _)| &path[..end])
        })
        .collect();
    for storage in ["fileadmin", "media", "nope"] {
        calls.push(("browse_folder", json!({"storage": storage})));
        for folder in folders.iter().chain(&["nope"]) {
            calls.push(("browse_folder", json!({"storage": storage, "path": folder})));
        }
    }
    for probe in PROBES {
        calls.push(("search_records", json!({"query": probe, "limit": 50})));
        calls.push(("search_files", json!({"text": probe, "limit": 50})));
        calls.push(("site_rag_query", json!({"question": probe, "limit": 10})));
        calls.push(("search_code", json!({"pattern": probe})));
        calls.push((
            "search_code",
            json!({"pattern": probe, "ignore_case": true}),
        ));
    }
    calls.push(("search_code", json!({"pattern": ".", "regex": true})));
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../site-model/demo/src");
    let mut files = Vec::new();
    source_files(&root, "", &mut files);
    for file in files {
        calls.push(("read_source", json!({"path": file, "count": 500})));
    }
    calls
}

/// The demo's `.env`, as a host's environment would hold it.
pub fn environment() -> Environment {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../site-model/demo/src/.env");
    let text = std::fs::read_to_string(root).unwrap();
    Environment(
        text.lines()
            .filter_map(|line| line.split_once('='))
            .map(|(name, value)| (name.trim().to_owned(), value.trim().to_owned()))
            .collect(),
    )
}

/// The `rag` tools' index: substrings over what the public may read of
/// `site`.
pub fn public_index(site: &dyn Site) -> Arc<dyn PublicIndex> {
    let sources = block_on(public_sources(site)).unwrap();
    Arc::new(SubstringIndex::new(sources))
}
