//! `set_file_alternative_text` against the demo site: clara reaches the
//! storage `fileadmin` (files 1–13), petra only `media` (14–20).

mod common;

use futures_executor::block_on;
use serde_json::json;
use site_model::{FileId, Files, LanguageId, MemorySite, Target};

use common::{Case, Host};

fn case() -> Case {
    Case {
        tool: "set_file_alternative_text",
        proposer: "clara",
        valid: json!({"file": 2, "alternative": "Der Commuter 500 in Schiefergrau", "language": "de", "title": "Commuter 500 (grey)"}),
        invalid: json!({"file": 2, "alternative": "Der Commuter 500", "language": "fr"}),
        invalid_says: "the site has no language `fr`",
        forbidden: json!({"file": 14, "alternative": "x"}),
        missing: json!({"file": 9999, "alternative": "x"}),
        outsider: "petra",
        history: ("files", 2),
        written: |site: &MemorySite| {
            let file = block_on(site.file(FileId(2))).unwrap();
            file.alternative
                .for_host()
                .get(&LanguageId(1))
                .map(String::as_str)
                == Some("Der Commuter 500 in Schiefergrau")
                && file
                    .alternative
                    .for_host()
                    .get(&LanguageId(0))
                    .map(String::as_str)
                    == Some("The Commuter 500 in slate grey")
                && file.title.as_ref().map(|title| title.for_host().as_str())
                    == Some("Commuter 500 (grey)")
        },
        interfere: |site| {
            common::update(
                site,
                Target::File(FileId(2)),
                "title",
                json!("Commuter 500"),
                json!("Commuter"),
            )
        },
    }
}

generic_tests!(case());

#[test]
fn the_proposal_names_the_language_and_the_replaced_text() {
    let host = Host::new("clara");
    let proposal = host
        .propose(
            "set_file_alternative_text",
            json!({"file": 1, "alternative": "Eine Radlerin", "language": "de"}),
        )
        .unwrap();
    assert_eq!(
        proposal.record,
        "file 1 (images/home/hero-ride-further.jpg)"
    );
    assert_eq!(proposal.changes[0].field, "alternative[de]");
    assert_eq!(
        proposal.changes[0].replaces,
        json!("Eine Radlerin am Weserradweg bei Sonnenuntergang")
    );
}
