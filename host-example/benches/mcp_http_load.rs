//! Streamable HTTP under load: 10,000 `tools/call`s at concurrency 64 from
//! a client on loopback against `host-example serve` (an optimized build),
//! on a fresh SQLite file and, when `HOST_TEST_POSTGRES_URL` names a
//! server, on a fresh PostgreSQL database. Then the audit trail is read
//! back: every call must be there exactly once; and `host-example audit
//! verify` must find every chain intact (the group commit's concurrent
//! writers kept the chain valid).
//!
//! Each call is a 2026-07-28 stateless request (no session) for
//! `get_pagetree` (`{"root": 19, "depth": 1}`) as `admin`, whose `_meta`
//! client version is the call's number, so the audit rows name each call
//! and a lost or duplicated one shows.
//!
//! `cargo bench -p host-example --bench mcp_http_load`
//! (`MCP_LOAD_CALLS` and `MCP_LOAD_CONCURRENCY` change 10,000 and 64).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use host_example::store::{AuditKind, Store};
use serde_json::{Value, json};

#[path = "common/backends.rs"]
mod backends;
use backends::Backends;

const CLIENT: &str = "mcp-http-load";

fn setting(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let calls = setting("MCP_LOAD_CALLS", 10_000);
    let concurrency = setting("MCP_LOAD_CONCURRENCY", 64);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let backends = Backends::new(&runtime, "mcp_load");
    println!(
        "{calls} calls at concurrency {concurrency}\n\
         backend   answered  audited  missing  duplicated  calls/s   p50 ms   p99 ms   max ms  verified rows"
    );
    for (backend, url) in &backends.urls {
        let report = runtime.block_on(load(url, calls, concurrency));
        println!(
            "{backend:<9} {:>8}  {:>7}  {:>7}  {:>10}  {:>7.0}  {:>7.2}  {:>7.2}  {:>7.2}  {:>13}",
            report.answered,
            report.audited,
            report.missing,
            report.duplicated,
            report.answered as f64 / report.elapsed.as_secs_f64(),
            ms(report.percentile(0.50)),
            ms(report.percentile(0.99)),
            ms(report.percentile(1.0)),
            report.verified,
        );
    }
    backends.finish(&runtime);
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

struct Report {
    answered: usize,
    audited: usize,
    missing: usize,
    duplicated: usize,
    elapsed: Duration,
    latencies: Vec<Duration>,
    /// Chained rows `audit verify` checked (it panics unless all verify).
    verified: u64,
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

/// `host-example serve` on a free port; killed when dropped.
struct Served(Child);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve(url: &str) -> (Served, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_host-example"))
        .env_remove("HOST_DATABASE_URL")
        .args(["--database", url, "serve", "--addr", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let base = first
        .trim()
        .strip_prefix("listening on ")
        .unwrap()
        .to_owned();
    (Served(child), format!("{base}/mcp"))
}

async fn load(url: &str, calls: usize, concurrency: usize) -> Report {
    host(url, &["db", "migrate"]);
    let token = host(url, &["--user", "admin", "users", "token", "admin"])
        .trim()
        .to_owned();
    let (_server, endpoint) = serve(url);
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(concurrency)
        .build()
        .unwrap();
    // Warm the server (connections, the grant, the page cache) outside
    // the measurement, under another client name.
    for i in 0..100 {
        call(&http, &endpoint, &token, "warm-up", i).await;
    }

    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let mut workers = tokio::task::JoinSet::new();
    for _ in 0..concurrency {
        let (http, endpoint, token, next) = (
            http.clone(),
            endpoint.clone(),
            token.clone(),
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
                call(&http, &endpoint, &token, CLIENT, i).await;
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

    // The audit trail: one `call` row per call, named by its number.
    let store = Store::open(url).await.unwrap();
    let mut seen = BTreeMap::<String, usize>::new();
    for entry in store.audit_tail(calls * 2 + 1_000).await.unwrap() {
        let Some(client) = entry.client.filter(|_| entry.kind == AuditKind::Call) else {
            continue;
        };
        if client.name.as_deref() == Some(CLIENT) {
            assert_eq!(entry.decision, "done");
            *seen.entry(client.version.unwrap_or_default()).or_default() += 1;
        }
    }
    let missing = (0..calls)
        .filter(|i| !seen.contains_key(&i.to_string()))
        .count();
    // The chain, checked by the command an administrator runs: `host`
    // panics unless it exits 0.
    let verified = host(url, &["audit", "verify"]);
    let verified = verified
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("audit verify said: {verified}"));
    Report {
        verified,
        answered: latencies.len(),
        audited: seen.values().sum(),
        missing,
        duplicated: seen.values().map(|n| n - 1).sum(),
        elapsed,
        latencies,
    }
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
