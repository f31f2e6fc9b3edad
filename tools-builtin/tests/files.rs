//! The `files` group as each demo person calls it: only reachable storages,
//! the neutral denial for forbidden and missing alike, caps with totals.

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;
use tool_core::Authored;

use common::{ADMIN, CLARA, EVERYONE, NILS, PETRA, assert_no_secret, call_with, cx_on, text};
use serde_json::{Value, json};
use site_model::{File, FileId, MemorySite, NOT_FOUND, StorageId};
use tool_core::Effect;

const TOOLS: [&str; 6] = [
    "list_storages",
    "browse_folder",
    "search_files",
    "read_file_meta",
    "get_file_references",
    "find_missing_files",
];

fn json_of(tool: &str, arguments: Value, name: &str) -> Value {
    let output = text(tool, arguments, name);
    assert_no_secret(tool, &output);
    serde_json::from_str(&output).unwrap_or_else(|_| panic!("{tool} as {name}: {output}"))
}

/// The storage names a person may reach in the demo.
fn storages_of(name: &str) -> &'static [&'static str] {
    match name {
        PETRA => &["media"],
        CLARA => &["fileadmin"],
        _ => &["fileadmin", "media"],
    }
}

fn storage_names(files: &Value) -> Vec<String> {
    files
        .as_array()
        .unwrap()
        .iter()
        .map(|file| file["storage"].as_str().unwrap().to_owned())
        .collect()
}

/// The demo plus `extra` files in `fileadmin/bulk/`, every third missing.
fn site_with_many_files(extra: u64) -> Arc<MemorySite> {
    let mut data = MemorySite::demo().data();
    for n in 0..extra {
        data.files.push(File {
            id: FileId(1000 + n),
            storage: StorageId(1),
            path: format!("bulk/bulk-{n:03}.jpg").into(),
            name: format!("bulk-{n:03}.jpg").into(),
            mime: "image/jpeg".into(),
            size: 1000 + n,
            title: Some(Authored::new(format!("Bulk picture {n}"))),
            alternative: Authored::new(BTreeMap::new()),
            missing: n % 3 == 0,
        });
    }
    Arc::new(MemorySite::new(data))
}

#[test]
fn the_files_tools_are_read_tools_for_everyone() {
    let registry = common::registry();
    for tool in TOOLS {
        let declaration = registry.get(tool).expect(tool).declaration();
        assert_eq!(declaration.group, tools_builtin::groups::FILES);
        assert_eq!(declaration.effect, Effect::Read);
        assert!(!declaration.requires_admin, "{tool} is for everyone");
        assert_eq!(declaration.data, tool_core::DataClass::Internal);
    }
}

