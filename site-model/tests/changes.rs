//! Change sets apply all or nothing, and a compare-and-set admits one
//! winner.

use std::sync::{Arc, Barrier};
use tool_core::Authored;

use futures_executor::block_on;
use serde_json::{Value, json};
use site_model::change_rules::soft_delete;
use site_model::{
    ChangeSet, Changes, ElementId, FieldChange, Fields, FileId, HistoryAction, HistoryEntry,
    MemorySite, Operation, PageId, Pages, Records, SiteError, Target, Timestamp,
};

fn fields(pairs: &[(&str, Value)]) -> Fields {
    pairs
        .iter()
        .map(|(name, value)| ((*name).to_owned(), value.clone()))
        .collect()
}

fn retitle(page: u64, old: &str, new: &str) -> Operation {
    Operation::Update {
        target: Target::Page(PageId(page)),
        expected: fields(&[("title", json!(old))]),
        new: fields(&[("title", json!(new))]),
    }
}

fn entry(target: &Target, field: &str, old: Value, new: Value) -> HistoryEntry {
    HistoryEntry {
        table: target.table().to_owned(),
        record_id: target.id(),
        at: Timestamp(1_800_000_000),
        actor: "admin".into(),
        action: HistoryAction::Updated,
        changes: vec![FieldChange {
            field: field.into(),
            old: Authored::new(old),
            new: Authored::new(new),
        }],
        proposed_by: Some("petra".into()),
        approved_by: Some("admin".into()),
        proposed: None,
    }
}

#[test]
fn one_wrong_expected_value_changes_nothing_and_names_the_field() {
    let site = MemorySite::demo();
    let before = site.snapshot();
    let price = Target::Record {
        table: "products".into(),
        id: 1,
    };
    let changes = ChangeSet {
        operations: vec![
            retitle(4, "Commuter 500", "Commuter 500 (2024)"),
            Operation::Update {
                target: price.clone(),
                expected: fields(&[
                    ("name", json!("Commuter 500")),
                    ("price_cents", json!(12345)),
                ]),
                new: fields(&[("price_cents", json!(79900))]),
            },
        ],
        history: vec![entry(&price, "price_cents", json!(89900), json!(79900))],
    };
    let error = block_on(site.apply(changes)).unwrap_err();
    assert_eq!(
        error,
        SiteError::Conflict {
            target: "products:1".into(),
            field: "price_cents".into(),
            expected: json!(12345),
            actual: json!(89900),
        }
    );
    assert!(error.to_string().contains("price_cents"));
    assert_eq!(
        site.snapshot(),
        before,
        "the first, valid operation must not stick"
    );
}

#[test]
fn invalid_operations_change_nothing() {
    let site = MemorySite::demo();
    let before = site.snapshot();
    let bad = [
        Operation::Update {
            target: Target::Page(PageId(4)),
            expected: Fields::new(),
            new: fields(&[("colour", json!("red"))]),
        },
        Operation::Update {
            target: Target::Page(PageId(4)),
            expected: Fields::new(),
            new: fields(&[("hidden", json!("yes"))]),
        },
        Operation::Update {
            target: Target::Record {
                table: "products".into(),
                id: 1,
            },
            expected: Fields::new(),
            new: fields(&[("stock", json!("many"))]),
        },
        Operation::Insert {
            target: Target::Record {
                table: "products".into(),
                id: 1,
            },
            values: fields(&[("name", json!("Duplicate"))]),
        },
        Operation::SoftDelete {
            target: Target::Record {
                table: "api_clients".into(),
                id: 1,
            },
            expected: Fields::new(),
        },
    ];
    for operation in bad {
        let changes = ChangeSet {
            operations: vec![retitle(4, "Commuter 500", "Changed"), operation.clone()],
            history: Vec::new(),
        };
        let error = block_on(site.apply(changes)).unwrap_err();
        assert!(
            matches!(error, SiteError::Invalid { .. }),
            "{operation:?}: {error}"
        );
        assert_eq!(site.snapshot(), before);
    }
    let missing = ChangeSet {
        operations: vec![retitle(999, "x", "y")],
        history: Vec::new(),
    };
    assert!(matches!(
        block_on(site.apply(missing)),
        Err(SiteError::NotFound { .. })
    ));
    assert_eq!(site.snapshot(), before);
}

