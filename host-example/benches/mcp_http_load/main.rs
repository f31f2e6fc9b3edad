//! Streamable HTTP under load: 10,000 `tools/call`s at concurrency 64 from
//! a client on loopback, on a fresh SQLite file and, when
//! `HOST_TEST_POSTGRES_URL` names a server, on a fresh PostgreSQL
//! database. In one run, against each database:
//!
//! - **host**: `host-example serve` (an optimized build);
//! - **plain rmcp**: a plain rmcp Streamable HTTP server answering the
//!   same tool with nothing around it ([`plain::Plain`]: no identity, no
//!   gates, no audit), this bench binary started again with
//!   `MCP_PLAIN_HTTP=URL`, with rmcp's default configuration as the host's;
//! - **host ×2 behind haproxy** (PostgreSQL only, when HAProxy is
//!   installed): two `host-example serve` processes on the one database,
//!   HAProxy balancing each request round-robin over them.
//!
//! After each host run the audit trail is read back: every call must be
//! there exactly once, and `host-example audit verify` must find every
//! chain intact (the group commit's concurrent writers kept it valid).
//!
//! Each call is a 2026-07-28 stateless request (no session) for
//! `get_pagetree` (`{"root": 19, "depth": 1}`) as `admin`, whose `_meta`
//! client version is the call's number (and the client name the run's),
//! so the audit rows name each call and a lost or duplicated one shows.
//!
//! `cargo bench -p host-example --bench mcp_http_load`
//! (`MCP_LOAD_CALLS` and `MCP_LOAD_CONCURRENCY` change 10,000 and 64).

#[path = "../common/backends.rs"]
mod backends;
#[path = "../../tests/support/haproxy.rs"]
mod haproxy;
#[path = "../common/plain.rs"]
mod plain;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use backends::Backends;
use host_example::store::{AuditKind, Store};
use serde_json::{Value, json};

fn setting(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn main() {
    if let Ok(url) = std::env::var("MCP_PLAIN_HTTP") {
        serve_plain(&url);
        return;
    }
    let calls = setting("MCP_LOAD_CALLS", 10_000);
    let concurrency = setting("MCP_LOAD_CONCURRENCY", 64);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let backends = Backends::new(&runtime, "mcp_load");
    println!(
        "{calls} calls at concurrency {concurrency}\n\
         backend   server                 answered  audited  missing  duplicated  calls/s   p50 ms   p99 ms   max ms  verified rows"
    );
    for (backend, url) in &backends.urls {
        host(url, &["db", "migrate"]);
        let token = host(url, &["--user", "admin", "users", "token", "admin"])
            .trim()
            .to_owned();
        let mut runs = vec![Server::Host, Server::Plain];
        if *backend == "postgres" && haproxy::haproxy().is_some() {
            runs.push(Server::Proxied);
        }
        for server in runs {
            let report = runtime.block_on(load(url, &token, server, calls, concurrency));
            let audit = |n: Option<usize>| n.map_or("-".to_owned(), |n| n.to_string());
            println!(
                "{backend:<9} {:<21} {:>8}  {:>7}  {:>7}  {:>10}  {:>7.0}  {:>7.2}  {:>7.2}  {:>7.2}  {:>13}",
                server.label(),
                report.answered,
                audit(report.audited),
                audit(report.missing),
                audit(report.duplicated),
                report.answered as f64 / report.elapsed.as_secs_f64(),
                ms(report.percentile(0.50)),
                ms(report.percentile(0.99)),
                ms(report.percentile(1.0)),
                audit(report.verified),
            );
        }
    }
    backends.finish(&runtime);
}

/// What answers the calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Server {
    /// One `host-example serve`.
    Host,
    /// The plain rmcp server.
    Plain,
    /// Two `host-example serve` behind HAProxy.
    Proxied,
}

impl Server {
    fn label(self) -> &'static str {
        match self {
            Server::Host => "host",
            Server::Plain => "plain rmcp",
            Server::Proxied => "host x2 behind haproxy",
        }
    }

    /// The client name the run's calls carry.
    fn client(self) -> &'static str {
        match self {
            Server::Host => "mcp-http-load",
            Server::Plain => "mcp-http-load-plain",
            Server::Proxied => "mcp-http-load-proxied",
        }
    }
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

struct Report {
    answered: usize,
    /// `None` for the plain server, which audits nothing.
    audited: Option<usize>,
    missing: Option<usize>,
    duplicated: Option<usize>,
    /// Chained rows `audit verify` checked (it panics unless all verify).
    verified: Option<usize>,
    elapsed: Duration,
    latencies: Vec<Duration>,
}

impl Report {
    fn percentile(&self, p: f64) -> Duration {
        let index = ((self.latencies.len() as f64 - 1.0) * p).round() as usize;
        self.latencies[index]
    }
}

fn host(url: &str, args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_host-example"))
        .env_remove("HOST_DATABASE_URL")
        .env_remove("HOST_USER")
        .args(["--database", url])
        .args(args)
        .output()
        .unwrap();
    assert!(output.status.success(), "{args:?}: {output:?}");
    String::from_utf8(output.stdout).unwrap()
}

/// A server process on a free port; killed when dropped.
struct Served(Child);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `command`, which prints `listening on http://ADDRESS` first;
/// the process and its base URL.
fn started(mut command: Command) -> (Served, String) {
    let mut child = command.stdout(Stdio::piped()).spawn().unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let base = first
        .trim()
        .strip_prefix("listening on ")
        .unwrap()
        .to_owned();
    (Served(child), base)
}

