//! `update_page_metadata` against the demo site: clara edits the Service
//! pages (19 and below), not Products (2).

mod common;

use futures_executor::block_on;
use serde_json::json;
use site_model::{MemorySite, PageId, Pages, Target};

use common::{Case, Host};

fn case() -> Case {
    Case {
        tool: "update_page_metadata",
        proposer: "clara",
        valid: json!({"page": 20, "title": "Repairs and servicing", "slug": "repairs-servicing"}),
        invalid: json!({"page": 20, "title": "Repairs and servicing", "slug": "warranty"}),
        invalid_says: "`slug` is taken by a sibling of the page",
        forbidden: json!({"page": 2, "title": "Bikes"}),
        missing: json!({"page": 9999, "title": "Bikes"}),
        outsider: "nils",
        history: ("pages", 20),
        written: |site: &MemorySite| {
            let page = block_on(site.page(PageId(20))).unwrap();
            page.title == "Repairs and servicing" && page.slug == "repairs-servicing"
        },
        interfere: |site| {
            common::update(
                site,
                Target::Page(PageId(20)),
                "title",
                json!("Repairs"),
                json!("Repair shop"),
            )
        },
    }
}

generic_tests!(case());

#[test]
fn the_proposal_names_the_page_and_each_replaced_value() {
    let host = Host::new("clara");
    let proposal = host.propose("update_page_metadata", case().valid).unwrap();
    assert_eq!(proposal.record, "page 20 \"Repairs\" (/service/repairs)");
    let fields: Vec<(&str, &serde_json::Value, &serde_json::Value)> = proposal
        .changes
        .iter()
        .map(|c| (c.field.as_str(), &c.new, &c.replaces))
        .collect();
    assert_eq!(
        fields,
        [
            ("title", &json!("Repairs and servicing"), &json!("Repairs")),
            ("slug", &json!("repairs-servicing"), &json!("repairs")),
        ]
    );
}

#[test]
fn a_field_outside_the_allow_list_refuses_the_call() {
    let host = Host::new("clara");
    let error = host
        .propose(
            "update_page_metadata",
            json!({"page": 20, "title": "X", "deleted": true}),
        )
        .unwrap_err();
    assert!(
        error.model_text().contains("deleted"),
        "{}",
        error.model_text()
    );
}

#[test]
fn a_malformed_slug_is_refused() {
    let host = Host::new("clara");
    for slug in ["Repairs", "a--b", "-a", "a b", ""] {
        let error = host
            .propose("update_page_metadata", json!({"page": 20, "slug": slug}))
            .unwrap_err();
        assert!(
            error
                .model_text()
                .contains("`slug` must be lower-case letters and digits"),
            "{slug}: {}",
            error.model_text()
        );
    }
}

#[test]
fn hiding_a_page_is_a_metadata_change_that_waits_for_approval() {
    let host = Host::new("clara");
    let proposal = host
        .propose("update_page_metadata", json!({"page": 21, "hidden": true}))
        .unwrap();
    let fields: Vec<(&str, &serde_json::Value, &serde_json::Value)> = proposal
        .changes
        .iter()
        .map(|c| (c.field.as_str(), &c.new, &c.replaces))
        .collect();
    assert_eq!(fields, [("hidden", &json!(true), &json!(false))]);
    let unchanged = host
        .propose("update_page_metadata", json!({"page": 21, "hidden": false}))
        .unwrap_err();
    assert!(unchanged.model_text().contains("nothing to change"));
}
