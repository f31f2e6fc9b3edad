//! Gate resolution and the call-time check (BENCHMARKS.md, "Gates").
//!
//! `cargo bench -p tool-core --bench gates`; the same paths in instructions:
//! `tool-core/benches/callgrind.sh`.

mod common;

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use futures_executor::block_on;
use tool_core::gates::{Gates, HostSettings, RunConfig, RunInputs, Selection};
use tool_core::{RunId, ToolContext};

fn resolve(c: &mut Criterion) {
    let registry = common::registry(1000);
    let settings = HostSettings::default();
    let config = RunConfig::default();
    let skills = common::skills();
    let inputs = RunInputs {
        settings: &settings,
        actor: None,
        config: &config,
        skills: &skills,
        selection: &Selection::All,
    };
    let granted = Gates::new(&registry, inputs).resolve().grant.len();
    assert!(granted > 100 && granted < 1000, "{granted}");
    c.bench_function(
        "gates/resolve 1000 tools, 20 groups, 50 skills x 10 tokens",
        |b| b.iter(|| Gates::new(black_box(&registry), black_box(inputs)).resolve()),
    );
}

fn call_check(c: &mut Criterion) {
    let registry = common::registry(1);
    let (gates, grant) = common::gates(&registry, &[]);
    let cx = ToolContext::new(RunId("bench".into()));
    let arguments = common::arguments();
    let mut group = c.benchmark_group("gates/call");
    group.bench_function("bare from_value + execute", |b| {
        b.iter(|| block_on(common::bare(black_box(arguments.clone()), &cx)))
    });
    group.bench_function("ungated Registry::call", |b| {
        b.iter(|| block_on(registry.call_ungated("read_file", black_box(arguments.clone()), &cx)))
    });
    group.bench_function("gated Gates::call", |b| {
        b.iter(|| block_on(gates.call(&grant, "read_file", black_box(arguments.clone()), &cx)))
    });
    group.bench_function("check_call alone", |b| {
        b.iter(|| {
            gates
                .check_call(&grant, black_box("read_file"), &arguments, &cx)
                .is_ok()
        })
    });
    group.finish();
}

/// The same gated call with 3 and with 1,000 granted tools.
fn granted_tools(c: &mut Criterion) {
    let cx = ToolContext::new(RunId("bench".into()));
    let arguments = common::arguments();
    let mut group = c.benchmark_group("gates/granted tools");
    for tools in [3, 1000] {
        let registry = common::registry(tools);
        let (gates, grant) = common::gates(&registry, &[]);
        assert_eq!(grant.len(), tools);
        group.bench_function(format!("{tools}"), |b| {
            b.iter(|| block_on(gates.call(&grant, "read_file", black_box(arguments.clone()), &cx)))
        });
    }
    group.finish();
}

/// The same gated call granted whole and granted with a path scope.
fn scoped(c: &mut Criterion) {
    let registry = common::registry(3);
    let cx = ToolContext::new(RunId("bench".into()));
    let arguments = common::arguments();
    let mut group = c.benchmark_group("gates/scope");
    for (label, token) in [("unscoped", "read_file"), ("scoped", "read_file(src/**)")] {
        let (gates, grant) = common::gates(&registry, &[common::skill("s", token)]);
        assert!(block_on(gates.call(&grant, "read_file", arguments.clone(), &cx)).is_ok());
        group.bench_function(label, |b| {
            b.iter(|| block_on(gates.call(&grant, "read_file", black_box(arguments.clone()), &cx)))
        });
    }
    group.finish();
}

criterion_group!(benches, resolve, call_check, granted_tools, scoped);
criterion_main!(benches);