#[test]
fn list_storages_lists_only_reachable_storages() {
    for name in EVERYONE {
        let result = json_of("list_storages", json!({}), name);
        let names: Vec<_> = result["storages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, storages_of(name), "{name}");
        assert_eq!(result["total"], names.len());
    }
    let nobody = json_of("list_storages", json!({}), "nobody");
    assert_eq!(nobody["total"], 0);
}

#[test]
fn browse_folder_shows_folders_then_files_with_storage_relative_paths() {
    let top = json_of("browse_folder", json!({"storage": "fileadmin"}), ADMIN);
    assert_eq!(top["folders"], json!(["documents", "images"]));
    assert_eq!(top["total"], 2);
    let documents = json_of(
        "browse_folder",
        json!({"storage": "fileadmin", "path": "documents"}),
        NILS,
    );
    let paths: Vec<_> = documents["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        paths,
        [
            "documents/price-list-2024.pdf",
            "documents/size_chart_100%.pdf",
            "documents/warranty-terms.pdf"
        ]
    );
    let output = text("browse_folder", json!({"storage": "media"}), PETRA);
    assert!(
        !output.contains("/work") && !output.contains("site-model"),
        "{output}"
    );
}

#[test]
fn browse_folder_denies_unreachable_storages_like_unknown_ones() {
    let unknown = text("browse_folder", json!({"storage": "nowhere"}), ADMIN);
    assert_eq!(unknown, NOT_FOUND);
    assert_eq!(
        text("browse_folder", json!({"storage": "fileadmin"}), PETRA),
        NOT_FOUND
    );
    assert_eq!(
        text("browse_folder", json!({"storage": "media"}), CLARA),
        NOT_FOUND
    );
    for path in ["nope", "../media", "images/../..", "images\\x"] {
        let output = text(
            "browse_folder",
            json!({"storage": "fileadmin", "path": path}),
            CLARA,
        );
        assert_eq!(output, NOT_FOUND, "{path}");
    }
}

#[test]
fn browse_folder_cuts_at_100_entries_and_reports_the_total() {
    let site = site_with_many_files(101);
    let output = call_with(
        "browse_folder",
        json!({"storage": "fileadmin", "path": "bulk"}),
        &cx_on(site, ADMIN),
    )
    .unwrap();
    let result: Value = serde_json::from_str(&output).unwrap();
    assert_eq!(result["files"].as_array().unwrap().len(), 100);
    assert_eq!(result["total"], 101);
    assert_eq!(result["truncated"], true);
    assert!(
        result["note"]
            .as_str()
            .unwrap()
            .contains("showing 100 of 101")
    );
}

#[test]
fn search_files_matches_name_title_and_alternative_text_literally() {
    let by_title = json_of("search_files", json!({"text": "urban classic"}), ADMIN);
    assert_eq!(by_title["files"][0]["id"], 3);
    let by_alternative = json_of("search_files", json!({"text": "WESERRADWEG"}), ADMIN);
    assert_eq!(by_alternative["files"][0]["id"], 1);
    // `%` and `_` are characters.
    let percent = json_of("search_files", json!({"text": "_100%"}), ADMIN);
    assert_eq!(percent["total"], 1);
    assert_eq!(percent["files"][0]["id"], 13);
    assert_eq!(
        json_of("search_files", json!({"text": "1_0%"}), ADMIN)["total"],
        0
    );
    // A folder name is not the file's name.
    assert_eq!(
        json_of("search_files", json!({"text": "documents/"}), ADMIN)["total"],
        0
    );
    // Missing files are left out: the price list and the press kit.
    assert_eq!(
        json_of("search_files", json!({"text": "price list"}), ADMIN)["total"],
        0
    );
    assert_eq!(
        json_of("search_files", json!({"text": "press kit"}), NILS)["total"],
        0
    );
}

#[test]
fn search_files_searches_only_reachable_storages() {
    for name in EVERYONE {
        let result = json_of("search_files", json!({"text": "e", "limit": 50}), name);
        for storage in storage_names(&result["files"]) {
            assert!(
                storages_of(name).contains(&storage.as_str()),
                "{name}: {storage}"
            );
        }
        assert_eq!(result["total"], result["files"].as_array().unwrap().len());
    }
    // The outlet banner is in media: clara never finds it.
    assert_eq!(
        json_of("search_files", json!({"text": "outlet"}), CLARA)["total"],
        0
    );
    assert_eq!(
        json_of("search_files", json!({"text": "outlet"}), PETRA)["total"],
        1
    );
    let forbidden = text(
        "search_files",
        json!({"text": "a", "storage": "media"}),
        CLARA,
    );
    let unknown = text(
        "search_files",
        json!({"text": "a", "storage": "archive"}),
        CLARA,
    );
    assert_eq!(forbidden, NOT_FOUND);
    assert_eq!(unknown, NOT_FOUND);
}

#[test]
fn search_files_caps_at_the_limit_and_reports_the_total() {
    let site = site_with_many_files(90);
    let search = |arguments: Value| -> Value {
        let output = call_with("search_files", arguments, &cx_on(site.clone(), ADMIN)).unwrap();
        serde_json::from_str(&output).unwrap()
    };
    // 60 of the 90 bulk files are present.
    let default = search(json!({"text": "bulk-"}));
    assert_eq!(default["files"].as_array().unwrap().len(), 20);
    assert_eq!(default["total"], 60);
    let max = search(json!({"text": "bulk-", "limit": 51}));
    assert_eq!(max["files"].as_array().unwrap().len(), 50);
    assert_eq!(max["total"], 60);
    assert!(max["note"].as_str().unwrap().contains("showing 50 of 60"));
    let exact = search(json!({"text": "bulk-00", "limit": 50}));
    assert_eq!(exact["total"], 6);
    assert_eq!(exact["truncated"], false);
}

#[test]
fn read_file_meta_reads_a_reachable_file() {
    let meta = json_of("read_file_meta", json!({"id": 1}), CLARA);
    assert_eq!(meta["storage"], "fileadmin");
    assert_eq!(meta["path"], "images/home/hero-ride-further.jpg");
    assert_eq!(meta["folder"], "images/home");
    assert_eq!(meta["title"], "Ride further");
    assert_eq!(
        meta["alternative_text_by_language_id"]["1"],
        "Eine Radlerin am Weserradweg bei Sonnenuntergang"
    );
    assert_eq!(
        json_of("read_file_meta", json!({"id": 14}), PETRA)["storage"],
        "media"
    );
}

#[test]
fn read_file_meta_denies_forbidden_and_missing_files_identically() {
    let nonexistent = text("read_file_meta", json!({"id": 9999}), ADMIN);
    assert_eq!(nonexistent, NOT_FOUND);
    // File 1 is in fileadmin (not petra's), 14 in media (not clara's).
    assert_eq!(text("read_file_meta", json!({"id": 1}), PETRA), nonexistent);
    assert_eq!(
        text("read_file_meta", json!({"id": 14}), CLARA),
        nonexistent
    );
    assert_eq!(
        text("read_file_meta", json!({"id": 9999}), PETRA),
        nonexistent
    );
    assert_eq!(
        text("read_file_meta", json!({"id": 1}), "nobody"),
        nonexistent
    );
}

#[test]
fn get_file_references_lists_uses_and_says_text_links_are_untracked() {
    for name in [ADMIN, NILS, CLARA] {
        let result = json_of("get_file_references", json!({"id": 10}), name);
        let note = result["note"].as_str().unwrap();
        assert!(note.contains("not tracked"), "{note}");
        assert!(note.contains("safe to delete"), "{note}");
    }
    let admin = json_of("get_file_references", json!({"id": 10}), ADMIN);
    assert_eq!(admin["total"], 2);
    assert_eq!(admin["not_shown_not_permitted"], 0);
    // An unused file: no references, and still the warning.
    let unused = json_of("get_file_references", json!({"id": 8}), ADMIN);
    assert_eq!(unused["total"], 0);
    assert!(
        unused["note"]
            .as_str()
            .unwrap()
            .contains("does not mean the file is unused")
    );
}

#[test]
fn get_file_references_hides_records_the_editor_may_not_see() {
    // File 2 is used by a content element and by the products table:
    // clara reads products but nils does not.
    let admin = json_of("get_file_references", json!({"id": 2}), ADMIN);
    let nils = json_of("get_file_references", json!({"id": 2}), NILS);
    let clara = json_of("get_file_references", json!({"id": 2}), CLARA);
    assert_eq!(admin["total"], 2);
    let tables = |result: &Value| -> Vec<String> {
        result["references"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["table"].as_str().unwrap().to_owned())
            .collect()
    };
    assert!(!tables(&nils).contains(&"products".to_owned()));
    assert!(tables(&clara).contains(&"products".to_owned()));
    for result in [&nils, &clara] {
        let shown = result["total"].as_u64().unwrap();
        let hidden = result["not_shown_not_permitted"].as_u64().unwrap();
        assert_eq!(shown + hidden, 2);
    }
}

#[test]
fn get_file_references_denies_forbidden_and_missing_files_identically() {
    let nonexistent = text("get_file_references", json!({"id": 9999}), NILS);
    assert_eq!(nonexistent, NOT_FOUND);
    assert_eq!(
        text("get_file_references", json!({"id": 10}), PETRA),
        nonexistent
    );
    assert_eq!(
        text("get_file_references", json!({"id": 14}), CLARA),
        nonexistent
    );
}

#[test]
fn find_missing_files_reports_reachable_missing_files_with_the_total() {
    let expected: [(&str, &[u64]); 4] = [
        (ADMIN, &[12, 15]),
        (NILS, &[12, 15]),
        (PETRA, &[15]),
        (CLARA, &[12]),
    ];
    for (name, ids) in expected {
        let result = json_of("find_missing_files", json!({}), name);
        let found: Vec<u64> = result["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["id"].as_u64().unwrap())
            .collect();
        assert_eq!(found, ids, "{name}");
        assert_eq!(result["total"], ids.len());
    }
}

#[test]
fn find_missing_files_cuts_at_the_cap_and_keeps_the_total() {
    // 101 of the 301 bulk files are missing, plus the demo's price list in
    // fileadmin and the press kit in media.
    let site = site_with_many_files(301);
    let result: Value = serde_json::from_str(
        &call_with(
            "find_missing_files",
            json!({"limit": 101}),
            &cx_on(site.clone(), ADMIN),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(result["files"].as_array().unwrap().len(), 100);
    assert_eq!(result["total"], 103);
    assert!(
        result["note"]
            .as_str()
            .unwrap()
            .contains("showing 100 of 103")
    );
    let petra: Value = serde_json::from_str(
        &call_with("find_missing_files", json!({}), &cx_on(site, PETRA)).unwrap(),
    )
    .unwrap();
    assert_eq!(petra["total"], 1);
}

#[test]
fn no_files_tool_leaks_a_secret_or_a_server_path() {
    let root = site_model::demo::source_root();
    let root = root.to_string_lossy();
    for name in EVERYONE {
        for (tool, arguments) in [
            ("list_storages", json!({})),
            (
                "browse_folder",
                json!({"storage": "fileadmin", "path": "images/products"}),
            ),
            (
                "browse_folder",
                json!({"storage": "media", "path": "press"}),
            ),
            ("search_files", json!({"text": "e", "limit": 50})),
            ("read_file_meta", json!({"id": 14})),
            ("get_file_references", json!({"id": 14})),
            ("find_missing_files", json!({})),
        ] {
            let output = text(tool, arguments, name);
            assert_no_secret(tool, &output);
            assert!(!output.contains(&*root), "{tool} showed the server path");
        }
    }
}
