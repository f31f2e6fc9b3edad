//! The official Python MCP client (pinned in tests/mcp_clients) against the
//! real binary on a fresh SQLite database: `host-example mcp --user NAME`
//! over stdio, and `host-example serve` over Streamable HTTP with tokens
//! from `host-example users token`. Settings change from another process
//! (`host-example settings set`) between two calls; proposals are approved
//! through the store's approval path in this process. Both protocol
//! revisions: `auto` negotiates 2026-07-28 through `server/discover`,
//! `legacy` uses `initialize`.

mod mcp_support;

use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use host_example::app::approvals::Applied;
use mcp_support::{Driver, Host, common_checks, is_error, propose, text};
use serde_json::json;

const MODES: [(&str, &str); 2] = [("auto", "2026-07-28"), ("legacy", "2025-11-25")];

/// Only the one write tool the tests propose with is switched on (write
/// tools ship disabled).
fn tools_enabled() -> serde_json::Value {
    json!({"update_page_metadata": {"state": "enabled"}})
}

fn tools_without_list_tables() -> serde_json::Value {
    json!({
        "update_page_metadata": {"state": "enabled"},
        "list_tables": {"state": "disabled"},
    })
}

/// A proposal approved by `admin` through the app layer's approval path
/// changes the page, as a read tool then shows.
fn approve_and_see(host: &Host, client: &mut Driver, title: &str) {
    let id = propose(client, title);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let decided = runtime
        .block_on(async {
            host.app()
                .await
                .approvals()
                .approve(&id, "admin", &mut ())
                .await
        })
        .unwrap();
    let Some(Applied::Written(written)) = decided.decided().unwrap().applied else {
        panic!("applied")
    };
    assert!(written.starts_with("written and verified"), "{written}");
    let tree = client.call("get_pagetree", json!({"root": 19}));
    assert!(text(&tree).contains(title), "{tree}");
}

/// `list_tables` answers, is switched off by another process, the client
/// is told its list changed, and the next call is refused.
fn disabled_between_two_calls(host: &Host, client: &mut Driver, mode: &str) {
    assert_eq!(client.send(json!({"op": "listen"}))["listening"], true);
    assert!(!is_error(&client.call("list_tables", json!({}))));
    host.set_tools(tools_without_list_tables());
    assert_eq!(
        client.send(json!({"op": "wait_list_changed"}))["list_changed"],
        true,
        "{mode}"
    );
    let refused = client.call("list_tables", json!({}));
    assert!(is_error(&refused), "{refused}");
    assert_eq!(text(&refused), "tool `list_tables` is not available");
    assert!(!client.names().iter().any(|t| t == "list_tables"));
    host.set_tools(tools_enabled());
}

/// The audit trail shows `user`'s refused MCP call with the client and the
/// revision.
fn audited(host: &Host, user: &str, protocol: &str) {
    let tail = host.run(&["--user", "admin", "audit", "tail", "-n", "200"]);
    let refused = tail
        .lines()
        .filter(|line| line.split_whitespace().any(|word| word == user))
        .filter(|line| line.contains("host-example-python-test/1.0.0"))
        .filter(|line| line.contains(protocol))
        .find(|line| line.contains("refused") && line.contains("list_tables"))
        .unwrap_or_else(|| panic!("no refused call by {user} over {protocol}:\n{tail}"));
    assert!(refused.contains(" enabled "), "the gate: {refused}");
}

