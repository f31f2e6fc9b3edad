//! The official Python MCP client (pinned in tests/mcp_clients) against the
//! server: over stdio with the example server, and over Streamable HTTP with
//! the server in this process, so the test can approve proposals and change
//! settings between calls. Both protocol revisions: `auto` negotiates
//! 2026-07-28 through `server/discover`, `legacy` uses `initialize`.

mod mcp_support;

use std::sync::Arc;

use host_example::mcp::{self, CallDecision, MemoryBackend};
use mcp_support::{Driver, actor, backend, common_checks, granted, is_error, propose, text};
use serde_json::json;
use tool_core::ProposalId;
use tool_core::gates::Toggle;

const MODES: [(&str, &str); 2] = [("auto", "2026-07-28"), ("legacy", "2025-11-25")];

fn stdio_client(mode: &str, user: &str) -> Option<Driver> {
    let server = mcp_support::server_binary();
    let server = server.to_str().unwrap();
    Driver::python(&["stdio", mode, server, "stdio", "--user", user])
}

#[test]
fn stdio_serves_each_user_their_grant_in_both_revisions() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    for (mode, protocol) in MODES {
        let Some(mut clara) = stdio_client(mode, "clara") else {
            return;
        };
        assert_eq!(clara.send(json!({"op": "info"}))["protocol"], protocol);
        common_checks(&mut clara, "clara", &runtime.block_on(granted("clara")));
        propose(&mut clara, "Repairs and servicing");

        let mut admin = stdio_client(mode, "admin").unwrap();
        let mut petra = stdio_client(mode, "petra").unwrap();
        let admin_tools = admin.names();
        let petra_tools = petra.names();
        assert_eq!(admin_tools, runtime.block_on(granted("admin")));
        assert_eq!(petra_tools, runtime.block_on(granted("petra")));
        assert!(admin_tools.iter().any(|t| t == "get_system_status"));
        assert!(!petra_tools.iter().any(|t| t == "get_system_status"));
    }
}

/// The HTTP server on a loopback port of a runtime of its own; the test
/// thread drives the blocking client.
struct HttpServer {
    runtime: tokio::runtime::Runtime,
    backend: Arc<MemoryBackend>,
    url: String,
}

impl HttpServer {
    fn start(page_size: usize) -> HttpServer {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let backend = backend();
        let router = mcp::http::router(Arc::clone(&backend), page_size);
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let url = format!(
            "http://{}{}",
            listener.local_addr().unwrap(),
            mcp::http::PATH
        );
        runtime.spawn(async move { axum::serve(listener, router).await });
        HttpServer {
            runtime,
            backend,
            url,
        }
    }
}

#[test]
fn http_approves_proposals_and_announces_disabled_tools() {
    for (mode, protocol) in MODES {
        // A small page size, so listing takes several pages.
        let server = HttpServer::start(7);
        let Some(mut clara) = Driver::python(&["http", mode, &server.url, "clara-token"]) else {
            return;
        };
        assert_eq!(clara.send(json!({"op": "info"}))["protocol"], protocol);
        let expected = server.runtime.block_on(granted("clara"));
        common_checks(&mut clara, "clara", &expected);
        assert!(clara.send(json!({"op": "list"}))["pages"].as_u64().unwrap() > 1);

        // A proposal, approved by an administrator, changes the record.
        let id = propose(&mut clara, "Repairs and servicing");
        let written = server
            .runtime
            .block_on(
                server
                    .backend
                    .approve(&ProposalId::new(&id), &actor("admin")),
            )
            .unwrap();
        assert!(written.to_model_text().starts_with("written and verified"));
        let tree = clara.call("get_pagetree", json!({"root": 19}));
        assert!(text(&tree).contains("Repairs and servicing"), "{tree}");

        // A tool switched off between two calls: refused on the second, and
        // announced to the open stream.
        assert_eq!(clara.send(json!({"op": "listen"}))["listening"], true);
        assert!(!is_error(&clara.call("list_tables", json!({}))));
        server
            .runtime
            .block_on(
                server
                    .backend
                    .set_tool_state("list_tables", Toggle::Disabled),
            )
            .unwrap();
        assert_eq!(
            clara.send(json!({"op": "wait_list_changed"}))["list_changed"],
            true,
            "{mode}"
        );
        let refused = clara.call("list_tables", json!({}));
        assert!(is_error(&refused));
        assert_eq!(text(&refused), "tool `list_tables` is not available");
        assert!(!clara.names().iter().any(|t| t == "list_tables"));

        // Every call is audited with the client, the revision and the gate.
        let audit = server.backend.store().audit();
        let last = audit.last().unwrap();
        assert_eq!(last.caller.actor, actor("clara"));
        assert_eq!(
            last.caller.client_name.as_deref(),
            Some("host-example-python-test")
        );
        assert_eq!(last.caller.client_version.as_deref(), Some("1.0.0"));
        assert_eq!(last.caller.protocol.as_deref(), Some(protocol));
        match &last.decision {
            CallDecision::Refused { denial } => assert_eq!(denial.gate().to_string(), "enabled"),
            other => panic!("{other:?}"),
        }
        assert!(
            audit
                .iter()
                .any(|e| matches!(e.decision, CallDecision::Proposed { .. }))
        );
    }
}
