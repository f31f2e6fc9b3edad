//! One `tools/call` round trip over stdio: `host-example mcp` (identity,
//! the gated call with argument validation, the audit row) against a plain
//! rmcp server serving the same tool with none of that
//! ([`plain_server`]), both optimized builds, driven by the same client
//! loop: one JSON-RPC line written, its answer line read.
//!
//! Both serve `get_pagetree` (`{"root": 19, "depth": 1}`) as `admin` over
//! one fresh SQLite database made by `host-example db migrate`. The plain
//! server is this bench binary started again with `MCP_PLAIN_SERVER=URL`.
//!
//! `cargo bench -p host-example --bench mcp_stdio`
//!
//! The database is a file under `TMPDIR` (point it at a tmpfs to take the
//! disk out), with the `durability` setting `MCP_STDIO_DURABILITY` names
//! (`normal`, the default, or `full`).
//!
//! Instruction counts instead of time (the machine is shared): with
//! `MCP_STDIO_CALLS=N MCP_STDIO_SERVER=host|plain`, the bench makes N
//! calls against one server started under `MCP_STDIO_WRAP` (for example
//! `valgrind --tool=callgrind --callgrind-out-file=F`), then closes its
//! stdin and waits for it to exit. Two counts, N1 and N2 calls, give the
//! instructions one call costs the server: (Ir(N2) − Ir(N1)) / (N2 − N1).

#[path = "../common/plain.rs"]
mod plain;
mod plain_server;

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use criterion::{Criterion, criterion_group};
use serde_json::{Value, json};

/// A server on the other end of two pipes, spoken to one line at a time.
struct Client {
    child: Child,
    /// `None` once closed.
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
    line: String,
}

impl Client {
    fn start(mut command: Command) -> Client {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut client = Client {
            stdin: child.stdin.take(),
            stdout: BufReader::new(child.stdout.take().unwrap()),
            child,
            next_id: 1,
            line: String::new(),
        };
        let answer = client.request(
            "initialize",
            json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "mcp-stdio-bench", "version": "1"}
            }),
        );
        assert!(answer.contains("protocolVersion"), "{answer}");
        client.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        client
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
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
        let answer = self.request(
            "tools/call",
            json!({"name": "get_pagetree", "arguments": {"root": 19, "depth": 1}}),
        );
        assert!(!answer.contains("\"isError\":true"), "{answer}");
        assert!(answer.contains("\"result\""), "{answer}");
    }
}

impl Client {
    /// Closes the server's input and waits for it to exit.
    fn finish(mut self) {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        assert!(status.success(), "{status}");
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn database() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let url = format!(
        "sqlite://{}?mode=rwc",
        dir.path().join("bench.db").display()
    );
    let status = Command::new(env!("CARGO_BIN_EXE_host-example"))
        .args(["--database", &url, "db", "migrate"])
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let durability = std::env::var("MCP_STDIO_DURABILITY").unwrap_or_else(|_| "normal".into());
    let status = Command::new(env!("CARGO_BIN_EXE_host-example"))
        .args(["--database", &url, "--user", "admin", "settings", "set"])
        .args(["durability", &format!("\"{durability}\"")])
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    (dir, url)
}

/// The server's command line, run through `wrap` (a profiler) if given.
fn server(plain: bool, url: &str, wrap: &[OsString]) -> Command {
    let (program, args): (OsString, Vec<&str>) = if plain {
        (std::env::current_exe().unwrap().into(), Vec::new())
    } else {
        (
            env!("CARGO_BIN_EXE_host-example").into(),
            vec!["--database", url, "mcp", "--user", "admin"],
        )
    };
    let mut command = match wrap.split_first() {
        Some((wrapper, wrapper_args)) => {
            let mut command = Command::new(wrapper);
            command.args(wrapper_args).arg(program);
            command
        }
        None => Command::new(program),
    };
    command.args(args).env_remove("HOST_DATABASE_URL");
    if plain {
        command.env("MCP_PLAIN_SERVER", url);
    }
    command
}

fn host_server(url: &str) -> Command {
    server(false, url, &[])
}

fn plain_server(url: &str) -> Command {
    server(true, url, &[])
}

/// `MCP_STDIO_CALLS` mode: N calls against one (wrapped) server.
fn count(calls: &str) {
    let calls: usize = calls.parse().unwrap();
    let plain = match std::env::var("MCP_STDIO_SERVER").as_deref() {
        Ok("plain") => true,
        Ok("host") => false,
        other => panic!("MCP_STDIO_SERVER must be host or plain, not {other:?}"),
    };
    let wrap: Vec<OsString> = std::env::var("MCP_STDIO_WRAP")
        .unwrap_or_default()
        .split_whitespace()
        .map(OsString::from)
        .collect();
    let (_dir, url) = database();
    let mut client = Client::start(server(plain, &url, &wrap));
    for _ in 0..calls {
        client.call();
    }
    client.finish();
}

fn round_trip(c: &mut Criterion) {
    let (_dir, url) = database();
    let mut group = c.benchmark_group("tools/call over stdio");
    let mut host = Client::start(host_server(&url));
    let mut plain = Client::start(plain_server(&url));
    // Alternating warm-ups, so neither runs on a colder page cache.
    for _ in 0..50 {
        host.call();
        plain.call();
    }
    group.bench_function("host-example mcp", |b| b.iter(|| host.call()));
    group.bench_function("plain rmcp", |b| b.iter(|| plain.call()));
    group.finish();
}

criterion_group!(benches, round_trip);

fn main() {
    if let Some(url) = std::env::var_os("MCP_PLAIN_SERVER") {
        plain_server::run(url.to_str().unwrap());
        return;
    }
    if let Ok(calls) = std::env::var("MCP_STDIO_CALLS") {
        count(&calls);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
