//! What timeouts, cancellation and decision records add to one gated call
//! (BENCHMARKS.md, "Calls").
//!
//! `cargo bench -p tool-core --bench calls`

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use futures_executor::block_on;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tool_core::calls::{CancelToken, DecisionRecord, ThreadTimer};
use tool_core::gates::{Gates, HostSettings, RunConfig, RunInputs, Selection};
use tool_core::{Execute, Registry, RunId, Tool, ToolContext, ToolError, ToolOutput};

/// Read part of a file.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(data = "public", group = "files", effect = "read")]
struct ReadFile {
    /// The file.
    path: String,
    /// At most this many lines.
    limit: u32,
    /// Whether to number the lines.
    numbered: bool,
}

impl Execute for ReadFile {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(format!(
            "{} {} {}",
            self.path, self.limit, self.numbered
        )))
    }
}

fn calls(c: &mut Criterion) {
    let plain = Registry::builder().linked().build().unwrap();
    let timed = Registry::builder()
        .linked()
        .timer(ThreadTimer::new())
        .default_timeout(Duration::from_secs(30))
        .timeout_ceiling(Duration::from_secs(300))
        .build()
        .unwrap();
    let settings = HostSettings::default();
    let config = RunConfig::default();
    let inputs = RunInputs {
        settings: &settings,
        actor: None,
        config: &config,
        skills: &[],
        selection: &Selection::All,
    };
    let arguments = json!({"path": "src/lib.rs", "limit": 40, "numbered": true});
    let cx = ToolContext::new(RunId("bench".into()));
    let cancellable = cx.clone().with_cancel(CancelToken::new());
    let recorded = cx.clone().with_decision_sink(|r: &DecisionRecord| {
        black_box(r);
    });

    let mut group = c.benchmark_group("calls/gated");
    let gates = Gates::new(&plain, inputs);
    let grant = gates.resolve().grant;
    group.bench_function("no timeout, no token, no sink", |b| {
        b.iter(|| block_on(gates.call(&grant, "read_file", black_box(arguments.clone()), &cx)))
    });
    group.bench_function("cancel token", |b| {
        b.iter(|| {
            block_on(gates.call(
                &grant,
                "read_file",
                black_box(arguments.clone()),
                &cancellable,
            ))
        })
    });
    group.bench_function("decision sink", |b| {
        b.iter(|| {
            block_on(gates.call(&grant, "read_file", black_box(arguments.clone()), &recorded))
        })
    });
    let timed_gates = Gates::new(&timed, inputs);
    let timed_grant = timed_gates.resolve().grant;
    group.bench_function("timeout and ceiling on a thread timer", |b| {
        b.iter(|| {
            block_on(timed_gates.call(&timed_grant, "read_file", black_box(arguments.clone()), &cx))
        })
    });
    group.finish();
}

criterion_group!(benches, calls);
criterion_main!(benches);
