//! The agent loop's own cost per round (BENCHMARKS.md, "Agent loop"): a
//! run of 5 rounds, 30 offered tools and a 50-message history
//! (`agent_run`), with no event sink, with a sink that reads every event,
//! and with one that keeps them; and the model alone on the same 5
//! requests, which the loop's overhead is the difference to.
//!
//! `cargo bench -p tool-core --bench agent_loop`. Before timing, it prints
//! the heap allocations per round, counted by the counting global
//! allocator below. The same paths in instructions:
//! `tool-core/benches/callgrind.sh agent-none agent-listening agent-model`.

mod agent_run;

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};

use agent_run::{CannedModel, Host, ROUNDS};
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use futures_executor::block_on;
use tool_core::agent::{Agent, Event, EventSink, Message, RunEnd};
use tool_core::{Registry, RunId, ToolContext};

/// The system allocator, counting every allocation (a `realloc` counts as
/// one) and the bytes asked for.
struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);

// SAFETY: every method forwards to `System` with the caller's arguments
// unchanged; the counters are plain atomics.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(layout.size() as u64, Ordering::Relaxed);
        // SAFETY: the caller's contract for `alloc` is `System`'s.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(layout.size() as u64, Ordering::Relaxed);
        // SAFETY: the caller's contract for `alloc_zeroed` is `System`'s.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(new_size as u64, Ordering::Relaxed);
        // SAFETY: `ptr` was allocated by `System` with `layout`; the
        // caller's contract for `realloc` is `System`'s.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// A sink that reads every event and keeps nothing, as a live view does.
fn listening() -> impl EventSink {
    |event: &Event| {
        black_box(event);
    }
}

/// One run, its messages given.
fn run(
    registry: &Registry,
    model: &CannedModel,
    host: &Host,
    cx: &ToolContext,
    history: Vec<Message>,
    events: &mut impl EventSink,
) {
    let end = block_on(Agent::new(registry, model).start(history, host.inputs(), cx, events));
    let RunEnd::Finished(finished) = end else {
        panic!("no write tool, so the run cannot suspend");
    };
    assert_eq!(finished.rounds as usize, ROUNDS);
    black_box(finished);
}

/// One run from the history it is given, with one of the sinks.
type RunFrom<'a> = dyn FnMut(Vec<Message>) + 'a;

/// Allocations and bytes asked for by `f`.
fn counted(f: impl FnOnce()) -> (u64, u64) {
    let (calls, bytes) = (
        ALLOCATIONS.load(Ordering::Relaxed),
        BYTES.load(Ordering::Relaxed),
    );
    f();
    (
        ALLOCATIONS.load(Ordering::Relaxed) - calls,
        BYTES.load(Ordering::Relaxed) - bytes,
    )
}

/// Prints the allocations per round of each path, and the loop's own (the
/// run's less the model's).
fn allocations() {
    let registry = agent_run::registry();
    let model = CannedModel::new();
    let host = Host::new();
    let cx = ToolContext::new(RunId("bench".into()));
    let requests = agent_run::requests(&registry, &model);
    let model_alone = || {
        for (messages, tools) in &requests {
            black_box(model.answer(messages, tools.as_deref()).expect("canned"));
        }
    };
    model_alone();
    let (model_calls, model_bytes) = counted(model_alone);
    let rounds = ROUNDS as u64;
    println!(
        "agent_loop allocations per round (the model alone: {} allocations, {} bytes)",
        model_calls / rounds,
        model_bytes / rounds
    );
    let mut kept = Vec::new();
    let sinks: [(&str, &mut RunFrom); 3] = [
        ("no sink", &mut |history| {
            run(&registry, &model, &host, &cx, history, &mut ())
        }),
        ("listening sink", &mut |history| {
            run(&registry, &model, &host, &cx, history, &mut listening())
        }),
        ("recording sink", &mut |history| {
            kept.clear();
            run(&registry, &model, &host, &cx, history, &mut kept)
        }),
    ];
    for (name, run) in sinks {
        // Warm up once (lazy exports, the allocator's first pages).
        run(agent_run::history());
        let history = agent_run::history();
        let (calls, bytes) = counted(|| run(history));
        println!(
            "  {name}: run {} allocations, {} bytes; loop {} allocations, {} bytes",
            calls / rounds,
            bytes / rounds,
            calls.saturating_sub(model_calls) / rounds,
            bytes.saturating_sub(model_bytes) / rounds,
        );
    }
}

fn agent_loop(c: &mut Criterion) {
    allocations();
    let registry = agent_run::registry();
    let model = CannedModel::new();
    let host = Host::new();
    let cx = ToolContext::new(RunId("bench".into()));
    let requests = agent_run::requests(&registry, &model);
    let mut group = c.benchmark_group("agent_loop/5 rounds, 30 tools, 50 messages");
    group.bench_function("model alone", |b| {
        b.iter(|| {
            for (messages, tools) in &requests {
                black_box(model.answer(messages, tools.as_deref()).expect("canned"));
            }
        })
    });
    group.bench_function("run, no sink", |b| {
        b.iter_batched(
            agent_run::history,
            |history| run(&registry, &model, &host, &cx, history, &mut ()),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("run, listening sink", |b| {
        b.iter_batched(
            agent_run::history,
            |history| run(&registry, &model, &host, &cx, history, &mut listening()),
            BatchSize::SmallInput,
        )
    });
    let mut kept = Vec::new();
    group.bench_function("run, recording sink", |b| {
        b.iter_batched(
            agent_run::history,
            |history| {
                kept.clear();
                run(&registry, &model, &host, &cx, history, &mut kept)
            },
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

criterion_group!(benches, agent_loop);
criterion_main!(benches);
