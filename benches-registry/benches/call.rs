//! Benchmarks 1 and 2: the cost of one checked call through
//! `tool_core::Registry::call` against the bare baseline and rmcp's
//! `ToolRouter::call`, and with 3 versus 100 registered tools.
//!
//! Every variant clones the argument `Value` in each iteration, deserializes
//! the same struct with the same serde impl and runs the same function.

use std::hint::black_box;

use benches_registry::{Filler, list_files, list_files_arguments};
use criterion::{Criterion, criterion_group, criterion_main};
use futures_executor::block_on;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolRequestParams, NumberOrString};
use rmcp::service::RequestContext;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use tool_core::{Execute, Outcome, Registry, RunId, Tool, ToolContext, ToolError, ToolOutput};

/// List the files of a directory.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(data = "public", group = "bench", effect = "read")]
struct ListFiles {
    /// The directory to list.
    path: String,
    /// At most this many entries.
    limit: u32,
    /// Whether to include sizes.
    verbose: bool,
}

impl Execute for ListFiles {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(list_files(
            self.path,
            self.limit,
            self.verbose,
        )))
    }
}

/// The same tool as an rmcp server, routed by `#[tool_router]`.
#[derive(Clone)]
struct McpServer;

#[rmcp::tool_router(server_handler)]
impl McpServer {
    /// List the files of a directory.
    #[rmcp::tool(name = "list_files")]
    fn list_files(&self, Parameters(arguments): Parameters<ListFiles>) -> String {
        list_files(arguments.path, arguments.limit, arguments.verbose)
    }
}

fn bare(arguments: &Value) -> String {
    let arguments: ListFiles = serde_json::from_value(arguments.clone()).expect("valid arguments");
    list_files(arguments.path, arguments.limit, arguments.verbose)
}

fn expect_done(outcome: Result<Outcome, ToolError>) -> ToolOutput {
    match outcome {
        Ok(Outcome::Done(output)) => output,
        other => panic!("the call failed: {other:?}"),
    }
}

fn call_overhead(c: &mut Criterion) {
    let arguments = list_files_arguments();
    let registry = Registry::linked().expect("the bench tool is valid");
    assert_eq!(registry.len(), 1, "only `list_files` is linked here");
    let cx = ToolContext::new(RunId("bench".into()));

    // rmcp hands each call a `RequestContext`, which needs a peer, which
    // only a running service has: serve the same server over an in-memory
    // pipe (never used) on a current-thread runtime to get one.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a current-thread runtime");
    let _entered = runtime.enter();
    let (transport, _other_end) = tokio::io::duplex(4096);
    let running = rmcp::service::serve_directly(McpServer, transport, None);
    let peer = running.peer().clone();
    let server = McpServer;
    let router = McpServer::tool_router();

    // A `ToolCallContext` is consumed by the call, so each call builds one.
    let rmcp_context = |arguments: &Value| {
        let Value::Object(arguments) = arguments.clone() else {
            unreachable!("the arguments are an object")
        };
        ToolCallContext::new(
            &server,
            CallToolRequestParams::new("list_files").with_arguments(arguments),
            RequestContext::new(NumberOrString::Number(1), peer.clone()),
        )
    };
    let rmcp_call = |arguments: &Value| {
        block_on(router.call(rmcp_context(arguments))).expect("the rmcp call succeeds")
    };

    // Every path returns the same text.
    let expected = bare(&arguments);
    assert_eq!(
        expect_done(block_on(registry.call_ungated(
            "list_files",
            arguments.clone(),
            &cx
        )))
        .as_text(),
        Some(expected.as_str())
    );
    let rmcp_result = format!("{:?}", rmcp_call(&arguments));
    assert!(rmcp_result.contains(&expected), "{rmcp_result}");

    let schema = registry.get("list_files").expect("linked").schema().clone();
    let validator = jsonschema::validator_for(&schema).expect("a valid schema");

    let mut group = c.benchmark_group("call_3_fields");
    group.bench_function("bare", |b| b.iter(|| bare(black_box(&arguments))));
    group.bench_function("bare_block_on", |b| {
        b.iter(|| block_on(async { bare(black_box(&arguments)) }))
    });
    group.bench_function("bare_jsonschema_validated", |b| {
        b.iter(|| {
            let arguments = black_box(&arguments);
            assert!(validator.is_valid(arguments));
            bare(arguments)
        })
    });
    group.bench_function("registry", |b| {
        b.iter(|| {
            expect_done(block_on(registry.call_ungated(
                "list_files",
                black_box(&arguments).clone(),
                &cx,
            )))
        })
    });
    group.bench_function("rmcp_tool_router", |b| {
        b.iter(|| rmcp_call(black_box(&arguments)))
    });
    // What of rmcp's figure is building and dropping the context (with the
    // cloned arguments), not routing and running the call.
    group.bench_function("rmcp_context_only", |b| {
        b.iter(|| rmcp_context(black_box(&arguments)))
    });
    group.finish();
}

fn registry_with(total: usize) -> Registry {
    (1..total)
        .fold(Registry::builder().linked(), |builder, index| {
            builder.add(Filler::new(index))
        })
        .build()
        .expect("valid tools")
}

fn call_by_tool_count(c: &mut Criterion) {
    let arguments = list_files_arguments();
    let cx = ToolContext::new(RunId("bench".into()));
    let mut group = c.benchmark_group("registry_call_by_tool_count");
    for total in [3, 100] {
        let registry = registry_with(total);
        assert_eq!(registry.len(), total);
        group.bench_function(format!("{total}_tools"), |b| {
            b.iter(|| {
                expect_done(block_on(registry.call_ungated(
                    "list_files",
                    black_box(&arguments).clone(),
                    &cx,
                )))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, call_overhead, call_by_tool_count);
criterion_main!(benches);
