//! A raw JSON-RPC client over HTTP, for what the official clients do not
//! speak yet (the tasks and Skills extensions): one 2025-11-25 session,
//! its answers read from a JSON body or an event stream.

use reqwest::header::HeaderMap;
use serde_json::{Value, json};

use super::Served;

/// One 2025-11-25 session with a served host, as a bearer token's user.
pub struct Session {
    client: reqwest::Client,
    url: String,
    token: String,
    id: String,
    next: u64,
}

impl Session {
    /// `initialize` declaring the `extensions` given, then
    /// `notifications/initialized`.
    pub async fn open(server: &Served, token: &str, extensions: &[&str]) -> Session {
        Session::open_at(&server.mcp_url(), token, extensions).await
    }

    /// [`Session::open`] at the MCP endpoint `url` (a server, or a proxy
    /// in front of several).
    pub async fn open_at(url: &str, token: &str, extensions: &[&str]) -> Session {
        let declared: serde_json::Map<String, Value> = extensions
            .iter()
            .map(|id| ((*id).to_owned(), json!({})))
            .collect();
        let capabilities = json!({"extensions": declared});
        let mut session = Session {
            client: reqwest::Client::new(),
            url: url.to_owned(),
            token: token.to_owned(),
            id: String::new(),
            next: 1,
        };
        let (headers, answer) = session
            .post(json!({
                "jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": capabilities,
                    "clientInfo": {"name": "raw", "version": "0"}
                }
            }))
            .await;
        // The server speaks every extension the client declares here.
        let advertised = &answer["result"]["capabilities"]["extensions"];
        for id in extensions {
            assert!(advertised.get(*id).is_some(), "{id} not in {answer}");
        }
        session.id = headers["mcp-session-id"].to_str().unwrap().to_owned();
        session
            .post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        session
    }

    /// One request (or notification) and its answer: the JSON-RPC message
    /// with the request's id, from a JSON body or an event stream.
    pub async fn post(&self, message: Value) -> (HeaderMap, Value) {
        let mut request = self
            .client
            .post(&self.url)
            .header("authorization", format!("Bearer {}", self.token))
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(message.to_string());
        if !self.id.is_empty() {
            request = request
                .header("mcp-session-id", &self.id)
                .header("mcp-protocol-version", "2025-11-25");
        }
        let response = request.send().await.unwrap();
        assert!(response.status().is_success(), "{}", response.status());
        let headers = response.headers().clone();
        let body = response.text().await.unwrap();
        let Some(id) = message.get("id") else {
            return (headers, Value::Null);
        };
        let answer = std::iter::once(body.as_str())
            .chain(body.lines().filter_map(|line| line.strip_prefix("data:")))
            .filter_map(|text| serde_json::from_str::<Value>(text.trim()).ok())
            .find(|value| value.get("id") == Some(id))
            .unwrap_or_else(|| panic!("no answer to {message} in {body}"));
        (headers, answer)
    }

    /// The session's id (`Mcp-Session-Id`).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Sends this session's next messages to the MCP endpoint `url`
    /// (another process sharing the database, or a proxy).
    pub fn send_to(&mut self, url: &str) {
        url.clone_into(&mut self.url);
    }

    pub async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.post(message).await.1
    }
}

/// One 2026-07-28 stateless `tools/call` of `name` with `arguments` at the
/// MCP endpoint `url` as `token`'s user, sending `claimed` as its
/// `Mcp-Session-Id` when given (a header the client chose: made up, or a
/// session another caller was issued); the answer's `result`.
pub async fn stateless_call(
    url: &str,
    token: &str,
    name: &str,
    arguments: Value,
    claimed: Option<&str>,
) -> Value {
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {
            "name": name,
            "arguments": arguments,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
                "io.modelcontextprotocol/clientCapabilities": {}
            }
        }
    });
    let mut request = reqwest::Client::new()
        .post(url)
        .bearer_auth(token)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", name)
        .body(body.to_string());
    if let Some(id) = claimed {
        request = request.header("mcp-session-id", id);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    let text = response.text().await.unwrap();
    assert!(status.is_success(), "{status}: {text}");
    let answer = text
        .lines()
        .map(|line| line.strip_prefix("data:").unwrap_or(line).trim())
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|message| message["id"] == json!(1))
        .unwrap_or_else(|| panic!("no answer: {text}"));
    answer["result"].clone()
}
