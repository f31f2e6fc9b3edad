//! `tools/list` with 100 offered tools, one page, answered over an
//! in-memory pipe to a client in the same process, three ways:
//!
//! - **bytes**: the answer's line, serialized once, written again for each
//!   request: the floor a pre-serialized list could reach;
//! - **host**: `mcp::serve_io` (the host's stdio server on rmcp's
//!   transport, over the app layer on a SQLite file): identity, the
//!   grant (one read of the settings generation), the grant's cached page,
//!   serialized by rmcp;
//! - **plain rmcp**: a hand-written rmcp `ServerHandler` returning a clone
//!   of the same `Vec<Tool>`, on rmcp's own transport.
//!
//! All three answer the same JSON (checked before measuring), and the
//! bytes path writes the host's line. The
//! client's part (one request line written, one answer line read) is the
//! same.
//!
//! The 100 tools: the host's linked tools `admin` is granted, and copies of
//! them (same descriptions and schemas, other names) to make up 100.
//!
//! `cargo bench -p host-example --bench mcp_list`
//!
//! Instruction counts (the machine is shared): with `MCP_LIST_COUNT=N
//! MCP_LIST_PATH=bytes|host|plain` the bench makes N requests of one path
//! and exits; run it under `valgrind --tool=callgrind` for two N, and
//! (Ir(N2) − Ir(N1)) / (N2 − N1) is one request's cost, set-up cancelled.

use std::sync::Arc;

use criterion::{Criterion, criterion_group};
use host_example::store::Store;
use host_example::{Host, mcp};
use rmcp::model::{
    CacheScope, ErrorData, ListToolsResult, PaginatedRequestParams, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler, ServiceExt as _};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::runtime::Runtime;
use tokio::task::JoinHandle;
use tool_core::export::Provider;
use tool_core::{
    Actor, BoxFuture, Declaration, DefinitionSite, DynTool, Effect, Egress, Registry, Shipped,
    ToolContext, ToolError, ToolOutput,
};

const TOOLS: usize = 100;
/// The request every path answers; one id, so every answer is one line of
/// the same bytes.
const REQUEST: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\"}\n";
/// Big enough for the whole answer, so no path waits on the reader.
const PIPE: usize = 1 << 20;

/// A copy of a linked tool under another name.
struct Copy {
    declaration: Declaration,
    schema: Value,
}

impl DynTool for Copy {
    fn declaration(&self) -> Declaration {
        self.declaration.clone()
    }
    fn site(&self) -> DefinitionSite {
        DefinitionSite {
            crate_name: "bench",
            module_path: "mcp_list",
            file: "benches/mcp_list.rs",
            line: 0,
        }
    }
    fn input_schema(&self) -> Value {
        self.schema.clone()
    }
    fn execute<'a>(
        &'a self,
        _arguments: Value,
        _cx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async { Ok(ToolOutput::text("")) })
    }
}

fn admin() -> Actor {
    Actor {
        id: "admin".into(),
        admin: true,
    }
}

/// The host's registry with copies added until `admin` is granted
/// [`TOOLS`] tools.
fn registry(runtime: &Runtime) -> Registry {
    let linked = host_example::registry().unwrap();
    let (linked_host, _folder) = host(runtime, host_example::registry().unwrap());
    let granted = runtime.block_on(linked_host.access().grant(&admin()));
    let granted: Vec<String> = granted.unwrap().tool_names().map(str::to_owned).collect();
    let mut builder = Registry::builder().linked();
    for i in 0..TOOLS - granted.len() {
        let original = linked.get(&granted[i % granted.len()]).unwrap();
        let mut declaration = original.declaration().clone();
        declaration.name = format!("{}_copy_{i:02}", original.name()).into();
        declaration.group = "bench-copies".into();
        declaration.effect = Effect::Read;
        declaration.shipped = Shipped::Enabled;
        declaration.egress = Egress::None;
        declaration.scope = None;
        builder = builder.add(Copy {
            declaration,
            schema: original.schema().clone(),
        });
    }
    builder.build().unwrap()
}

/// The app layer over a fresh SQLite file with `registry`; the file lives
/// as long as the folder returned.
fn host(runtime: &Runtime, registry: Registry) -> (Arc<Host>, tempfile::TempDir) {
    let folder = tempfile::tempdir().unwrap();
    let url = format!(
        "sqlite://{}?mode=rwc",
        folder.path().join("bench.db").display()
    );
    let store = runtime.block_on(Store::open(&url)).unwrap();
    (Arc::new(Host::with_registry(store, registry)), folder)
}

/// rmcp's leanest server: a `ServerHandler` answering every list with a
/// clone of its tools.
struct Plain {
    tools: Vec<Tool>,
}

impl ServerHandler for Plain {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _cx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.clone())
            .with_ttl_ms(0)
            .with_cache_scope(CacheScope::Private))
    }
}

/// The client's end of one server.
struct Client {
    write: DuplexStream,
    read: BufReader<DuplexStream>,
    line: Vec<u8>,
}

impl Client {
    async fn request(&mut self, request: &[u8]) -> &[u8] {
        self.write.write_all(request).await.unwrap();
        self.line.clear();
        self.read.read_until(b'\n', &mut self.line).await.unwrap();
        &self.line
    }

