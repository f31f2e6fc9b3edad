//! `move_content_element` against the demo site: clara edits the Service
//! pages (19 and below), not Products (2).

mod common;

use futures_executor::block_on;
use serde_json::json;
use site_model::{ColumnId, ElementId, MemorySite, PageId, Pages, Target};

use common::{Case, Host};

fn case() -> Case {
    Case {
        tool: "move_content_element",
        proposer: "clara",
        // "Workshop phone" from Repairs' sidebar to Warranty's main column,
        // between its two elements.
        valid: json!({"element": 62, "page": 21, "column": 0, "after": 56}),
        invalid: json!({"element": 62, "page": 21, "column": 7, "after": 56}),
        invalid_says: "the page layout has no such column",
        forbidden: json!({"element": 8, "page": 21, "column": 0}),
        missing: json!({"element": 9999, "page": 21, "column": 0}),
        outsider: "nils",
        history: ("content", 62),
        written: |site: &MemorySite| {
            let element = block_on(site.element(ElementId(62))).unwrap();
            element.page == PageId(21) && element.column == ColumnId(0) && element.sorting == 384
        },
        interfere: |site| {
            common::update(
                site,
                Target::Element(ElementId(62)),
                "sorting",
                json!(256),
                json!(300),
            )
        },
    }
}

generic_tests!(case());

#[test]
fn the_proposal_shows_the_destination_in_words() {
    let host = Host::new("clara");
    let proposal = host.propose("move_content_element", case().valid).unwrap();
    assert_eq!(proposal.record, "content element 62 \"Workshop phone\"");
    assert_eq!(
        proposal.summary,
        "Approving moves content element 62 \"Workshop phone\" from page 20 \"Repairs\" (/service/repairs), column Sidebar, to page 21 \"Warranty\" (/service/warranty), column Main, after content element 56 \"Warranty\"."
    );
}

#[test]
fn the_actor_needs_edit_rights_on_the_target_page_too() {
    let host = Host::new("clara");
    let to_products = host
        .propose(
            "move_content_element",
            json!({"element": 62, "page": 2, "column": 0}),
        )
        .unwrap_err();
    assert_eq!(to_products.model_text(), site_model::NOT_FOUND);
}

#[test]
fn first_puts_it_before_every_element_of_the_column() {
    let host = Host::new("clara");
    let proposal = host
        .propose(
            "move_content_element",
            json!({"element": 57, "page": 21, "column": 0}),
        )
        .unwrap();
    host.approve(&proposal, "admin").unwrap();
    let elements = block_on(host.site.elements(PageId(21))).unwrap();
    assert_eq!(elements[0].id, ElementId(57));
}
