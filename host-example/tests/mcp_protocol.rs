//! What the server answers on the wire, without an SDK: the bearer check in
//! front of `/mcp`, and JSON-RPC's "method not found" for a method rmcp does
//! not know (the Python client's cue to fall back from `server/discover`).

mod mcp_support;

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;

use host_example::mcp;
use serde_json::{Value, json};

/// The app layer over a fresh database, served over HTTP in this process;
/// the database lives as long as the [`Demo`](mcp_support::Demo).
async fn serve() -> (mcp_support::Demo, String) {
    let demo = mcp_support::Demo::new().await;
    let router = mcp::http::router(
        std::sync::Arc::clone(&demo.host),
        mcp::DEFAULT_PAGE_SIZE,
        tokio_util::sync::CancellationToken::new(),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!(
        "http://{}{}",
        listener.local_addr().unwrap(),
        mcp::http::PATH
    );
    tokio::spawn(async move { axum::serve(listener, router).await });
    (demo, url)
}

#[tokio::test]
async fn http_without_a_known_token_is_401_and_reveals_nothing() {
    let (_demo, url) = serve().await;
    let client = reqwest::Client::new();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string();
    let attempts = [
        None,
        Some("Bearer wrong-token"),
        Some("Basic YWRtaW46YWRtaW4="),
        Some("Bearer "),
    ];
    let mut answers = Vec::new();
    for authorization in attempts {
        let mut request = client
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.clone());
        if let Some(authorization) = authorization {
            request = request.header("authorization", authorization);
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), 401, "{authorization:?}");
        let challenge = response.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .to_owned();
        assert_eq!(challenge, "Bearer");
        let text = response.text().await.unwrap();
        assert_eq!(text, "");
        answers.push((challenge, text));
    }
    // Missing, malformed and unknown tokens read alike.
    answers.dedup();
    assert_eq!(answers.len(), 1);
}

#[tokio::test]
async fn http_with_a_known_token_reaches_the_server() {
    let (demo, url) = serve().await;
    let response = reqwest::Client::new()
        .post(&url)
        .header("authorization", format!("Bearer {}", demo.token("petra")))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(
            json!({
                "jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "0"}
                }
            })
            .to_string(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert!(response.headers().contains_key("mcp-session-id"));
}

#[test]
fn stdio_answers_an_unknown_method_with_method_not_found() {
    let host = mcp_support::Host::new();
    let mut server = host
        .command(&["mcp", "--user", "petra"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = server.stdin.take().unwrap();
    let mut stdout = BufReader::new(server.stdout.take().unwrap());
    let mut exchange = |message: Value| -> Value {
        // A message without an id is a notification: no answer to read.
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
        if message.get("id").is_none() {
            return Value::Null;
        }
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap()
    };
    let answer = exchange(json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}
        }
    }));
    assert_eq!(answer["result"]["protocolVersion"], "2025-11-25");
    assert_eq!(
        answer["result"]["capabilities"]["tools"]["listChanged"],
        true
    );
    exchange(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let answer =
        exchange(json!({"jsonrpc": "2.0", "id": 2, "method": "no/such_method", "params": {}}));
    assert_eq!(answer["error"]["code"], -32601, "{answer}");
    let _ = server.kill();
    let _ = server.wait();
}

/// stdio keeps rmcp's reading: a JSON line that is no JSON-RPC message is
/// answered `Invalid Request`, a line that is no JSON is ignored, and the
/// connection goes on serving whole lines.
#[tokio::test]
async fn stdio_answers_a_malformed_message_and_goes_on() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    let (mut write, server_read) = tokio::io::duplex(1 << 16);
    let (server_write, read) = tokio::io::duplex(1 << 16);
    let demo = mcp_support::Demo::new().await;
    let server = tokio::spawn(mcp::serve_io(
        std::sync::Arc::clone(&demo.host),
        mcp_support::actor("petra"),
        server_read,
        server_write,
    ));
    let mut read = BufReader::new(read);
    let mut exchange = async |line: &str| -> Value {
        write.write_all(line.as_bytes()).await.unwrap();
        let mut answer = String::new();
        read.read_line(&mut answer).await.unwrap();
        serde_json::from_str(&answer).unwrap()
    };
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}
        }
    });
    let answer = exchange(&format!("not json\n{initialize}\n")).await;
    assert_eq!(answer["id"], 1, "{answer}");
    let answer = exchange("{\"neither\": \"request nor response\"}\n").await;
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let answer = exchange(&format!("{list}\n")).await;
    assert_eq!(answer["id"], 2, "{answer}");
    let names: Vec<&str> = answer["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, demo.granted("petra").await);
    drop(write);
    server.await.unwrap().unwrap();
}
