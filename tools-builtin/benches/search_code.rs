//! `search_code` over this repository's own source tree against the `rg`
//! binary with the same literal, in one run. The half for `rg` is skipped,
//! with a note, where `rg` is not installed.

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use futures_executor::block_on;
use serde_json::json;
use site_model::{MemorySite, Site};
use tool_core::{Actor, Outcome, Registry, RunId, ToolContext};

const LITERAL: &str = "not_found()";

fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .expect("the workspace root exists")
}

fn search_code(c: &mut Criterion) {
    let root = workspace_root();
    let site: Arc<dyn Site> = Arc::new(MemorySite::demo().with_source_root(&root));
    let cx = ToolContext::new(RunId("bench".into()))
        .with_service(site)
        .with_actor(Actor {
            id: "admin".into(),
            admin: true,
        });
    tools_builtin::link();
    let registry = Registry::linked().expect("the built-in tools are valid");
    let run =
        || match block_on(registry.call_ungated("search_code", json!({"pattern": LITERAL}), &cx)) {
            Ok(Outcome::Done(output)) => output.to_model_text(),
            other => panic!("search_code failed: {other:?}"),
        };
    println!("search_code: {}", run().lines().last().unwrap_or_default());

    let mut group = c.benchmark_group("search_code_literal");
    group.bench_function("search_code", |b| b.iter(run));

    let rg = || {
        Command::new("rg")
            .args(["--fixed-strings", "--line-number", "--no-heading", LITERAL])
            .arg(&root)
            .output()
    };
    match rg() {
        Ok(output) => {
            let lines = String::from_utf8_lossy(&output.stdout).lines().count();
            println!("rg: {lines} matching lines");
            group.bench_function("rg", |b| b.iter(|| rg().expect("rg runs")));
        }
        Err(_) => println!("note: `rg` is not installed; only search_code was measured"),
    }
    group.finish();
}

criterion_group!(benches, search_code);
criterion_main!(benches);
