//! Several `host-example serve` processes on one database behind a
//! round-robin proxy (HAProxy, Debian's package, pinned in
//! `.ci/haproxy.sh`; started by the test), on a SQLite file always and on
//! PostgreSQL when `HOST_TEST_POSTGRES_URL` names a server:
//!
//! - 2026-07-28 stateless calls land on any process, each answered and
//!   audited once;
//! - a 2025-11-25 session (`Mcp-Session-Id`) is stored in the database,
//!   so whichever process a request reaches takes the session over
//!   (docs/decisions.md, "MCP sessions across processes"); once its
//!   client ends it, or for an id never issued, every process that does
//!   not hold it answers `404` "Session not found", as MCP prescribes;
//! - a proposal made through one process is approved in the browser
//!   through another, and the caller's task, asked through either, shows
//!   it applied;
//! - a tool switched off in the browser through one process is announced
//!   (`notifications/tools/list_changed`) to a client streaming from the
//!   other.
//!
//! Without HAProxy the tests are skipped, unless `CI` is set.

#[path = "store/backends.rs"]
mod backends;
#[path = "support/haproxy.rs"]
mod haproxy;
mod mcp_support;

use std::time::Duration;

use backends::TestDb;
use haproxy::Proxy;
use host_example::store::{AuditKind, Store};
use mcp_support::pages::post_from_inbox;
use mcp_support::raw::Session;
use mcp_support::{Host, Served};
use serde_json::{Value, json};

/// The tasks extension's id, as a client declares it.
const TASKS: &str = "io.modelcontextprotocol/tasks";

/// A database with the write tool the tests propose with switched on.
fn prepared(url: &str) -> Host {
    let host = Host::at(url);
    host.run(&["db", "migrate"]);
    host.set_tools(json!({"update_page_metadata": {"state": "enabled"}}));
    host
}

/// One stateless (2026-07-28) `tools/call` of `get_pagetree` at `url`,
/// named `client` version `i` in `_meta`; its answer's `result`.
async fn stateless_call(url: &str, token: &str, client: &str, i: usize) -> Value {
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
    let response = reqwest::Client::new()
        .post(url)
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
    assert_eq!(response.status(), 200);
    let text = response.text().await.unwrap();
    let answer = text
        .lines()
        .map(|line| line.strip_prefix("data:").unwrap_or(line).trim())
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|message| message["id"] == json!(i))
        .unwrap_or_else(|| panic!("no answer to call {i}: {text}"));
    answer["result"].clone()
}

/// How many `call` audit rows name each version of `client`.
async fn audited(url: &str, client: &str) -> Vec<(String, usize)> {
    let store = Store::open(url).await.unwrap();
    let mut seen = std::collections::BTreeMap::<String, usize>::new();
    for entry in store.audit_log().audit_tail(1_000).await.unwrap() {
        let Some(caller) = entry.client.filter(|_| entry.kind == AuditKind::Call) else {
            continue;
        };
        if caller.name.as_deref() == Some(client) {
            *seen.entry(caller.version.unwrap_or_default()).or_default() += 1;
        }
    }
    store.pool().close().await;
    seen.into_iter().collect()
}

/// A request of session `id` at `url` (no body check): the status and
/// the body.
async fn session_request(url: &str, token: &str, id: &str, method: &str) -> (u16, String) {
    let body = json!({"jsonrpc": "2.0", "id": 99, "method": method, "params": {}});
    let response = reqwest::Client::new()
        .post(url)
        .bearer_auth(token)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .header("mcp-session-id", id)
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.text().await.unwrap())
}

/// Ends session `id` at `url` (`DELETE`, as a client closing it does).
async fn end_session(url: &str, token: &str, id: &str) {
    let response = reqwest::Client::new()
        .delete(url)
        .bearer_auth(token)
        .header("mcp-protocol-version", "2025-11-25")
        .header("mcp-session-id", id)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 204);
}

fn tool_names(answer: &Value) -> Vec<String> {
    answer["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{answer}"))
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect()
}

