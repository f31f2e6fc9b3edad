//! `create_content_element_draft` against the demo site (100 elements, so
//! the draft is element 101).

mod common;

use futures_executor::block_on;
use serde_json::json;
use site_model::{ElementId, MemorySite, Pages};
use tools_editing::ElementTypes;

use common::{Case, Host};

fn case() -> Case {
    Case {
        tool: "create_content_element_draft",
        proposer: "clara",
        valid: json!({"page": 20, "column": 0, "ctype": "text", "header": "Opening hours", "body": "<p>Mon–Fri 9–18</p>", "after": 54}),
        invalid: json!({"page": 20, "column": 0, "ctype": "html", "header": "Opening hours"}),
        invalid_says: "type `html` is not allowed here",
        forbidden: json!({"page": 2, "column": 0, "ctype": "text", "header": "x"}),
        missing: json!({"page": 9999, "column": 0, "ctype": "text", "header": "x"}),
        outsider: "nils",
        history: ("content", 101),
        written: |site: &MemorySite| {
            let element = block_on(site.element(ElementId(101))).unwrap();
            element.hidden && element.header == "Opening hours" && element.sorting == 384
        },
        // Another element is created first: the draft's id is taken.
        interfere: |site| {
            use site_model::{ChangeSet, Changes, Operation, Target};
            let mut values = site_model::Fields::new();
            for (field, value) in [
                ("page", json!(20)),
                ("column", json!(1)),
                ("sorting", json!(512)),
                ("ctype", json!("text")),
                ("header", json!("Other")),
                ("body", json!("")),
                ("hidden", json!(false)),
                ("deleted", json!(false)),
                ("language", json!(0)),
                ("translation_of", json!(null)),
            ] {
                values.insert(field.into(), value);
            }
            block_on(site.apply(ChangeSet {
                operations: vec![Operation::Insert {
                    target: Target::Element(ElementId(101)),
                    values,
                }],
                history: Vec::new(),
            }))
            .unwrap();
        },
    }
}

generic_tests!(case());

#[test]
fn the_proposal_shows_every_field_of_the_new_element() {
    let host = Host::new("clara");
    let proposal = host
        .propose("create_content_element_draft", case().valid)
        .unwrap();
    let fields: Vec<&str> = proposal.changes.iter().map(|c| c.field.as_str()).collect();
    assert_eq!(
        fields,
        [
            "id",
            "page",
            "column",
            "sorting",
            "ctype",
            "header",
            "body",
            "hidden",
            "deleted",
            "language",
            "translation_of"
        ]
    );
    assert!(proposal.changes.iter().all(|c| c.replaces.is_null()));
    assert_eq!(proposal.changes[7].new, json!(true), "always hidden");
    assert_eq!(
        proposal.record,
        "new content element 101 on page 20 \"Repairs\" (/service/repairs), column Main"
    );
}

#[test]
fn the_hosts_allow_list_decides_the_types() {
    let mut host = Host::new("clara");
    host.extra = Some(|cx| cx.with_service(ElementTypes(vec!["html".into()])));
    let args = |ctype: &str| json!({"page": 20, "column": 0, "ctype": ctype, "header": "x"});
    assert!(
        host.propose("create_content_element_draft", args("html"))
            .is_ok()
    );
    let refused = host
        .propose("create_content_element_draft", args("text"))
        .unwrap_err();
    assert!(
        refused.model_text().contains("not allowed"),
        "{}",
        refused.model_text()
    );
}
