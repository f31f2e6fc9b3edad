//! The official MCP clients (pinned in host-example/tests/mcp_clients,
//! installed by its install.sh) against tool-mcp's example server, built on
//! tool-mcp alone. The Python client over stdio and over Streamable HTTP,
//! both revisions (`auto` negotiates 2026-07-28, `legacy` uses
//! `initialize`); the TypeScript SDK (2025-11-25) over both transports.
//! Each lists the built-in tools, calls one, and is refused a tool that
//! does not exist; over HTTP a wrong token is refused.
//!
//! The example binary is built by `cargo test --workspace` (examples are
//! built to check they compile); a run of this file alone builds it first
//! with `cargo build -p tool-mcp --example mcp_server`.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

const MODES: [(&str, &str); 2] = [("auto", "2026-07-28"), ("legacy", "2025-11-25")];

/// The workspace's target folder, from this test's own path
/// (`target/debug/deps/clients-HASH`).
fn target_debug() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().and_then(Path::parent).unwrap().to_path_buf()
}

fn example() -> PathBuf {
    let path = target_debug().join("examples/mcp_server");
    assert!(
        path.exists(),
        "{} is missing: run `cargo build -p tool-mcp --example mcp_server`",
        path.display()
    );
    path
}

/// The clients' scripts, beside host-example's tests.
fn scripts() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../host-example/tests/mcp_clients")
}

/// Where install.sh put the clients.
fn clients_dir() -> PathBuf {
    std::env::var_os("MCP_CLIENTS_DIR").map_or_else(
        || target_debug().parent().unwrap().join("mcp-clients"),
        PathBuf::from,
    )
}

/// `path` when it exists: required under CI, skipped with a note
/// elsewhere.
fn installed(path: PathBuf, what: &str) -> Option<PathBuf> {
    if path.exists() {
        return Some(path);
    }
    let message = format!(
        "{what} is not installed at {}: run {}",
        path.display(),
        scripts().join("install.sh").display()
    );
    assert!(std::env::var_os("CI").is_none(), "{message}");
    eprintln!("skipped: {message}");
    None
}

/// The Python client: its interpreter and script.
fn python() -> Option<Vec<PathBuf>> {
    let python = installed(
        clients_dir().join("venv/bin/python"),
        "the Python MCP client",
    )?;
    Some(vec![python, scripts().join("client.py")])
}

/// The TypeScript client: node and the script, copied beside the SDK's
/// `node_modules` so node resolves it.
fn typescript() -> Option<Vec<PathBuf>> {
    let node = clients_dir().join("node");
    installed(
        node.join("node_modules/@modelcontextprotocol/sdk/package.json"),
        "the TypeScript MCP SDK",
    )?;
    let script = node.join("client.mjs");
    std::fs::copy(scripts().join("client.mjs"), &script).unwrap();
    Some(vec![PathBuf::from("node"), script])
}

/// The client script, driven one JSON line at a time.
struct Client {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Client {
    /// `client` (a program and its script) with `args`.
    fn start(client: &[PathBuf], args: &[&str]) -> Client {
        let mut child = Command::new(&client[0])
            .args(&client[1..])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Client {
            child,
            stdin,
            stdout,
        }
    }

    fn send(&mut self, command: Value) -> Value {
        writeln!(self.stdin, "{command}").unwrap();
        self.stdin.flush().unwrap();
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap_or_else(|_| panic!("not JSON: {line:?}"))
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

/// What every client checks: the built-in tools listed, a read answered,
/// an unknown tool refused as a tool error.
fn lists_and_calls(client: &mut Client) {
    let listed = client.send(json!({"op": "list"}));
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"get_pagetree"), "{listed}");
    assert!(names.contains(&"list_tables"), "{listed}");
    let tree = client.send(json!({"op": "call", "name": "get_pagetree", "arguments": {}}));
    assert_ne!(tree["isError"], true, "{tree}");
    assert!(text(&tree).contains("Products"), "{tree}");
    let unknown = client.send(json!({"op": "call", "name": "drop_tables", "arguments": {}}));
    assert_eq!(unknown["isError"], true, "{unknown}");
    assert_eq!(text(&unknown), "tool `drop_tables` is not available");
}

#[test]
fn the_python_client_lists_and_calls_over_stdio() {
    let Some(python) = python() else { return };
    let server = example();
    for (mode, protocol) in MODES {
        let mut client = Client::start(&python, &["stdio", mode, server.to_str().unwrap()]);
        assert_eq!(client.send(json!({"op": "info"}))["protocol"], protocol);
        lists_and_calls(&mut client);
    }
}

#[test]
fn the_typescript_client_lists_and_calls_over_stdio_and_http() {
    let Some(typescript) = typescript() else {
        return;
    };
    lists_and_calls(&mut Client::start(
        &typescript,
        &[example().to_str().unwrap()],
    ));
    let server = HttpServer::start("another-token");
    let mut client = Client::start(&typescript, &["--http", &server.url, "another-token"]);
    lists_and_calls(&mut client);
}

/// The example serving HTTP on a free loopback port.
struct HttpServer {
    child: Child,
    url: String,
}

impl HttpServer {
    fn start(token: &str) -> HttpServer {
        let mut child = Command::new(example())
            .args(["http", "127.0.0.1:0", token])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let base = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("{line:?}"));
        HttpServer {
            url: format!("{base}{}", tool_mcp::http::PATH),
            child,
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_python_client_lists_and_calls_over_http_with_its_token_only() {
    let Some(python) = python() else { return };
    let server = HttpServer::start("s3cret-token");
    for (mode, protocol) in MODES {
        let mut client = Client::start(&python, &["http", mode, &server.url, "s3cret-token"]);
        assert_eq!(client.send(json!({"op": "info"}))["protocol"], protocol);
        lists_and_calls(&mut client);
        let mut refused = Client::start(&python, &["http", mode, &server.url, "wrong"]);
        let answer = refused.send(json!({"op": "info"}));
        assert!(
            answer["http_statuses"]
                .as_array()
                .is_some_and(|statuses| statuses.contains(&json!(401))),
            "{answer}"
        );
    }
}