async fn calls_and_sessions_land_anywhere(url: &str) {
    let host = prepared(url);
    let (a, b) = (host.serve(), host.serve());
    let Some(proxy) = Proxy::start(&[&a.base, &b.base]) else {
        return;
    };
    let endpoint = format!("{}{}", proxy.base, host_example::mcp::http::PATH);
    let clara = host.token("clara");

    // Stateless calls, round-robin over both: each answered, each audited
    // once.
    for i in 0..10 {
        let result = stateless_call(&endpoint, &clara, "processes", i).await;
        assert!(result["content"].is_array(), "{result}");
        assert_ne!(result["isError"], true, "{result}");
    }
    let seen = audited(url, "processes").await;
    let mut expected: Vec<(String, usize)> = (0..10).map(|i| (i.to_string(), 1)).collect();
    expected.sort();
    assert_eq!(seen, expected);

    // A session through the proxy: every request, whichever process it
    // reaches, is the session's.
    let mut session = Session::open_at(&endpoint, &clara, &[TASKS]).await;
    let listed = session.request("tools/list", json!({})).await;
    let names = tool_names(&listed);
    assert!(names.contains(&"get_pagetree".to_owned()), "{names:?}");
    for _ in 0..4 {
        let again = session.request("tools/list", json!({})).await;
        assert_eq!(tool_names(&again), names);
    }
    // And sent to each process directly: both know it.
    for server in [&a, &b] {
        session.send_to(&server.mcp_url());
        let answer = session.request("tools/list", json!({})).await;
        assert_eq!(tool_names(&answer), names);
    }

    // A proposal made through A, approved in the browser through B; the
    // task, asked through B and through the proxy, shows it applied.
    session.send_to(&a.mcp_url());
    let arguments = json!({"page": 20, "title": "Proposed on A"});
    let proposed = session
        .request(
            "tools/call",
            json!({"name": "update_page_metadata", "arguments": arguments}),
        )
        .await;
    assert_eq!(proposed["result"]["status"], "working", "{proposed}");
    let task = proposed["result"]["taskId"].as_str().unwrap().to_owned();
    let path = format!("/approvals/{task}/approve");
    let (_, notice) = post_from_inbox(&b.base, "admin", &path, "").await;
    assert!(notice.contains("Approved and applied"), "{notice}");
    for at in [b.mcp_url(), endpoint.clone()] {
        session.send_to(&at);
        let done = session.request("tasks/get", json!({"taskId": task})).await;
        assert_eq!(done["result"]["status"], "completed", "{done}");
    }

    // Ended through B: a process that does not hold it refuses it, as it
    // refuses an id never issued.
    let id = session.id().to_owned();
    end_session(&b.mcp_url(), &clara, &id).await;
    let c = host.serve();
    for (at, id) in [
        (&b, id.as_str()),
        (&c, id.as_str()),
        (&c, "no-such-session"),
    ] {
        let (status, body) = session_request(&at.mcp_url(), &clara, id, "tools/list").await;
        assert_eq!(
            (status, body.as_str()),
            (404, "Not Found: Session not found")
        );
    }
}

/// Reads the event stream of session `id` at `url` until it announces
/// `notifications/tools/list_changed`; panics after 30 seconds.
async fn await_list_changed(stream: reqwest::Response) {
    let mut stream = stream;
    let mut seen = String::new();
    let wait = tokio::time::timeout(Duration::from_secs(30), async {
        while let Some(chunk) = stream.chunk().await.unwrap() {
            seen.push_str(&String::from_utf8_lossy(&chunk));
            if seen.contains("notifications/tools/list_changed") {
                return;
            }
        }
        panic!("the stream ended: {seen}");
    })
    .await;
    assert!(wait.is_ok(), "no tools/list_changed in {seen:?}");
}

async fn a_change_through_one_process_is_announced_by_another(url: &str) {
    let host = prepared(url);
    let (a, b): (Served, Served) = (host.serve(), host.serve());
    let clara = host.token("clara");
    let session = Session::open(&a, &clara, &[]).await;
    // The session's stream, from A.
    let stream = reqwest::Client::new()
        .get(a.mcp_url())
        .bearer_auth(&clara)
        .header("accept", "text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .header("mcp-session-id", session.id())
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);
    // Switched off in the browser, through B.
    let (_, page) = post_from_inbox(
        &b.base,
        "admin",
        "/tools/tool",
        "tool=get_pagetree&state=disabled",
    )
    .await;
    assert!(!page.is_empty());
    await_list_changed(stream).await;
    assert!(
        !host
            .granted("clara")
            .await
            .contains(&"get_pagetree".to_owned())
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn sqlite_calls_and_sessions_land_anywhere() {
    let db = TestDb::sqlite();
    calls_and_sessions_land_anywhere(&db.url).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn postgres_calls_and_sessions_land_anywhere() {
    let Some(db) = TestDb::postgres().await else {
        return;
    };
    calls_and_sessions_land_anywhere(&db.url).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn sqlite_a_change_is_announced_across_processes() {
    let db = TestDb::sqlite();
    a_change_through_one_process_is_announced_by_another(&db.url).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn postgres_a_change_is_announced_across_processes() {
    let Some(db) = TestDb::postgres().await else {
        return;
    };
    a_change_through_one_process_is_announced_by_another(&db.url).await;
}