#[test]
fn a_good_change_set_applies_and_appends_history() {
    let site = MemorySite::demo();
    let news = Target::Record {
        table: "news".into(),
        id: 1,
    };
    let element = Target::Element(ElementId(2));
    let changes = ChangeSet {
        operations: vec![
            Operation::Update {
                target: news.clone(),
                expected: fields(&[("teaser", json!("Our 2024 models are here."))]),
                new: fields(&[("teaser", json!("Our 2024 models are in the shops."))]),
            },
            // A move: another column and place.
            Operation::Update {
                target: element.clone(),
                expected: fields(&[("column", json!(0)), ("page", json!(1))]),
                new: fields(&[("column", json!(1)), ("sorting", json!(10))]),
            },
            Operation::SoftDelete {
                target: Target::Page(PageId(18)),
                expected: fields(&[("deleted", json!(false))]),
            },
            Operation::Insert {
                target: Target::Record {
                    table: "products".into(),
                    id: 11,
                },
                values: fields(&[
                    ("sku", json!("NWB-B1")),
                    ("name", json!("Bell")),
                    ("price_cents", json!(990)),
                ]),
            },
        ],
        history: vec![entry(
            &news,
            "teaser",
            json!("Our 2024 models are here."),
            json!("Our 2024 models are in the shops."),
        )],
    };
    block_on(site.apply(changes)).unwrap();
    block_on(async {
        let record = site.record("news", 1).await.unwrap();
        assert_eq!(
            record.values.for_host()["teaser"],
            json!("Our 2024 models are in the shops.")
        );
        let moved = site.element(ElementId(2)).await.unwrap();
        assert_eq!((moved.column.0, moved.sorting), (1, 10));
        assert!(site.page(PageId(18)).await.unwrap().deleted);
        assert_eq!(
            site.record("products", 11).await.unwrap().values.for_host()["name"],
            json!("Bell")
        );

        let history = site.history("news", 1).await.unwrap();
        assert_eq!(history[0].at, Timestamp(1_800_000_000), "newest first");
        assert_eq!(history[0].approved_by, Some("admin".into()));
        assert_eq!(history.last().unwrap().action, HistoryAction::Created);
    });
}

#[test]
fn of_eight_racing_compare_and_sets_exactly_one_wins() {
    let site = Arc::new(MemorySite::demo());
    let start = Arc::new(Barrier::new(8));
    let threads: Vec<_> = (0..8)
        .map(|thread| {
            let site = Arc::clone(&site);
            let start = Arc::clone(&start);
            std::thread::spawn(move || {
                let changes = ChangeSet {
                    operations: vec![retitle(
                        4,
                        "Commuter 500",
                        &format!("Commuter 500 by {thread}"),
                    )],
                    history: vec![entry(
                        &Target::Page(PageId(4)),
                        "title",
                        json!("Commuter 500"),
                        json!(thread),
                    )],
                };
                start.wait();
                block_on(site.apply(changes))
            })
        })
        .collect();
    let results: Vec<_> = threads
        .into_iter()
        .map(|thread| thread.join().unwrap())
        .collect();
    assert_eq!(results.iter().filter(|result| result.is_ok()).count(), 1);
    assert!(
        results
            .iter()
            .filter_map(|result| result.as_ref().err())
            .all(|error| matches!(error, SiteError::Conflict { field, .. } if field == "title"))
    );
    assert_eq!(
        block_on(site.history("pages", 4)).unwrap().len(),
        1,
        "only the winner's history"
    );
}

#[test]
fn a_soft_delete_writes_deleted_where_a_store_may() {
    let site = MemorySite::demo();
    let table = |name: &str| block_on(site.table(name)).unwrap();
    let deleted = fields(&[("deleted", json!(true))]);
    let record = |table: &str| Target::Record {
        table: table.into(),
        id: 1,
    };
    assert_eq!(
        soft_delete(&Target::Page(PageId(18)), None).unwrap(),
        deleted
    );
    assert_eq!(
        soft_delete(&record("news"), Some(&table("news"))).unwrap(),
        deleted
    );
    // A table without a boolean `deleted` field, a file, a table that is not.
    let no_field = soft_delete(&record("api_clients"), Some(&table("api_clients")));
    assert!(
        matches!(no_field, Err(SiteError::Invalid { .. })),
        "{no_field:?}"
    );
    let file = soft_delete(&Target::File(FileId(1)), None);
    assert!(matches!(file, Err(SiteError::Invalid { .. })), "{file:?}");
    let no_table = soft_delete(&record("nothing"), None);
    assert!(
        matches!(no_table, Err(SiteError::NotFound { .. })),
        "{no_table:?}"
    );
}
