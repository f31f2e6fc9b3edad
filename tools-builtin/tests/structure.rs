//! The `structure` tools against the demo site, as its administrator and
//! as each editor.

mod common;

use common::*;
use serde_json::{Value, json};
use site_model::{FieldKind, FieldSchema, NOT_FOUND, Page, PageId, PageKind, TableSchema};
use tool_core::Authored;

fn outline(arguments: Value, name: &str) -> String {
    let text = call("get_pagetree", arguments, name).unwrap();
    assert_no_secret("get_pagetree", &text);
    text
}

fn has_page(outline: &str, id: u64) -> bool {
    outline
        .lines()
        .any(|line| line.trim_start().starts_with(&format!("{id} ")))
}

fn denial(tool: &str, arguments: Value, name: &str) -> tool_core::ToolError {
    let error = call(tool, arguments, name).expect_err("refused");
    assert_eq!(error.model_text(), NOT_FOUND);
    error
}

fn field(name: &str, kind: FieldKind, credential: bool) -> FieldSchema {
    FieldSchema {
        name: name.into(),
        kind,
        credential,
    }
}

fn table(name: &str, fields: Vec<FieldSchema>, search: &[&str], sensitive: bool) -> TableSchema {
    TableSchema {
        name: name.into(),
        title: name.into(),
        fields,
        search_fields: search.iter().map(|s| (*s).to_owned()).collect(),
        sensitive,
    }
}

#[test]
fn declarations_are_for_everyone_in_the_structure_group() {
    let registry = registry();
    for name in [
        "get_pagetree",
        "list_tables",
        "get_table_schema",
        "resolve_url",
        "validate_schema",
    ] {
        let declaration = registry.get(name).unwrap().declaration();
        assert_eq!(declaration.group, tools_builtin::groups::STRUCTURE);
        assert!(!declaration.requires_admin, "{name} is for everyone");
    }
}

#[test]
fn pagetree_shows_the_administrator_every_published_page() {
    let tree = outline(json!({}), ADMIN);
    assert!(tree.starts_with("1 Northwind Bikes / (standard)\n  2 Products /products (standard)"));
    assert!(tree.contains("\n      4 Commuter 500 /commuter-500 (standard)"));
    assert!(has_page(&tree, 33), "{tree}");
    for hidden_or_deleted in [8, 11, 18, 27] {
        assert!(!has_page(&tree, hidden_or_deleted), "{tree}");
    }
    assert!(tree.ends_with("in total"), "{tree}");
}

#[test]
fn pagetree_shows_editors_only_their_subtrees() {
    let petra = outline(json!({}), PETRA);
    assert!(petra.starts_with("2 Products"), "{petra}");
    for page in [1, 13, 15, 19, 33] {
        assert!(!has_page(&petra, page), "{petra}");
    }
    let nils = outline(json!({}), NILS);
    assert!(nils.starts_with("13 News"), "{nils}");
    assert!(has_page(&nils, 15) && !has_page(&nils, 2) && !has_page(&nils, 18));
    let clara = outline(json!({}), CLARA);
    assert!(has_page(&clara, 1) && has_page(&clara, 19));
    assert!(!has_page(&clara, 33) && !has_page(&clara, 34), "{clara}");
}

#[test]
fn pagetree_depth_and_root() {
    let tree = outline(json!({"root": 2, "depth": 1}), ADMIN);
    assert!(tree.starts_with("2 Products"));
    assert!(has_page(&tree, 3) && !has_page(&tree, 4), "{tree}");
    let deep = outline(json!({"root": 1, "depth": 99}), ADMIN);
    assert!(has_page(&deep, 4));
}

#[test]
fn pagetree_root_denial_is_the_same_for_missing_forbidden_and_hidden() {
    let forbidden = denial("get_pagetree", json!({"root": 13}), PETRA);
    let missing = denial("get_pagetree", json!({"root": 9999}), PETRA);
    assert_eq!(forbidden, missing);
    assert_eq!(denial("get_pagetree", json!({"root": 8}), ADMIN), missing);
    assert_eq!(denial("get_pagetree", json!({"root": 33}), CLARA), missing);
}

#[test]
fn pagetree_is_capped_with_the_total() {
    let mut data = demo_data();
    for i in 0..250 {
        data.pages.push(Page {
            id: PageId(1000 + i),
            parent: Some(PageId(12)),
            title: Authored::new(format!("Extra {i}")),
            nav_title: None,
            slug: Authored::new(format!("extra-{i}")),
            description: None,
            kind: PageKind::Standard,
            hidden: false,
            deleted: false,
            language: site_model::LanguageId(0),
            translation_of: None,
            sorting: i as i64,
        });
    }
    let cx = cx_data(data, PETRA);
    let text = call_with("get_pagetree", json!({}), &cx).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 201);
    // Products' subtree for petra: 9 published pages plus 250.
    assert_eq!(
        lines[200],
        "showing 200 of 259; narrow the query to see the rest"
    );
}