#[test]
fn stdio_serves_each_user_their_grant_in_both_revisions() {
    let host = Host::new();
    host.set_tools(tools_enabled());
    let runtime = tokio::runtime::Runtime::new().unwrap();
    for (mode, protocol) in MODES {
        let Some(mut clara) = Driver::python_stdio(mode, &host, "clara") else {
            return;
        };
        assert_eq!(clara.send(json!({"op": "info"}))["protocol"], protocol);
        common_checks(
            &mut clara,
            "clara",
            &runtime.block_on(host.granted("clara")),
        );
        approve_and_see(&host, &mut clara, &format!("Repairs ({mode}, stdio)"));
        disabled_between_two_calls(&host, &mut clara, mode);
        audited(&host, "clara", protocol);

        let admin_tools = Driver::python_stdio(mode, &host, "admin").unwrap().names();
        let petra_tools = Driver::python_stdio(mode, &host, "petra").unwrap().names();
        assert_eq!(admin_tools, runtime.block_on(host.granted("admin")));
        assert_eq!(petra_tools, runtime.block_on(host.granted("petra")));
        assert!(admin_tools.iter().any(|t| t == "get_system_status"));
        assert!(!petra_tools.iter().any(|t| t == "get_system_status"));
    }
}

#[test]
fn stdio_for_an_unknown_user_is_a_one_line_error() {
    let host = Host::new();
    let output = host.command(&["mcp", "--user", "nobody"]).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(
        stderr,
        "error: no user `nobody`; see `host-example users list`\n"
    );
}

#[test]
fn http_serves_tokens_users_and_changes_from_other_processes() {
    let host = Host::new();
    host.set_tools(tools_enabled());
    let server = host.serve();
    let url = server.mcp_url();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(without_a_known_token_is_401(&url));

    for (mode, protocol) in MODES {
        let token = host.token("clara");
        let Some(mut clara) = Driver::python(&["http", mode, &url, &token]) else {
            return;
        };
        assert_eq!(clara.send(json!({"op": "info"}))["protocol"], protocol);
        common_checks(
            &mut clara,
            "clara",
            &runtime.block_on(host.granted("clara")),
        );
        approve_and_see(&host, &mut clara, &format!("Repairs ({mode}, http)"));
        disabled_between_two_calls(&host, &mut clara, mode);
        audited(&host, "clara", protocol);

        let token = host.token("petra");
        let mut petra = Driver::python(&["http", mode, &url, &token]).unwrap();
        assert_eq!(petra.names(), runtime.block_on(host.granted("petra")));
    }
    stops_on_ctrl_c(server);
}

async fn without_a_known_token_is_401(url: &str) {
    let client = reqwest::Client::new();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string();
    for authorization in [None, Some("Bearer wrong-token")] {
        let mut request = client
            .post(url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.clone());
        if let Some(authorization) = authorization {
            request = request.header("authorization", authorization);
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), 401, "{authorization:?}");
        assert_eq!(response.headers()["www-authenticate"], "Bearer");
        assert_eq!(response.text().await.unwrap(), "");
    }
}

/// SIGINT, as Ctrl-C sends it: the server stops by itself, successfully.
fn stops_on_ctrl_c(mut server: mcp_support::Served) {
    let pid = server.child.id().to_string();
    let status = Command::new("kill").args(["-INT", &pid]).status().unwrap();
    assert!(status.success());
    let started = Instant::now();
    loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            assert!(status.success(), "{status}");
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "still serving after Ctrl-C"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The app layer in this process with a small page size: listing
/// takes several pages and still gives exactly the grant.
#[test]
fn http_pages_the_tool_list() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let demo = runtime.block_on(mcp_support::Demo::new());
    let router = host_example::mcp::http::router(
        Arc::clone(&demo.host),
        7,
        tokio_util::sync::CancellationToken::new(),
    );
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let url = format!(
        "http://{}{}",
        listener.local_addr().unwrap(),
        host_example::mcp::http::PATH
    );
    runtime.spawn(async move { axum::serve(listener, router).await });
    for (mode, _) in MODES {
        let Some(mut petra) = Driver::python(&["http", mode, &url, demo.token("petra")]) else {
            return;
        };
        let listed = petra.send(json!({"op": "list"}));
        assert!(listed["pages"].as_u64().unwrap() > 1, "{mode}");
        let names: Vec<&str> = listed["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|tool| tool["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, runtime.block_on(demo.granted("petra")));
    }
}
