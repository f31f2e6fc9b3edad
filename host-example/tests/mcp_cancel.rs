//! A client that goes away mid-call cancels the call: the tool is told
//! through its context's cancel token, and the audit trail says
//! `cancelled`. The slow tool, `wait_for_cancel`, is linked into this test
//! binary, so the host's own registry (`host_example::registry()`) serves
//! it beside the real tools; the backend is the host's database
//! (`SqlBackend` on a fresh SQLite file made by the real binary).
//!
//! Over Streamable HTTP the official Python client is killed while its
//! call waits, in both revisions (2026-07-28's stateless request, and a
//! 2025-11-25 session's POST); over stdio the client closes the server's
//! input.

mod mcp_support;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use host_example::mcp;
use mcp_support::{Driver, Host};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tool_core::{Execute, Tool, ToolContext, ToolError, ToolOutput};

/// The tags of the calls that started, and of those that saw their
/// cancellation.
static STARTED: Mutex<Vec<String>> = Mutex::new(Vec::new());
static SAW_CANCEL: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Waits until the call is cancelled, and notes that it started and that
/// it saw the cancellation.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "testing", effect = "read", data = "public")]
#[serde(deny_unknown_fields)]
struct WaitForCancel {
    /// Names this call in the test's notes.
    tag: String,
}

impl Execute for WaitForCancel {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        STARTED.lock().unwrap().push(self.tag.clone());
        cx.cancelled().await;
        SAW_CANCEL.lock().unwrap().push(self.tag);
        Err(ToolError::Cancelled {
            tool: "wait_for_cancel".to_owned(),
        })
    }
}

/// Waits (up to a minute: the machine may be busy) until `notes` holds
/// `tag`.
fn wait_for(notes: &Mutex<Vec<String>>, tag: &str, what: &str) {
    let started = Instant::now();
    while !notes.lock().unwrap().iter().any(|t| t == tag) {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{tag}: never {what}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The audit trail holds `user`'s call of `wait_for_cancel`, cancelled.
fn audited_cancelled(host: &Host, user: &str, client: &str) {
    let started = Instant::now();
    loop {
        let tail = host.run(&["--user", "admin", "audit", "tail", "-n", "50"]);
        let found = tail.lines().any(|line| {
            line.split_whitespace().any(|word| word == user)
                && line.contains("wait_for_cancel")
                && line.contains(client)
                && line.contains("cancelled")
        });
        if found {
            return;
        }
        // The tool saw the cancellation; its audit entry follows it.
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no cancelled call by {user} from {client}:\n{tail}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

async fn backend(host: &Host) -> Arc<host_example::Host> {
    let backend = Arc::new(host.app().await);
    assert!(backend.registry().get("wait_for_cancel").is_some());
    backend
}

#[test]
fn http_client_killed_mid_call_cancels_it() {
    let host = Host::new();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let backend = runtime.block_on(backend(&host));
    let router = mcp::http::router(
        backend,
        mcp::DEFAULT_PAGE_SIZE,
        tokio_util::sync::CancellationToken::new(),
    );
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let url = format!(
        "http://{}{}",
        listener.local_addr().unwrap(),
        mcp::http::PATH
    );
    runtime.spawn(async move { axum::serve(listener, router).await });
    let token = host.token("petra");
    for mode in ["auto", "legacy"] {
        let Some(mut client) = Driver::python(&["http", mode, &url, &token]) else {
            return;
        };
        let tag = format!("http-{mode}");
        let info = client.send(json!({"op": "info"}));
        assert!(info["protocol"].is_string(), "{info}");
        client.send_only(
            &json!({"op": "call", "name": "wait_for_cancel", "arguments": {"tag": tag}}),
        );
        wait_for(&STARTED, &tag, "started");
        assert!(!SAW_CANCEL.lock().unwrap().contains(&tag));
        // Killed: the process and its connections are gone at once.
        drop(client);
        wait_for(&SAW_CANCEL, &tag, "saw its cancellation");
        audited_cancelled(&host, "petra", "host-example-python-test/1.0.0");
    }
}

#[test]
fn stdio_input_closed_mid_call_cancels_it() {
    let host = Host::new();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let backend = backend(&host).await;
        let actor = backend.access().user("clara").await.unwrap().unwrap();
        let (client, server) = tokio::io::duplex(64 * 1024);
        let (server_in, server_out) = tokio::io::split(server);
        let serving = tokio::spawn(mcp::serve_io(backend, actor, server_in, server_out));
        let (client_in, mut client_out) = tokio::io::split(client);
        let mut answers = BufReader::new(client_in).lines();
        let mut send = async |message: Value| {
            let line = format!("{message}\n");
            client_out.write_all(line.as_bytes()).await.unwrap();
        };
        send(json!({
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "raw-stdio", "version": "7"}
            }
        }))
        .await;
        let answer = answers.next_line().await.unwrap().unwrap();
        assert!(answer.contains("2025-11-25"), "{answer}");
        send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
        send(json!({
            "jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "wait_for_cancel", "arguments": {"tag": "stdio"}}
        }))
        .await;
        tokio::task::spawn_blocking(|| wait_for(&STARTED, "stdio", "started"))
            .await
            .unwrap();
        // The client closes the server's input: serving ends once the call
        // has ended and is audited.
        client_out.shutdown().await.unwrap();
        drop(client_out);
        serving.await.unwrap().unwrap();
    });
    wait_for(&SAW_CANCEL, "stdio", "saw its cancellation");
    audited_cancelled(&host, "clara", "raw-stdio/7");
}
