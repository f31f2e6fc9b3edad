//! `create_translation_draft` against the demo site: 128 is the highest
//! page id and 100 the highest element id; Service (19) has a German
//! translation (119), Repairs (20) none.

mod common;

use futures_executor::block_on;
use serde_json::json;
use site_model::{ElementId, LanguageId, MemorySite, PageId, Pages, Target};

use common::{Case, Host};

fn case() -> Case {
    Case {
        tool: "create_translation_draft",
        proposer: "clara",
        valid: json!({"kind": "page", "id": 20, "language": "de", "title": "Reparaturen", "body": "Wir reparieren jedes Rad."}),
        invalid: json!({"kind": "page", "id": 20, "language": "fr", "title": "Réparations"}),
        invalid_says: "no translation language `fr`",
        forbidden: json!({"kind": "page", "id": 2, "language": "de", "title": "Produkte"}),
        missing: json!({"kind": "page", "id": 9999, "language": "de", "title": "Produkte"}),
        outsider: "nils",
        history: ("pages", 129),
        written: |site: &MemorySite| {
            let page = block_on(site.page(PageId(129))).unwrap();
            page.hidden
                && page.title == "Reparaturen"
                && page.translation_of == Some(PageId(20))
                && page.language == LanguageId(1)
        },
        interfere: |site| {
            common::update(
                site,
                Target::Page(PageId(20)),
                "slug",
                json!("repairs"),
                json!("repair"),
            )
        },
    }
}

generic_tests!(case());

#[test]
fn an_existing_translation_is_replaced_and_stays_recoverable() {
    let host = Host::new("clara");
    let proposal = host
        .propose(
            "create_translation_draft",
            json!({"kind": "page", "id": 19, "language": "de", "title": "Kundendienst"}),
        )
        .unwrap();
    assert!(
        proposal
            .summary
            .contains("replaces the existing one, page 119"),
        "{}",
        proposal.summary
    );
    let title = proposal
        .changes
        .iter()
        .find(|c| c.field == "title")
        .unwrap();
    assert_eq!(
        (&title.new, &title.replaces),
        (&json!("Kundendienst"), &json!("Service"))
    );
    host.approve(&proposal, "admin").unwrap();
    let old = block_on(host.site.page(PageId(119))).unwrap();
    assert!(old.deleted, "soft-deleted, still stored");
    assert_eq!(old.title, "Service");
    let history = host.history("pages", 119);
    assert_eq!(history[0].action, site_model::HistoryAction::Deleted);
    assert_eq!(history[0].approved_by, Some("admin".into()));
    let new = block_on(host.site.page(PageId(129))).unwrap();
    assert!(new.hidden && new.title == "Kundendienst");
}

#[test]
fn an_element_is_translated_on_its_page_hidden() {
    let host = Host::new("clara");
    let proposal = host
        .propose("create_translation_draft", json!({"kind": "element", "id": 54, "language": "de", "title": "Reparaturen", "body": "<p>Alle Marken.</p>"}))
        .unwrap();
    host.approve(&proposal, "admin").unwrap();
    let element = block_on(host.site.element(ElementId(101))).unwrap();
    assert!(element.hidden);
    assert_eq!(element.translation_of, Some(ElementId(54)));
    assert_eq!(element.page, PageId(20));
    assert_eq!(element.header, "Reparaturen");
}

#[test]
fn a_translation_is_made_from_the_default_language() {
    let host = Host::new("clara");
    let error = host
        .propose(
            "create_translation_draft",
            json!({"kind": "page", "id": 119, "language": "de", "title": "x"}),
        )
        .unwrap_err();
    assert!(
        error.model_text().contains("default language"),
        "{}",
        error.model_text()
    );
}
