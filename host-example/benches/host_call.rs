//! The cost the host adds to a tool call: calls per second of one read
//! tool (`get_pagetree` on the stored demo site) through the gates, bare
//! and as a run makes it (plus its `ToolExecuted` event row and its two
//! audit rows, through [`EventLog`]), with 1 and 8 runs calling at once,
//! on a SQLite file and, when `HOST_TEST_POSTGRES_URL` names a server, on
//! a fresh PostgreSQL database.
//!
//! `cargo bench -p host-example --bench host_call` (each figure is a
//! 3-second window; `HOST_BENCH_SECS` changes it).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use host_example::Host;
use host_example::app::recorder::EventLog;
use host_example::store::Store;
use serde_json::json;
use tool_core::agent::{CallResult, Event};
use tool_core::gates::Gates;
use tool_core::{Outcome, RunId};

#[path = "common/backends.rs"]
mod backends;
use backends::Backends;

fn main() {
    let seconds: u64 = std::env::var("HOST_BENCH_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    let window = Duration::from_secs(seconds);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let backends = Backends::new(&runtime, "bench");
    println!("backend   runs  bare calls/s  host calls/s  host cost/call");
    for (backend, url) in &backends.urls {
        let store = runtime.block_on(Store::open(url)).unwrap();
        let host: &'static Host = Box::leak(Box::new(Host::new(store.clone()).unwrap()));
        for runs in [1, 8] {
            let bare = runtime.block_on(measure(host, &store, runs, window, false));
            let recorded = runtime.block_on(measure(host, &store, runs, window, true));
            let cost = 1.0 / recorded - 1.0 / bare;
            println!(
                "{backend:<9} {runs:>4}  {bare:>12.0}  {recorded:>12.0}  {:>11.2} ms",
                cost * 1000.0 * f64::from(runs)
            );
        }
    }
    backends.finish(&runtime);
}

/// Calls per second over all `runs`, each calling in a loop for `window`.
/// The run rows are written to `store` directly (the database `host` is
/// over), as the recorder beneath the app layer writes them.
async fn measure(
    host: &'static Host,
    store: &Store,
    runs: u32,
    window: Duration,
    record: bool,
) -> f64 {
    static RUN: AtomicU64 = AtomicU64::new(0);
    let mut tasks = tokio::task::JoinSet::new();
    let started = Instant::now();
    for _ in 0..runs {
        let store = store.clone();
        tasks.spawn(async move {
            let setup = host.runs().setup("admin", &[]).await.unwrap();
            let run = RunId(format!("bench-{}", RUN.fetch_add(1, Ordering::Relaxed)));
            let gates = Gates::new(host.registry(), setup.inputs());
            let grant = gates.resolve().grant;
            store
                .run_log()
                .create_run(
                    &run,
                    "admin",
                    &grant,
                    host_example::store::Lease {
                        owner: "test",
                        until_ms: i64::MAX,
                    },
                )
                .await
                .unwrap();
            let cx = host.runs().context(&run, &setup.actor);
            let mut log = EventLog::new(store, run, "admin");
            let mut calls = 0u64;
            while started.elapsed() < window {
                let at = Instant::now();
                let arguments = json!({});
                let outcome = gates
                    .call(&grant, "get_pagetree", arguments.clone(), &cx)
                    .await
                    .unwrap();
                let Outcome::Done(output) = outcome else {
                    panic!("a read tool answers")
                };
                if record {
                    let event = Event::ToolExecuted {
                        round: 1,
                        call_id: format!("call-{calls}").into(),
                        tool: "get_pagetree".into(),
                        arguments: std::borrow::Cow::Owned(arguments),
                        result: CallResult::Output { output },
                        duration: at.elapsed(),
                    };
                    log.record(&event).await.unwrap();
                }
                calls += 1;
            }
            calls
        });
    }
    let calls: u64 = tasks.join_all().await.into_iter().sum();
    calls as f64 / started.elapsed().as_secs_f64()
}