#[test]
fn list_tables_follows_read_grants_and_hides_sensitive_tables() {
    let names = |name| -> Vec<String> {
        json("list_tables", json!({}), name)["tables"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(names(ADMIN), ["api_clients", "news", "products"]);
    assert_eq!(names(PETRA), ["products"]);
    assert_eq!(names(NILS), ["news"]);
    assert_eq!(names(CLARA), ["news", "products"]);
    let admin = json("list_tables", json!({}), ADMIN);
    assert_eq!(admin["tables"][0]["sensitive"], true);
    assert_eq!(admin["tables"][1].get("sensitive"), None);
}

#[test]
fn list_tables_is_capped_with_the_total() {
    let mut data = demo_data();
    for i in 0..198 {
        data.tables
            .push(table(&format!("t{i:03}"), Vec::new(), &[], false));
    }
    let listed = json_with("list_tables", json!({}), &cx_data(data, ADMIN));
    assert_eq!(listed["tables"].as_array().unwrap().len(), 200);
    assert_eq!(listed["total"], 201);
}

#[test]
fn table_schema_shows_fields_and_relations() {
    let schema = json("get_table_schema", json!({"table": "news"}), NILS);
    assert_eq!(
        schema["fields"][0],
        json!({"name": "title", "type": "string"})
    );
    assert_eq!(
        schema["fields"][3],
        json!({"name": "author", "type": "relation", "relation": "users"})
    );
    assert_eq!(schema["search_fields"], json!(["title", "teaser", "body"]));
}

#[test]
fn table_schema_denial_is_the_same_for_missing_forbidden_and_sensitive() {
    let missing = denial("get_table_schema", json!({"table": "nope"}), PETRA);
    assert_eq!(
        denial("get_table_schema", json!({"table": "news"}), PETRA),
        missing
    );
    assert_eq!(
        denial("get_table_schema", json!({"table": "api_clients"}), PETRA),
        missing
    );
    // Sensitive tables read like missing ones for everyone.
    assert_eq!(
        denial("get_table_schema", json!({"table": "api_clients"}), ADMIN),
        missing
    );
    assert_eq!(
        denial("get_table_schema", json!({"table": "nope"}), ADMIN),
        missing
    );
}

#[test]
fn table_schema_shows_credential_fields_by_name_and_type_only() {
    let mut data = demo_data();
    data.tables.push(table(
        "webhooks",
        vec![
            field("url", FieldKind::String, false),
            field("signing_key", FieldKind::String, true),
            field("api_password", FieldKind::String, false),
            field(
                "client",
                FieldKind::Relation {
                    table: "api_clients".into(),
                },
                false,
            ),
        ],
        &["url", "signing_key"],
        false,
    ));
    let admin = json_with(
        "get_table_schema",
        json!({"table": "webhooks"}),
        &cx_data(data.clone(), ADMIN),
    );
    assert_eq!(
        admin["fields"][1],
        json!({"name": "signing_key", "type": "string", "credential": true})
    );
    // Named like a credential: treated as one although the flag is missing.
    assert_eq!(admin["fields"][2]["credential"], true);
    assert_eq!(admin["fields"][3]["relation"], "api_clients");
    assert_eq!(admin["search_fields"], json!(["url"]));
    // An editor who may read the table is not told the sensitive table's name.
    data.users
        .iter_mut()
        .for_each(|user| user.grants.read_tables.push("webhooks".into()));
    data.groups
        .iter_mut()
        .for_each(|group| group.grants.read_tables.push("webhooks".into()));
    let petra = json_with(
        "get_table_schema",
        json!({"table": "webhooks"}),
        &cx_data(data, PETRA),
    );
    assert_eq!(petra["fields"][3]["relation"], "a table you cannot read");
    assert!(!petra.to_string().contains("api_clients"));
}

#[test]
fn resolve_url_finds_the_page_of_a_url_or_path() {
    let page = |url: &str, name| json("resolve_url", json!({"url": url}), name)["page"].clone();
    assert_eq!(
        page(
            "https://www.northwind-bikes.example/products/city-bikes/",
            ADMIN
        ),
        3
    );
    assert_eq!(
        page(
            "https://WWW.Northwind-Bikes.example:443/products/city-bikes?x=1#top",
            ADMIN
        ),
        3
    );
    assert_eq!(page("/products/city-bikes/commuter-500", PETRA), 4);
    assert_eq!(page("/", CLARA), 1);
    assert_eq!(
        page("https://outlet.northwind-bikes.example/offers", ADMIN),
        34
    );
    assert_eq!(page("/news/2024/spring-collection", NILS), 15);
    let german = json(
        "resolve_url",
        json!({"url": "/de/produkte/stadtraeder"}),
        ADMIN,
    );
    assert_eq!(german["page"], 103);
    assert_eq!(german["language"], "de");
}

#[test]
fn resolve_url_answers_the_same_for_foreign_missing_hidden_and_forbidden() {
    let missing = denial("resolve_url", json!({"url": "/no/such/page"}), ADMIN);
    for (url, name) in [
        ("https://evil.example/products", ADMIN),
        (
            "https://www.northwind-bikes.example@evil.example/products",
            ADMIN,
        ),
        (
            "https://www.northwind-bikes.example.evil.example/products",
            ADMIN,
        ),
        ("http://www.northwind-bikes.example/products", ADMIN),
        ("//www.northwind-bikes.example/products", ADMIN),
        ("/products/mountain-bikes/ridge-27-5", ADMIN),
        ("/products/e-bikes/cargo-e", ADMIN),
        ("/news", PETRA),
        ("/no/such/page", PETRA),
        ("https://outlet.northwind-bikes.example/offers", CLARA),
        ("https://outlet.northwind-bikes.example/nothing", CLARA),
    ] {
        assert_eq!(
            denial("resolve_url", json!({"url": url}), name),
            missing,
            "{url} as {name}"
        );
    }
}

#[test]
fn validate_schema_finds_structural_mistakes_in_readable_tables_only() {
    assert_eq!(json("validate_schema", json!({}), ADMIN)["total"], 0);
    let mut data = demo_data();
    data.tables.push(table(
        "broken",
        vec![
            field("title", FieldKind::String, false),
            field("title", FieldKind::String, false),
            field(
                "owner",
                FieldKind::Relation {
                    table: "nowhere".into(),
                },
                false,
            ),
            field("secret", FieldKind::String, true),
            field("count", FieldKind::Int, false),
        ],
        &["title", "missing", "secret", "count"],
        false,
    ));
    data.tables.push(table(
        "vault",
        vec![field(
            "x",
            FieldKind::Relation {
                table: "gone".into(),
            },
            false,
        )],
        &[],
        true,
    ));
    let admin = json_with("validate_schema", json!({}), &cx_data(data.clone(), ADMIN));
    let problems: Vec<String> = admin["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            format!(
                "{}.{}",
                f["table"].as_str().unwrap(),
                f["field"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        problems,
        [
            "broken.title",
            "broken.owner",
            "broken.missing",
            "broken.secret",
            "broken.count",
            "vault.x"
        ]
    );
    let petra = json_with("validate_schema", json!({}), &cx_data(data.clone(), PETRA));
    assert_eq!(petra["total"], 0, "{petra}");
    assert!(!petra.to_string().contains("vault"));
    let missing = call_with(
        "validate_schema",
        json!({"table": "nope"}),
        &cx_data(data.clone(), PETRA),
    );
    let forbidden = call_with(
        "validate_schema",
        json!({"table": "vault"}),
        &cx_data(data, PETRA),
    );
    assert_eq!(forbidden.unwrap_err(), missing.unwrap_err());
}

#[test]
fn validate_schema_is_capped_with_the_total() {
    let mut data = demo_data();
    let missing: Vec<String> = (0..201).map(|i| format!("f{i}")).collect();
    let missing: Vec<&str> = missing.iter().map(String::as_str).collect();
    data.tables.push(table("wide", Vec::new(), &missing, false));
    let result = json_with("validate_schema", json!({}), &cx_data(data, ADMIN));
    assert_eq!(result["findings"].as_array().unwrap().len(), 200);
    assert_eq!(result["total"], 201);
}

#[test]
fn no_structure_tool_shows_a_demo_secret() {
    for name in EVERYONE {
        for (tool, arguments) in [
            ("get_pagetree", json!({"depth": 10})),
            ("list_tables", json!({})),
            ("get_table_schema", json!({"table": "news"})),
            ("get_table_schema", json!({"table": "api_clients"})),
            ("resolve_url", json!({"url": "/"})),
            ("validate_schema", json!({})),
        ] {
            assert_no_secret(tool, &text(tool, arguments, name));
        }
    }
}