fn serve(url: &str) -> (Served, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_host-example"));
    command.env_remove("HOST_DATABASE_URL").args([
        "--database",
        url,
        "serve",
        "--addr",
        "127.0.0.1:0",
    ]);
    started(command)
}

/// This bench binary again, as the plain server.
fn serve_plain_process(url: &str) -> (Served, String) {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command.env("MCP_PLAIN_HTTP", url);
    started(command)
}

/// The plain server: rmcp's Streamable HTTP service, configured as the
/// host's ([`host_example::mcp::http::router`]), over [`plain::Plain`], at
/// the same path; prints its address, then serves until killed.
fn serve_plain(url: &str) {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let server = plain::Plain::open(url).await;
        let service = StreamableHttpService::new(
            move || Ok(server.clone()),
            Arc::new(LocalSessionManager::default()),
            StreamableHttpServerConfig::default(),
        );
        let router = axum::Router::new().route_service(host_example::mcp::http::PATH, service);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        println!("listening on http://{}", listener.local_addr().unwrap());
        axum::serve(listener, router).await.unwrap();
    });
}

async fn load(url: &str, token: &str, server: Server, calls: usize, concurrency: usize) -> Report {
    let mut processes = Vec::new();
    let mut _proxy = None;
    let base = match server {
        Server::Host => {
            let (process, base) = serve(url);
            processes.push(process);
            base
        }
        Server::Plain => {
            let (process, base) = serve_plain_process(url);
            processes.push(process);
            base
        }
        Server::Proxied => {
            let (a, a_base) = serve(url);
            let (b, b_base) = serve(url);
            processes.extend([a, b]);
            let proxy = haproxy::Proxy::start(&[a_base.as_str(), b_base.as_str()]).unwrap();
            let base = proxy.base.clone();
            _proxy = Some(proxy);
            base
        }
    };
    let endpoint = format!("{base}{}", host_example::mcp::http::PATH);
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(concurrency)
        .build()
        .unwrap();
    // Warm the server (connections, the grant, the page cache) outside
    // the measurement, under another client name.
    for i in 0..100 {
        call(&http, &endpoint, token, "warm-up", i).await;
    }

    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let mut workers = tokio::task::JoinSet::new();
    for _ in 0..concurrency {
        let (http, endpoint, token, next) = (
            http.clone(),
            endpoint.clone(),
            token.to_owned(),
            Arc::clone(&next),
        );
        workers.spawn(async move {
            let mut latencies = Vec::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= calls {
                    return latencies;
                }
                let at = Instant::now();
                call(&http, &endpoint, &token, server.client(), i).await;
                latencies.push(at.elapsed());
            }
        });
    }
    let mut latencies = Vec::with_capacity(calls);
    while let Some(done) = workers.join_next().await {
        latencies.extend(done.unwrap());
    }
    let elapsed = started.elapsed();
    latencies.sort();
    drop(processes);
    let mut report = Report {
        answered: latencies.len(),
        audited: None,
        missing: None,
        duplicated: None,
        verified: None,
        elapsed,
        latencies,
    };
    if server != Server::Plain {
        let seen = audited(url, server.client(), calls).await;
        report.audited = Some(seen.values().sum());
        report.missing = Some(
            (0..calls)
                .filter(|i| !seen.contains_key(&i.to_string()))
                .count(),
        );
        report.duplicated = Some(seen.values().map(|n| n - 1).sum());
        // The chain, checked by the command an administrator runs, after
        // the group commit's concurrent writers: `host` panics unless it
        // exits 0.
        let verified = host(url, &["audit", "verify"]);
        report.verified = Some(
            verified
                .split_whitespace()
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("audit verify said: {verified}")),
        );
    }
    report
}

/// The audit trail's `call` rows of `client`: how many name each call
/// number.
async fn audited(url: &str, client: &str, calls: usize) -> BTreeMap<String, usize> {
    let store = Store::open(url).await.unwrap();
    let mut seen = BTreeMap::<String, usize>::new();
    for entry in store
        .audit_log()
        .audit_tail(calls * 2 + 1_000)
        .await
        .unwrap()
    {
        let Some(caller) = entry.client.filter(|_| entry.kind == AuditKind::Call) else {
            continue;
        };
        if caller.name.as_deref() == Some(client) {
            assert_eq!(entry.decision, "done");
            *seen.entry(caller.version.unwrap_or_default()).or_default() += 1;
        }
    }
    store.pool().close().await;
    seen
}

/// One stateless `tools/call`; panics unless it is answered with a result.
async fn call(http: &reqwest::Client, endpoint: &str, token: &str, client: &str, i: usize) {
    let body = json!({
        "jsonrpc": "2.0", "id": i, "method": "tools/call",
        "params": {
            "name": "get_pagetree",
            "arguments": {"root": 19, "depth": 1},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": client, "version": i.to_string()},
                "io.modelcontextprotocol/clientCapabilities": {}
            }
        }
    });
    let response = http
        .post(endpoint)
        .bearer_auth(token)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "get_pagetree")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = response.status();
    let text = response.text().await.unwrap();
    assert_eq!(status, 200, "{text}");
    let answer = text
        .lines()
        .map(|line| line.strip_prefix("data:").unwrap_or(line).trim())
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|message| message["id"] == json!(i))
        .unwrap_or_else(|| panic!("no answer to call {i}: {text}"));
    assert!(answer["result"].is_object(), "{answer}");
    assert_ne!(answer["result"]["isError"], json!(true), "{answer}");
}
