//! Gate resolution and the call-time check (BENCHMARKS.md, "Gates").
//!
//! `cargo bench -p tool-core --bench gates`

use std::borrow::Cow;
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use futures_executor::block_on;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tool_core::gates::{Gates, HostSettings, RunConfig, RunInputs, Selection};
use tool_core::skills::{AllowedTools, SkillRef, TrustLevel, tokenize};
use tool_core::{
    BoxFuture, Declaration, DefinitionSite, DynTool, Effect, Egress, Execute, Registry, RunId,
    Shipped, Tool, ToolContext, ToolError, ToolOutput,
};

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

struct Generated {
    name: String,
    group: String,
}

impl DynTool for Generated {
    fn declaration(&self) -> Declaration {
        Declaration {
            name: Cow::Owned(self.name.clone()),
            group: Cow::Owned(self.group.clone()),
            description: Cow::Borrowed("A generated tool."),
            title: None,
            requires_admin: false,
            egress: Egress::None,
            effect: Effect::Read,
            shipped: Shipped::Enabled,
            scope: None,
            data: tool_core::DataClass::Public,
            timeout: None,
            idempotent: true,
        }
    }
    fn site(&self) -> DefinitionSite {
        DefinitionSite {
            crate_name: "bench",
            module_path: "bench",
            file: "gates.rs",
            line: 0,
        }
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object", "properties": {"q": {"type": "string"}}})
    }
    fn execute<'a>(
        &'a self,
        _arguments: Value,
        _cx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async { Ok(ToolOutput::text("")) })
    }
}

/// 1,000 tools in 20 groups (plus the linked `read_file`).
fn registry() -> Registry {
    let mut builder = Registry::builder().linked();
    for i in 0..999 {
        builder = builder.add(Generated {
            name: format!("tool_{i:04}"),
            group: format!("group-{:02}", i % 20),
        });
    }
    builder.build().unwrap()
}

/// 50 effective skills of 10 tokens each, over the generated tools.
fn skills() -> Vec<SkillRef> {
    (0..50)
        .map(|s| {
            let tokens: Vec<String> = (0..10)
                .map(|t| format!("tool_{:04}", (s * 17 + t * 7) % 999))
                .collect();
            let (patterns, _) = tokenize(&tokens.join(" "));
            SkillRef {
                id: format!("skill-{s}"),
                enabled: true,
                orphaned: false,
                trust: TrustLevel(1),
                allowed_tools: AllowedTools::Declared(patterns),
                text: String::new(),
            }
        })
        .collect()
}

fn resolve(c: &mut Criterion) {
    let registry = registry();
    let settings = HostSettings::default();
    let config = RunConfig::default();
    let skills = skills();
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
    let registry = Registry::builder().linked().build().unwrap();
    let settings = HostSettings::default();
    let config = RunConfig::default();
    let inputs = RunInputs {
        settings: &settings,
        actor: None,
        config: &config,
        skills: &[],
        selection: &Selection::All,
    };
    let gates = Gates::new(&registry, inputs);
    let grant = gates.resolve().grant;
    let cx = ToolContext::new(RunId("bench".into()));
    let arguments = json!({"path": "src/lib.rs", "limit": 40, "numbered": true});
    let mut group = c.benchmark_group("gates/call");
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

criterion_group!(benches, resolve, call_check);
criterion_main!(benches);
