//! Public retrieval side by side: `site_rag_query` through the host (gates
//! included) on each backend (tantivy, the database's full-text search,
//! substrings), on the demo site and on a generated site of 10,000 public
//! pages, on a SQLite file and, when `HOST_TEST_POSTGRES_URL` names a
//! server, PostgreSQL. Prints the index build time and the p50 and p99
//! latency of one question.
//!
//! `cargo bench -p host-example --bench rag_query` (`HOST_BENCH_QUERIES`
//! sets how many questions per backend, 400 by default).

use std::time::{Duration, Instant};

use host_example::Host;
use host_example::app::index::{IndexLocation, SearchBackend};
use host_example::store::Store;
use serde_json::{Value, json};
use site_model::{ChangeSet, Changes, Fields, Operation, PageId, Target};
use tool_core::calls::CancelToken;
use tool_core::{Actor, Outcome, RunId};

#[path = "common/backends.rs"]
mod backends;
use backends::Backends;

/// The questions asked, in turn: words, a phrase, a question, German.
const QUESTIONS: [&str; 8] = [
    "warranty",
    "frame warranty",
    "\"five years\"",
    "what does the warranty cover?",
    "brake service prices",
    "Garantie",
    "river bridge harbour",
    "lantern orchard",
];

/// Words the generated pages are written from.
const VOCABULARY: [&str; 24] = [
    "river", "bridge", "harbour", "lantern", "orchard", "meadow", "saddle", "spoke", "chain",
    "gear", "tyre", "valve", "helmet", "commute", "trail", "summit", "forest", "coast", "market",
    "station", "tunnel", "village", "workshop", "frame",
];

fn main() {
    let queries: usize = std::env::var("HOST_BENCH_QUERIES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(400);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    println!("site        database  backend            sources  build ms  p50 µs   p99 µs");
    for (label, pages) in [("rag_demo", 0_u64), ("rag_10k", 10_000)] {
        let backends = Backends::new(&runtime, label);
        for (database, url) in &backends.urls {
            let store = runtime.block_on(Store::open(url)).unwrap();
            if pages > 0 {
                runtime.block_on(generate(&store, pages));
            }
            for backend in SearchBackend::ALL {
                let folder = tempfile::tempdir().unwrap();
                let host = Host::new(store.clone())
                    .unwrap()
                    .with_search(backend, IndexLocation::Folder(folder.path().join("index")));
                let started = Instant::now();
                let status = runtime.block_on(host.refresh_index(true)).unwrap();
                let build = started.elapsed();
                let mut times: Vec<Duration> = Vec::with_capacity(queries);
                for round in 0..queries {
                    let question = QUESTIONS[round % QUESTIONS.len()];
                    let started = Instant::now();
                    let answer = runtime.block_on(ask(&host, question));
                    times.push(started.elapsed());
                    assert_eq!(answer["backend"], status.answering);
                }
                times.sort();
                let at = |share: f64| times[((times.len() - 1) as f64 * share) as usize];
                println!(
                    "{:<11} {:<9} {:<18} {:>7}  {:>8}  {:>7}  {:>7}",
                    if pages > 0 { "10,000 p." } else { "demo" },
                    database,
                    status.answering,
                    status.sources,
                    build.as_millis(),
                    at(0.50).as_micros(),
                    at(0.99).as_micros(),
                );
            }
        }
        backends.finish(&runtime);
    }
}

async fn ask(host: &Host, question: &str) -> Value {
    let actor = Actor {
        id: "admin".into(),
        admin: true,
    };
    let outcome = host
        .calls()
        .call(
            &actor,
            "site_rag_query",
            json!({ "question": question, "limit": 10 }),
            RunId("bench".into()),
            &host_example::app::calls::CallScope::Stateless,
            CancelToken::new(),
        )
        .await
        .unwrap();
    let Outcome::Done(output) = outcome else {
        panic!("{outcome:?}")
    };
    serde_json::from_str(&output.to_model_text()).unwrap()
}

/// Adds `count` public pages under the main site's root, each with two
/// text elements of 40 words drawn from [`VOCABULARY`] (a fixed
/// pseudo-random sequence, the same on every run), in one change.
async fn generate(store: &Store, count: u64) {
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut text = |words: usize| -> String {
        (0..words)
            .map(|_| VOCABULARY[(next() % VOCABULARY.len() as u64) as usize])
            .collect::<Vec<_>>()
            .join(" ")
    };
    let fields = |pairs: Vec<(&str, Value)>| -> Fields {
        pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
    };
    let mut operations = Vec::new();
    for n in 0..count {
        let page = 10_000 + n;
        operations.push(Operation::Insert {
            target: Target::Page(PageId(page)),
            values: fields(vec![
                ("parent", json!(1)),
                ("title", json!(format!("{} {n}", text(3)))),
                ("nav_title", Value::Null),
                ("slug", json!(format!("generated-{n}"))),
                ("description", json!(text(12))),
                ("kind", json!("standard")),
                ("hidden", json!(false)),
                ("deleted", json!(false)),
                ("language", json!(0)),
                ("translation_of", Value::Null),
                ("sorting", json!(100_000 + n)),
            ]),
        });
        for column in 0..2_u64 {
            operations.push(Operation::Insert {
                target: Target::Element(site_model::ElementId(100_000 + 2 * n + column)),
                values: fields(vec![
                    ("page", json!(page)),
                    ("column", json!(column)),
                    ("sorting", json!(256)),
                    ("ctype", json!("text")),
                    ("header", json!(text(2))),
                    ("body", json!(format!("<p>{}</p>", text(40)))),
                    ("hidden", json!(false)),
                    ("deleted", json!(false)),
                    ("language", json!(0)),
                    ("translation_of", Value::Null),
                ]),
            });
        }
    }
    store
        .site()
        .apply(ChangeSet {
            operations,
            history: Vec::new(),
        })
        .await
        .unwrap();
}
