//! The registry build benchmark, shared by the `build_*` binaries.

use std::time::Instant;

use criterion::{BatchSize, Criterion};
use tool_core::Registry;

/// Builds the registry of every linked tool (`count` derived tools in the
/// calling binary), plus, to apportion the time, the validator compilations
/// alone and the drop.
pub fn bench_linked_build(c: &mut Criterion, count: usize) {
    let start = Instant::now();
    let registry = Registry::linked().expect("the generated tools are valid");
    let first = start.elapsed();
    assert_eq!(
        registry.len(),
        count,
        "exactly the generated tools are linked"
    );
    eprintln!("first build of {count} tools in this process: {first:?}");

    let schemas: Vec<_> = registry
        .tools()
        .iter()
        .map(|tool| tool.schema().clone())
        .collect();
    drop(registry);

    let mut group = c.benchmark_group("registry_build");
    if count >= 1_000 {
        group.sample_size(10);
    }
    group.bench_function(format!("{count}_derived"), |b| {
        b.iter_batched(
            || (),
            |()| Registry::linked().expect("valid"),
            BatchSize::PerIteration,
        )
    });
    group.bench_function(format!("{count}_jsonschema_compile_only"), |b| {
        b.iter_batched(
            || (),
            |()| {
                schemas
                    .iter()
                    .map(|schema| jsonschema::validator_for(schema).expect("valid"))
                    .collect::<Vec<_>>()
            },
            BatchSize::PerIteration,
        )
    });
    group.bench_function(format!("{count}_drop"), |b| {
        b.iter_batched(
            || Registry::linked().expect("valid"),
            drop,
            BatchSize::PerIteration,
        )
    });
    group.finish();
}
