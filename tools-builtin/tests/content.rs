//! The `content` tools against the demo site, as its administrator and as
//! each editor.

mod common;

use common::*;
use serde_json::{Value, json};
use site_model::{
    ContentElement, ElementId, FieldChange, FieldKind, FieldSchema, HistoryAction, HistoryEntry,
    LanguageId, NOT_FOUND, PageId, Record, Timestamp,
};
use tool_core::Authored;

fn denial(tool: &str, arguments: Value, name: &str) -> tool_core::ToolError {
    let error = call(tool, arguments, name).expect_err("refused");
    assert_eq!(error.model_text(), NOT_FOUND);
    error
}

fn hits(result: &Value) -> Vec<String> {
    result["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|hit| hit["record"].as_str().unwrap().to_owned())
        .collect()
}

fn search(query: &str, name: &str) -> Vec<String> {
    hits(&json("search_records", json!({"query": query}), name))
}

fn news(id: u64, title: &str) -> Record {
    Record {
        table: "news".into(),
        id,
        values: [
            ("title".to_owned(), json!(title)),
            ("deleted".to_owned(), json!(false)),
        ]
        .into_iter()
        .collect(),
    }
}

#[test]
fn declarations_are_for_everyone_in_the_content_group() {
    let registry = registry();
    for name in [
        "search_records",
        "get_page_content",
        "read_records",
        "get_record_history",
    ] {
        let declaration = registry.get(name).unwrap().declaration();
        assert_eq!(declaration.group, tools_builtin::groups::CONTENT);
        assert!(!declaration.requires_admin, "{name} is for everyone");
    }
}

#[test]
fn search_finds_hits_in_readable_tables_only() {
    assert_eq!(search("helmet", ADMIN), ["news:3", "products:7"]);
    assert_eq!(search("helmet", PETRA), ["products:7"]);
    assert_eq!(search("helmet", NILS), ["news:3"]);
    assert_eq!(search("helmet", CLARA), ["news:3", "products:7"]);
    let result = json("search_records", json!({"query": "20%"}), ADMIN);
    assert_eq!(result["hits"][0]["field"], "title");
    assert!(
        result["hits"][0]["excerpt"]
            .as_str()
            .unwrap()
            .contains("Save 20%")
    );
}

#[test]
fn search_matches_percent_and_underscore_literally() {
    assert_eq!(search("20%", ADMIN), ["news:3"]);
    assert!(search("2_%", ADMIN).is_empty());
    assert_eq!(search("e_bike", ADMIN), ["news:7"]);
    assert_eq!(search("P_X", ADMIN), ["products:10"]);
}

#[test]
fn search_never_looks_into_sensitive_tables_or_credentials() {
    assert!(search("ERP sync", ADMIN).is_empty());
    assert!(search("DEMO-SECRET", ADMIN).is_empty());
    let missing = denial(
        "search_records",
        json!({"query": "a", "table": "nope"}),
        ADMIN,
    );
    assert_eq!(
        denial(
            "search_records",
            json!({"query": "a", "table": "api_clients"}),
            ADMIN
        ),
        missing
    );
    assert_eq!(
        denial(
            "search_records",
            json!({"query": "a", "table": "news"}),
            PETRA
        ),
        missing
    );
    // A credential that is a search field cannot be guessed through search.
    let mut data = demo_data();
    let table = data.tables.iter_mut().find(|t| t.name == "news").unwrap();
    table.fields.push(FieldSchema {
        name: "token".into(),
        kind: FieldKind::String,
        credential: true,
    });
    table.search_fields.push("token".into());
    data.records[0]
        .values
        .for_host_mut()
        .insert("token".into(), json!("guessme-1234"));
    let result = json_with(
        "search_records",
        json!({"query": "guessme"}),
        &cx_data(data, ADMIN),
    );
    assert_eq!(result["total"], 0);
}

#[test]
fn search_is_capped_with_the_total_and_excerpts_are_short_and_redacted() {
    let mut data = demo_data();
    let long = format!(
        "{} needle token=DEMO-SECRET-bearer-9c8b7a {}",
        "x ".repeat(200),
        "y ".repeat(200)
    );
    for id in 100..160 {
        data.records.push(news(id, &long));
    }
    let cx = cx_data(data, ADMIN);
    let result = json_with(
        "search_records",
        json!({"query": "needle", "limit": 99}),
        &cx,
    );
    assert_eq!(result["hits"].as_array().unwrap().len(), 50);
    assert_eq!(result["total"], 60);
    assert_eq!(
        result["summary"],
        "showing 50 of 60; narrow the query to see the rest"
    );
    let excerpt = result["hits"][0]["excerpt"].as_str().unwrap();
    assert!(
        excerpt.chars().count() <= 120 && excerpt.contains("needle"),
        "{excerpt}"
    );
    let default = json_with("search_records", json!({"query": "needle"}), &cx);
    assert_eq!(default["hits"].as_array().unwrap().len(), 20);
}

#[test]
fn page_content_shows_elements_in_order_hidden_only_to_administrators() {
    let home = json("get_page_content", json!({"page": 1}), CLARA);
    let columns: Vec<&str> = home["elements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["column"].as_str().unwrap())
        .collect();
    let rank = |column: &&str| {
        ["Main", "Sidebar", "Footer"]
            .iter()
            .position(|c| c == column)
    };
    assert!(columns.is_sorted_by_key(rank), "{columns:?}");
    assert!(columns.contains(&"Footer"));
    assert_eq!(home["elements"][0]["header"], "Ride further");
    assert!(!home["elements"][0]["body"].as_str().unwrap().contains('<'));
    let admin = json("get_page_content", json!({"page": 18}), ADMIN);
    let hidden = admin["elements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == 52)
        .unwrap();
    assert_eq!(hidden["hidden"], true);
    let nils = json("get_page_content", json!({"page": 18}), NILS);
    assert!(
        nils["elements"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["id"] != 52)
    );
    let careers = json("get_page_content", json!({"page": 26}), ADMIN);
    assert!(
        careers["elements"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["id"] != 69)
    );
}

#[test]
fn page_content_denial_is_the_same_for_missing_forbidden_and_deleted() {
    let missing = denial("get_page_content", json!({"page": 9999}), PETRA);
    assert_eq!(
        denial("get_page_content", json!({"page": 13}), PETRA),
        missing
    );
    assert_eq!(
        denial("get_page_content", json!({"page": 2}), NILS),
        missing
    );
    assert_eq!(
        denial("get_page_content", json!({"page": 34}), CLARA),
        missing
    );
    assert_eq!(
        denial("get_page_content", json!({"page": 11}), PETRA),
        missing
    );
    assert_eq!(
        denial("get_page_content", json!({"page": 11}), ADMIN),
        missing
    );
}

#[test]
fn page_content_is_capped_with_the_total() {
    let mut data = demo_data();
    for i in 0..120 {
        data.elements.push(ContentElement {
            id: ElementId(1000 + i),
            page: PageId(25),
            column: site_model::ColumnId(0),
            sorting: i as i64,
            ctype: "text".into(),
            header: Authored::new(format!("Element {i}")),
            body: Authored::new(String::new()),
            hidden: false,
            deleted: false,
            language: LanguageId(0),
            translation_of: None,
        });
    }
    let result = json_with(
        "get_page_content",
        json!({"page": 25}),
        &cx_data(data, CLARA),
    );
    assert_eq!(result["elements"].as_array().unwrap().len(), 100);
    assert!(result["total"].as_u64().unwrap() >= 120);
    assert!(
        result["summary"]
            .as_str()
            .unwrap()
            .starts_with("showing 100 of ")
    );
}

#[test]
fn read_records_filters_by_equality_and_drops_credentials() {
    let city = json(
        "read_records",
        json!({"table": "products", "filter": [{"field": "category", "equals": "city"}]}),
        PETRA,
    );
    let ids: Vec<&Value> = city["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["id"])
        .collect();
    assert_eq!(ids, [1, 2]);
    assert_eq!(city["records"][0]["values"]["sku"], "NWB-C500");
    let clients = json("read_records", json!({"table": "api_clients"}), ADMIN);
    assert_eq!(clients["total"], 3);
    assert!(
        clients["records"][0]["values"]
            .get("client_secret")
            .is_none()
    );
    assert_eq!(clients["records"][0]["values"]["client_id"], "erp-sync");
}

#[test]
fn read_records_refuses_unknown_and_credential_filter_fields() {
    let unknown = call(
        "read_records",
        json!({"table": "news", "filter": [{"field": "colour", "equals": "red"}]}),
        NILS,
    );
    assert!(unknown.unwrap_err().model_text().contains("`colour`"));
    let secret = call(
        "read_records",
        json!({"table": "api_clients", "filter": [{"field": "client_secret", "equals": "DEMO-SECRET-apiclient-erp-5d2f"}]}),
        ADMIN,
    );
    let message = secret.unwrap_err().model_text();
    assert!(message.contains("`client_secret`") && message.contains("credential"));
}

#[test]
fn read_records_denial_is_the_same_for_missing_and_forbidden() {
    let missing = denial("read_records", json!({"table": "nope"}), PETRA);
    assert_eq!(
        denial("read_records", json!({"table": "news"}), PETRA),
        missing
    );
    assert_eq!(
        denial("read_records", json!({"table": "products"}), NILS),
        missing
    );
    assert_eq!(
        denial("read_records", json!({"table": "api_clients"}), CLARA),
        missing
    );
    // The table is checked before the filter, so a filter tells nothing either.
    assert_eq!(
        denial(
            "read_records",
            json!({"table": "api_clients", "filter": [{"field": "x", "equals": "1"}]}),
            CLARA
        ),
        missing
    );
}

#[test]
fn read_records_is_capped_with_the_total() {
    let mut data = demo_data();
    for id in 100..130 {
        data.records.push(news(id, "More news"));
    }
    let cx = cx_data(data, NILS);
    let default = json_with("read_records", json!({"table": "news"}), &cx);
    assert_eq!(default["records"].as_array().unwrap().len(), 20);
    assert_eq!(default["total"], 38);
    let max = json_with("read_records", json!({"table": "news", "limit": 1000}), &cx);
    assert_eq!(max["records"].as_array().unwrap().len(), 38);
    let one = json_with("read_records", json!({"table": "news", "limit": 37}), &cx);
    assert_eq!(
        one["summary"],
        "showing 37 of 38; narrow the query to see the rest"
    );
}

#[test]
fn history_is_newest_first() {
    let history = json(
        "get_record_history",
        json!({"table": "news", "id": 3}),
        NILS,
    );
    assert_eq!(history["total"], 3);
    assert_eq!(history["history"][0]["changes"][0]["field"], "teaser");
    assert_eq!(history["history"][2]["action"], "created");
    let page = json(
        "get_record_history",
        json!({"table": "pages", "id": 15}),
        NILS,
    );
    assert_eq!(page["history"][0]["action"], "moved");
}

#[test]
fn history_never_shows_credential_values() {
    let mut data = demo_data();
    data.history.push(HistoryEntry {
        table: "api_clients".into(),
        record_id: 1,
        at: Timestamp(1_800_000_000),
        actor: "admin".into(),
        action: HistoryAction::Updated,
        changes: vec![FieldChange {
            field: "client_secret".into(),
            old: json!("DEMO-SECRET-apiclient-erp-5d2f").into(),
            new: json!("DEMO-SECRET-apiclient-shop-a71c").into(),
        }],
        proposed_by: None,
        approved_by: None,
        proposed: None,
    });
    let history = json_with(
        "get_record_history",
        json!({"table": "api_clients", "id": 1}),
        &cx_data(data, ADMIN),
    );
    assert_eq!(
        history["history"][0]["changes"][0],
        json!({"field": "client_secret", "changed": true})
    );
}

#[test]
fn history_denial_is_the_same_for_missing_and_forbidden() {
    let missing = denial(
        "get_record_history",
        json!({"table": "news", "id": 999}),
        NILS,
    );
    for (table, id, name) in [
        ("news", 3, PETRA),
        ("nope", 1, NILS),
        ("api_clients", 1, NILS),
        ("pages", 2, NILS),
        ("pages", 11, PETRA),
        ("pages", 9999, NILS),
        ("content", 1, PETRA),
        ("content", 69, CLARA),
        ("files", 9999, NILS),
    ] {
        assert_eq!(
            denial(
                "get_record_history",
                json!({"table": table, "id": id}),
                name
            ),
            missing,
            "{table}:{id} as {name}"
        );
    }
}

#[test]
fn history_is_capped_with_the_total() {
    let mut data = demo_data();
    for i in 0..60 {
        data.history.push(HistoryEntry {
            table: "products".into(),
            record_id: 2,
            at: Timestamp(1_800_000_000 + i),
            actor: "petra".into(),
            action: HistoryAction::Updated,
            changes: vec![FieldChange {
                field: "stock".into(),
                old: json!(i).into(),
                new: json!(i + 1).into(),
            }],
            proposed_by: None,
            approved_by: None,
            proposed: None,
        });
    }
    let cx = cx_data(data, PETRA);
    let history = json_with(
        "get_record_history",
        json!({"table": "products", "id": 2}),
        &cx,
    );
    assert_eq!(history["history"].as_array().unwrap().len(), 20);
    assert_eq!(history["total"], 61);
    assert_eq!(history["history"][0]["changes"][0]["new"], 60);
    let max = json_with(
        "get_record_history",
        json!({"table": "products", "id": 2, "limit": 51}),
        &cx,
    );
    assert_eq!(max["history"].as_array().unwrap().len(), 50);
}

#[test]
fn no_content_tool_shows_a_demo_secret() {
    for name in EVERYONE {
        for (tool, arguments) in [
            ("search_records", json!({"query": "e"})),
            ("search_records", json!({"query": "DEMO"})),
            ("get_page_content", json!({"page": 1})),
            ("read_records", json!({"table": "api_clients", "limit": 50})),
            ("read_records", json!({"table": "news", "limit": 50})),
            (
                "get_record_history",
                json!({"table": "api_clients", "id": 1}),
            ),
            ("get_record_history", json!({"table": "news", "id": 3})),
        ] {
            assert_no_secret(tool, &text(tool, arguments, name));
        }
    }
    for page in 1..=34 {
        assert_no_secret(
            "get_page_content",
            &text("get_page_content", json!({"page": page}), ADMIN),
        );
    }
}
