//! `search_records` over 100,000 records in a [`MemorySite`]: the time of
//! one query through the registry, as a host calls it.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use futures_executor::block_on;
use serde_json::json;
use site_model::{FieldKind, FieldSchema, MemorySite, Record, Site, SiteData, TableSchema};
use tool_core::{Actor, Registry, RunId, ToolContext};

const RECORDS: u64 = 100_000;

fn site() -> MemorySite {
    let field = |name: &str| FieldSchema {
        name: name.into(),
        kind: FieldKind::String,
        credential: false,
    };
    let table = TableSchema {
        name: "articles".into(),
        title: "Articles".into(),
        fields: vec![field("title"), field("body")],
        search_fields: vec!["title".into(), "body".into()],
        sensitive: false,
    };
    let records = (0..RECORDS)
        .map(|id| Record {
            table: "articles".into(),
            id,
            values: [
                (
                    "title".to_owned(),
                    json!(format!("Article {id} about bikes")),
                ),
                (
                    "body".to_owned(),
                    json!(format!(
                        "Frames, brakes and wheels, part {id}. {}",
                        if id % 1000 == 0 { "Rare: 20% off." } else { "" }
                    )),
                ),
            ]
            .into_iter()
            .collect(),
        })
        .collect();
    MemorySite::new(SiteData {
        tables: vec![table],
        records,
        ..SiteData::default()
    })
}

fn bench(c: &mut Criterion) {
    tools_builtin::link();
    let registry = Registry::linked().unwrap();
    let site: Arc<dyn Site> = Arc::new(site());
    // An actor the site does not know: administrator by the host's word.
    let cx = ToolContext::new(RunId("bench".into()))
        .with_service(site)
        .with_actor(Actor {
            id: "admin".into(),
            admin: true,
        });
    let mut group = c.benchmark_group("search_records_100k");
    for (label, query) in [
        ("rare_100_hits", "20%"),
        ("none", "zzz"),
        ("every_record", "bikes"),
    ] {
        group.bench_function(label, |b| {
            b.iter(|| {
                let outcome = block_on(registry.call_ungated(
                    "search_records",
                    json!({"query": query, "limit": 20}),
                    &cx,
                ));
                black_box(outcome.unwrap())
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
