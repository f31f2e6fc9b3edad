//! The `rag` tools over the demo site's public content, on the substring
//! backend (the tantivy and database backends are the host's, tested in
//! host-example with the same words).

mod common;

use std::sync::Arc;
use tool_core::Authored;

use common::{ADMIN, CLARA, EVERYONE, PETRA, call_with, cx_on, json_with};
use futures_executor::block_on;
use serde_json::{Value, json};
use site_model::{MemorySite, NOT_FOUND, Site, public_sources};
use tool_core::ToolContext;
use tools_builtin::rag::{FETCH_CAP_CHARS, PublicIndex, QueryTerm, SubstringIndex, query_terms};

/// A context as `name` on `site`, with a substring index over its public
/// sources as they are now.
fn cx_with_index(site: Arc<MemorySite>, name: &str) -> ToolContext {
    let sources = block_on(public_sources(&*site)).unwrap();
    let index: Arc<dyn PublicIndex> = Arc::new(SubstringIndex::new(sources));
    cx_on(site as Arc<dyn Site>, name).with_service(index)
}

fn query(question: &str, name: &str) -> Value {
    let cx = cx_with_index(Arc::new(MemorySite::demo()), name);
    json_with("site_rag_query", json!({ "question": question }), &cx)
}

fn ids(answer: &Value) -> Vec<String> {
    answer["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|source| source["id"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn words_only_in_hidden_or_deleted_content_are_never_found_by_anyone() {
    for name in EVERYONE {
        for word in [
            "cargo",
            "Shimano",
            "moved",
            "March",
            "intern",
            "analytics",
            "\"garage to a factory\"",
        ] {
            let answer = query(word, name);
            assert_eq!(answer["backend"], "substring");
            assert_eq!(
                ids(&answer),
                Vec::<String>::new(),
                "`{word}` as {name}: {answer}"
            );
        }
    }
}

#[test]
fn warranty_and_frames_are_found_ranked_with_excerpts() {
    let answer = query("warranty frame", PETRA);
    let ids = ids(&answer);
    assert_eq!(ids[0], "page:21", "{answer}");
    assert!(ids.len() > 1 && ids.len() <= 5);
    let first = &answer["sources"][0];
    assert_eq!(
        first["url"],
        "https://www.northwind-bikes.example/service/warranty/"
    );
    assert!(
        first["excerpt"].as_str().unwrap().contains("**frame**"),
        "{first}"
    );
    let scores: Vec<f64> = answer["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["score"].as_f64().unwrap())
        .collect();
    assert!(
        scores.windows(2).all(|pair| pair[0] >= pair[1]),
        "{scores:?}"
    );
}

#[test]
fn site_and_language_narrow_the_answer() {
    let cx = cx_with_index(Arc::new(MemorySite::demo()), CLARA);
    let german = json_with(
        "site_rag_query",
        json!({ "question": "Bremen", "language": "de", "limit": 10 }),
        &cx,
    );
    assert!(!ids(&german).is_empty());
    assert!(
        german["sources"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["language"] == "de")
    );
    let outlet = json_with(
        "site_rag_query",
        json!({ "question": "Bremen", "site": "outlet" }),
        &cx,
    );
    assert_eq!(ids(&outlet), ["page:33"]);
}

#[test]
fn at_most_ten_sources() {
    let cx = cx_with_index(Arc::new(MemorySite::demo()), ADMIN);
    let answer = json_with(
        "site_rag_query",
        json!({ "question": "the bikes and bike", "limit": 50 }),
        &cx,
    );
    assert_eq!(ids(&answer).len(), 10);
}

#[test]
fn an_empty_question_is_refused_with_a_reason() {
    let cx = cx_with_index(Arc::new(MemorySite::demo()), ADMIN);
    for question in ["", "?!", &"x".repeat(501)] {
        let error = call_with("site_rag_query", json!({ "question": question }), &cx).unwrap_err();
        assert!(error.to_string().contains("question"), "{error}");
    }
}

#[test]
fn fetch_returns_the_text_and_an_unknown_or_unpublished_id_reads_as_not_found() {
    let cx = cx_with_index(Arc::new(MemorySite::demo()), PETRA);
    let warranty = json_with("site_fetch_source", json!({ "id": "page:21" }), &cx);
    assert!(
        warranty["text"]
            .as_str()
            .unwrap()
            .contains("Five years on every frame")
    );
    assert!(warranty.get("note").is_none());
    let unknown = call_with("site_fetch_source", json!({ "id": "page:9999" }), &cx).unwrap_err();
    let deleted = call_with("site_fetch_source", json!({ "id": "page:11" }), &cx).unwrap_err();
    let hidden = call_with("site_fetch_source", json!({ "id": "page:18" }), &cx).unwrap_err();
    assert_eq!(unknown.model_text(), deleted.model_text());
    assert_eq!(unknown.model_text(), hidden.model_text());
    assert!(unknown.model_text().contains(NOT_FOUND));
}

#[test]
fn a_long_source_is_cut_at_the_cap_and_says_so() {
    let mut data = MemorySite::demo().data();
    let element = data
        .elements
        .iter_mut()
        .find(|e| e.page.0 == 21 && !e.hidden)
        .unwrap();
    element.body = Authored::new("warranty ".repeat(2_000));
    let cx = cx_with_index(Arc::new(MemorySite::new(data)), ADMIN);
    let answer = json_with("site_fetch_source", json!({ "id": "page:21" }), &cx);
    assert_eq!(
        answer["text"].as_str().unwrap().chars().count(),
        FETCH_CAP_CHARS
    );
    assert!(
        answer["note"].as_str().unwrap().contains("8000"),
        "{}",
        answer["note"]
    );
}

#[test]
fn without_an_index_the_tools_say_so() {
    let cx = cx_on(Arc::new(MemorySite::demo()), ADMIN);
    let error = call_with("site_rag_query", json!({ "question": "frame" }), &cx).unwrap_err();
    assert!(error.to_string().contains("not set up"), "{error}");
}

#[test]
fn query_terms_keep_phrases_and_drop_syntax() {
    assert_eq!(
        query_terms(r#"What "five years" cover? title:x OR -y"#),
        [
            QueryTerm::Word("what".into()),
            QueryTerm::Phrase(vec!["five".into(), "years".into()]),
            QueryTerm::Word("cover".into()),
            QueryTerm::Word("title".into()),
            QueryTerm::Word("x".into()),
            QueryTerm::Word("or".into()),
            QueryTerm::Word("y".into()),
        ]
    );
}