    /// `initialize` (2025-11-25) and `notifications/initialized`.
    async fn initialize(&mut self) {
        let initialize = json!({
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "mcp-list-bench", "version": "1"}
            }
        });
        let answer = self.request(format!("{initialize}\n").as_bytes()).await;
        assert!(answer.starts_with(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\""));
        self.write
            .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
            .await
            .unwrap();
    }
}

/// One of the three paths, ready to answer.
enum Server {
    Bytes {
        client: Client,
        server_read: BufReader<DuplexStream>,
        server_write: DuplexStream,
        request: Vec<u8>,
        answer: Vec<u8>,
    },
    Rmcp {
        client: Client,
        /// Ends when the client's pipes close.
        _running: JoinHandle<std::io::Result<()>>,
    },
}

impl Server {
    async fn list(&mut self) -> usize {
        match self {
            Server::Bytes {
                client,
                server_read,
                server_write,
                request,
                answer,
            } => {
                // The request is read whole before the cached line is
                // written, as a server would.
                client.write.write_all(REQUEST).await.unwrap();
                request.clear();
                server_read.read_until(b'\n', request).await.unwrap();
                server_write.write_all(answer).await.unwrap();
                client.line.clear();
                client
                    .read
                    .read_until(b'\n', &mut client.line)
                    .await
                    .unwrap()
            }
            Server::Rmcp { client, .. } => client.request(REQUEST).await.len(),
        }
    }

    fn answer(&self) -> &[u8] {
        match self {
            Server::Bytes { client, .. } | Server::Rmcp { client, .. } => &client.line,
        }
    }
}

fn pipes() -> (Client, DuplexStream, DuplexStream) {
    let (client_write, server_read) = tokio::io::duplex(PIPE);
    let (server_write, client_read) = tokio::io::duplex(PIPE);
    let client = Client {
        write: client_write,
        read: BufReader::with_capacity(PIPE, client_read),
        line: Vec::new(),
    };
    (client, server_read, server_write)
}

/// The three servers, each having answered one list already.
struct Paths {
    bytes: Server,
    host: Server,
    plain: Server,
}

async fn paths(backend: Arc<Host>) -> Paths {
    let grant = backend.access().grant(&admin()).await.unwrap();
    let tools: Vec<Tool> = grant
        .tool_names()
        .map(|name| {
            let export = backend.registry().get(name).unwrap().export(Provider::Mcp);
            serde_json::from_value(export.clone()).unwrap()
        })
        .collect();
    assert_eq!(tools.len(), TOOLS);

    // rmcp's `serve` returns after `initialize`, so each server starts in
    // a task of its own.
    let (mut client, read, write) = pipes();
    let host = tokio::spawn(mcp::serve_io_with_page_size(
        backend,
        admin(),
        TOOLS,
        read,
        write,
    ));
    client.initialize().await;
    let mut host = Server::Rmcp {
        client,
        _running: host,
    };

    let (mut client, read, write) = pipes();
    let plain = tokio::spawn(async move {
        let running = Plain { tools }.serve((read, write)).await.unwrap();
        running
            .waiting()
            .await
            .map(drop)
            .map_err(std::io::Error::other)
    });
    client.initialize().await;
    let mut plain = Server::Rmcp {
        client,
        _running: plain,
    };

    host.list().await;
    plain.list().await;
    let parsed = |line: &[u8]| serde_json::from_slice::<Value>(line).unwrap();
    assert_eq!(
        parsed(host.answer()),
        parsed(plain.answer()),
        "host and rmcp differ"
    );
    assert_eq!(host.answer().len(), plain.answer().len());
    let answer = host.answer().to_vec();
    assert!(answer.len() > 10_000, "{} bytes", answer.len());

    let (client, read, write) = pipes();
    let mut bytes = Server::Bytes {
        client,
        server_read: BufReader::new(read),
        server_write: write,
        request: Vec::new(),
        answer: answer.clone(),
    };
    bytes.list().await;
    assert_eq!(bytes.answer(), answer);
    Paths { bytes, host, plain }
}

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn tools_list(c: &mut Criterion) {
    let runtime = runtime();
    let (backend, _folder) = host(&runtime, registry(&runtime));
    let mut paths = runtime.block_on(paths(backend));
    println!("answer: {} bytes", paths.bytes.answer().len());
    let mut group = c.benchmark_group("tools/list, 100 tools");
    group.bench_function("bytes", |b| b.iter(|| runtime.block_on(paths.bytes.list())));
    group.bench_function("host", |b| b.iter(|| runtime.block_on(paths.host.list())));
    group.bench_function("plain rmcp", |b| {
        b.iter(|| runtime.block_on(paths.plain.list()))
    });
    group.finish();
}

criterion_group!(benches, tools_list);

/// `MCP_LIST_COUNT` mode: N requests of one path.
fn count(count: &str) {
    let count: usize = count.parse().unwrap();
    let runtime = runtime();
    let (backend, _folder) = host(&runtime, registry(&runtime));
    let mut paths = runtime.block_on(paths(backend));
    let path = match std::env::var("MCP_LIST_PATH").as_deref() {
        Ok("bytes") => &mut paths.bytes,
        Ok("host") => &mut paths.host,
        Ok("plain") => &mut paths.plain,
        other => panic!("MCP_LIST_PATH must be bytes, host or plain, not {other:?}"),
    };
    runtime.block_on(async {
        for _ in 0..count {
            path.list().await;
        }
    });
}

fn main() {
    if let Ok(n) = std::env::var("MCP_LIST_COUNT") {
        count(&n);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
