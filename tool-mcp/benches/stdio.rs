//! One `tools/call` round trip over stdio: tool-mcp's server ([`Gated`]:
//! the grant, the gates at the call, the derived argument checks, gate 9's
//! reads kept) against a plain rmcp server serving the same tool with none
//! of that (a hand-written `ServerHandler`, rmcp's leanest form), both in
//! this optimized binary, driven by the same client loop: one JSON-RPC
//! line written, its answer line read. rmcp's `stdio()` reads and writes
//! through tokio's blocking pool; tool-mcp reads a pipe through the
//! runtime's poller; the third server is the plain one on that transport,
//! so the difference between it and tool-mcp is the gating alone.
//!
//! Both serve `get_pagetree` (`{"root": 19, "depth": 1}`) as `admin` over
//! the demo site in memory. Each server is this bench binary started
//! again with `TOOL_MCP_BENCH_SERVER=toolkit|plain|plain-pipe`.
//!
//! `cargo bench -p tool-mcp --bench stdio`

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::{AsFd, BorrowedFd};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;

use criterion::{Criterion, criterion_group};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler, ServiceExt as _};
use serde_json::{Value, json};
use site_model::{MemorySite, Site};
use tokio::net::unix::pipe;
use tool_core::{Actor, Execute as _, Registry, RunId, ToolContext};
use tool_mcp::{Gated, McpServer};
use tools_builtin::structure::GetPagetree;

const SERVER: &str = "TOOL_MCP_BENCH_SERVER";

fn site() -> Arc<dyn Site> {
    Arc::new(MemorySite::demo())
}

fn admin() -> Actor {
    Actor::admin("admin")
}

/// The plain server: the tool over the site, as `admin`.
#[derive(Clone)]
struct Plain {
    site: Arc<dyn Site>,
}

impl ServerHandler for Plain {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _cx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let tool: GetPagetree = serde_json::from_value(arguments)
            .map_err(|e| ErrorData::invalid_params(e.to_string(), None))?;
        let cx = ToolContext::new(RunId("plain".into()))
            .with_service(Arc::clone(&self.site))
            .with_actor(admin());
        let result = match tool.execute(&cx).await {
            Ok(output) => CallToolResult::success(vec![ContentBlock::text(output.to_model_text())]),
            Err(error) => CallToolResult::error(vec![ContentBlock::text(error.model_text())]),
        };
        Ok(result.into())
    }
}

/// Serves stdio as `which` says until stdin ends.
fn serve(which: &str) {
    tools_builtin::link();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let site = site();
        match which {
            "toolkit" => {
                let host = Gated::new(Registry::linked().unwrap()).context(move |run, actor| {
                    ToolContext::new(run.clone())
                        .with_actor(actor.clone())
                        .with_service(Arc::clone(&site))
                });
                McpServer::from_host(host)
                    .serve_stdio(admin())
                    .await
                    .unwrap();
            }
            "plain" => {
                let running = Plain { site }
                    .serve(rmcp::transport::stdio())
                    .await
                    .unwrap();
                running.waiting().await.unwrap();
            }
            "plain-pipe" => {
                // stdin and stdout through the runtime's poller, as
                // tool-mcp reads a pipe: the same transport as `toolkit`.
                let input = pipe::Receiver::from_file(duplicate(std::io::stdin().as_fd())).unwrap();
                let output = pipe::Sender::from_file(duplicate(std::io::stdout().as_fd())).unwrap();
                let running = Plain { site }.serve((input, output)).await.unwrap();
                running.waiting().await.unwrap();
            }
            other => panic!("{SERVER} must be toolkit, plain or plain-pipe, not {other}"),
        }
    });
}

fn duplicate(fd: BorrowedFd<'_>) -> File {
    File::from(fd.try_clone_to_owned().unwrap())
}

/// A server on the other end of two pipes, spoken to one line at a time.
struct Client {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
    line: String,
}

impl Client {
    fn start(which: &str) -> Client {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .env(SERVER, which)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut client = Client {
            stdin: child.stdin.take().unwrap(),
            stdout: BufReader::new(child.stdout.take().unwrap()),
            child,
            next_id: 1,
            line: String::new(),
        };
        let params = json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "tool-mcp-bench", "version": "1"}
        });
        let answer = client.request("initialize", params);
        assert!(answer.contains("protocolVersion"), "{answer}");
        client.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        client
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends a request and returns its answer's line.
    fn request(&mut self, method: &str, params: Value) -> &str {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let marker = format!("\"id\":{id}");
        loop {
            self.line.clear();
            assert!(
                self.stdout.read_line(&mut self.line).unwrap() > 0,
                "the server ended"
            );
            if self.line.contains(&marker) {
                return &self.line;
            }
        }
    }

    fn call(&mut self) {
        let params = json!({"name": "get_pagetree", "arguments": {"root": 19, "depth": 1}});
        let answer = self.request("tools/call", params);
        assert!(!answer.contains("\"isError\":true"), "{answer}");
        assert!(answer.contains("\"result\""), "{answer}");
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn round_trip(c: &mut Criterion) {
    let mut group = c.benchmark_group("tools/call over stdio");
    let mut toolkit = Client::start("toolkit");
    let mut plain = Client::start("plain");
    let mut plain_pipe = Client::start("plain-pipe");
    // Alternating warm-ups, so none runs on a colder cache.
    for _ in 0..50 {
        toolkit.call();
        plain.call();
        plain_pipe.call();
    }
    group.bench_function("tool-mcp (Gated)", |b| b.iter(|| toolkit.call()));
    group.bench_function("plain rmcp", |b| b.iter(|| plain.call()));
    group.bench_function("plain rmcp, pipe transport", |b| {
        b.iter(|| plain_pipe.call())
    });
    group.finish();
}

criterion_group!(benches, round_trip);

fn main() {
    if let Ok(which) = std::env::var(SERVER) {
        serve(&which);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
