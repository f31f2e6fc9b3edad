//! Browser origins and closing a session, over real HTTP on loopback:
//! `/mcp` and the pages' forms refuse a request whose `Origin` is present
//! and neither the server's own nor one the `allowed_origins` setting
//! lists (`null` included); a session's `DELETE` is answered `204`, so
//! the official Python and TypeScript clients close their sessions without
//! a warning.

mod mcp_support;

use std::sync::Arc;

use host_example::serve::{self, HostState};
use host_example::web::WebState;
use mcp_support::{Demo, Driver, Host};
use reqwest::StatusCode;
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// The host's whole HTTP router (MCP and the pages) over `demo`, on a free
/// loopback port; its base URL.
async fn serve_demo(demo: &Demo) -> String {
    let state = HostState {
        host: Arc::clone(&demo.host),
        web: WebState::new(Arc::clone(&demo.host)),
    };
    let router = serve::router(&state, CancellationToken::new());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await });
    base
}

fn initialize() -> String {
    json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}
        }
    })
    .to_string()
}

/// An `initialize` POST to `/mcp` with `token`, and `origin` if any.
async fn post_mcp(base: &str, token: Option<&str>, origin: Option<&str>) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .post(format!("{base}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(initialize());
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    if let Some(origin) = origin {
        request = request.header("origin", origin);
    }
    request.send().await.unwrap()
}

/// A form POST to the pages' sign-in, with `origin` if any.
async fn post_form(base: &str, origin: Option<&str>) -> (StatusCode, String) {
    let mut request = reqwest::Client::new()
        .post(format!("{base}/signin"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body("name=petra&password=wrong&csrf=none");
    if let Some(origin) = origin {
        request = request.header("origin", origin);
    }
    let response = request.send().await.unwrap();
    (response.status(), response.text().await.unwrap())
}

const FOREIGN_FORM: &str = "another site's page";

#[tokio::test(flavor = "multi_thread")]
async fn a_foreign_or_null_origin_is_refused_the_own_and_allowed_ones_pass() {
    let demo = Demo::new().await;
    let base = serve_demo(&demo).await;
    let token = demo.token("petra");
    let own = base.clone();

    for origin in [None, Some(own.as_str())] {
        let response = post_mcp(&base, Some(token), origin).await;
        assert_eq!(response.status(), StatusCode::OK, "{origin:?}");
        let (_, body) = post_form(&base, origin).await;
        assert!(!body.contains(FOREIGN_FORM), "{origin:?}: {body}");
    }

    let other_port = base.replace("127.0.0.1:", "127.0.0.1:1");
    let localhost = base.replace("127.0.0.1", "localhost");
    for origin in [
        "http://evil.com",
        "null",
        "not an origin",
        "http://127.0.0.1",
        &other_port,
        &localhost,
        "https://app.example.com",
    ] {
        let response = post_mcp(&base, Some(token), Some(origin)).await;
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "{origin}");
        // Refused before the token is looked at.
        let response = post_mcp(&base, None, Some(origin)).await;
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "{origin}");
        let (status, body) = post_form(&base, Some(origin)).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{origin}");
        assert!(body.contains(FOREIGN_FORM), "{origin}: {body}");
    }

    // An origin the settings list is admitted, in any spelling of it; one
    // port off is another origin.
    demo.host
        .admin()
        .set_setting(
            "admin",
            "allowed_origins",
            r#"["HTTPS://App.Example.com:443"]"#,
        )
        .await
        .unwrap();
    let response = post_mcp(&base, Some(token), Some("https://app.example.com")).await;
    assert_eq!(response.status(), StatusCode::OK);
    let (_, body) = post_form(&base, Some("https://app.example.com")).await;
    assert!(!body.contains(FOREIGN_FORM), "{body}");
    let response = post_mcp(&base, Some(token), Some("https://app.example.com:444")).await;
    assert_eq!(response.status(), StatusCode::FORBIDDEN);

    // `null` cannot be allowed: nobody can be told apart behind it.
    for value in [r#"["null"]"#, r#"["https://app.example.com/path"]"#] {
        let refused = demo
            .host
            .admin()
            .set_setting("admin", "allowed_origins", value)
            .await;
        assert!(refused.is_err(), "{value}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_sessions_delete_is_answered_204_and_ends_it() {
    let demo = Demo::new().await;
    let base = serve_demo(&demo).await;
    let token = demo.token("petra");
    let response = post_mcp(&base, Some(token), None).await;
    assert_eq!(response.status(), StatusCode::OK);
    let session = response.headers()["mcp-session-id"].clone();
    let client = reqwest::Client::new();
    let response = client
        .delete(format!("{base}/mcp"))
        .header("authorization", format!("Bearer {token}"))
        .header("mcp-session-id", session.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    assert_eq!(response.text().await.unwrap(), "");
    // The session is gone: a request in it is not found.
    let response = client
        .post(format!("{base}/mcp"))
        .header("authorization", format!("Bearer {token}"))
        .header("mcp-session-id", session)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
}

/// The official Python client on a 2025-11-25 session (the revision with
/// sessions) closes it with `DELETE` when it ends, and logs nothing.
#[test]
fn the_python_client_closes_its_session_without_a_warning() {
    let host = Host::new();
    let server = host.serve();
    let token = host.token("petra");
    let url = server.mcp_url();
    let Some(mut client) = Driver::python_keeping_stderr(&["http", "legacy", &url, &token]) else {
        return;
    };
    assert_eq!(client.send(json!({"op": "info"}))["protocol"], "2025-11-25");
    assert!(!client.names().is_empty());
    let stderr = client.finish();
    assert!(!stderr.contains("Session termination failed"), "{stderr}");
    assert_eq!(stderr, "", "the client warned");
}

/// The official TypeScript client over HTTP (2025-11-25, with a session)
/// ends its session with `DELETE` (`terminateSession`) and logs nothing:
/// a failed termination would throw and end the script with an error.
#[test]
fn the_typescript_client_ends_its_session_without_a_warning() {
    let host = Host::new();
    let server = host.serve();
    let token = host.token("petra");
    let url = server.mcp_url();
    let Some(mut client) = Driver::typescript_keeping_stderr(&["--http", &url, &token]) else {
        return;
    };
    assert!(!client.names().is_empty());
    let stderr = client.finish();
    assert_eq!(stderr, "", "the client warned");
}

/// DNS rebinding: a name the attacker owns, pointed at this server. The
/// attacker's page, its `Origin` and the `Host` all say that name, so the
/// `Origin` rule alone would take it for the server's own; a `Host` that
/// is a domain name the host was not told of is refused. An IP literal,
/// `localhost` and the hosts of allowed origins pass.
#[tokio::test(flavor = "multi_thread")]
async fn a_rebound_name_is_refused_at_the_pages_forms() {
    let demo = Demo::new().await;
    let base = serve_demo(&demo).await;
    let port = base.rsplit(':').next().unwrap().to_owned();
    let sign_in = |host: String| {
        let base = base.clone();
        async move {
            let response = reqwest::Client::new()
                .post(format!("{base}/signin"))
                .header("host", &host)
                .header("origin", format!("http://{host}"))
                .header("content-type", "application/x-www-form-urlencoded")
                .body("name=admin&password=demo&csrf=none")
                .send()
                .await
                .unwrap();
            let status = response.status();
            (status, response.text().await.unwrap())
        }
    };
    let (status, body) = sign_in(format!("rebound.attacker.example:{port}")).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert!(body.contains(FOREIGN_FORM), "{body}");
    for own in [format!("127.0.0.1:{port}"), format!("localhost:{port}")] {
        let (_, body) = sign_in(own.clone()).await;
        assert!(!body.contains(FOREIGN_FORM), "{own}: {body}");
    }
    // The name the host is reached by, once allowed, passes.
    let named = format!("http://host.example.test:{port}");
    demo.host
        .admin()
        .set_setting("admin", "allowed_origins", &json!([named]).to_string())
        .await
        .unwrap();
    let (_, body) = sign_in(format!("host.example.test:{port}")).await;
    assert!(!body.contains(FOREIGN_FORM), "{body}");
}
