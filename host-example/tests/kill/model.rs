//! A Chat Completions server on loopback that never runs out: asked by a
//! run whose last message is the person's `Rename page 2 to TITLE`, it
//! proposes that title; asked after a tool's result, it answers. So one
//! server serves every run of every kill.

use axum::Router;
use axum::body::Bytes;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};

/// The prompt the model reads a title from.
pub const PROMPT: &str = "Rename page 2 to ";

pub struct Model {
    pub base_url: String,
}

impl Model {
    pub fn start() -> Model {
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let app = Router::new().route("/v1/chat/completions", post(complete));
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                let url = format!("http://{}/v1", listener.local_addr().unwrap());
                sender.send(url).unwrap();
                axum::serve(listener, app).await.unwrap();
            });
        });
        Model {
            base_url: receiver.recv().unwrap(),
        }
    }

    /// The `model` setting pointing at it.
    pub fn setting(&self) -> String {
        json!({"base_url": self.base_url, "model": "fake"}).to_string()
    }
}

async fn complete(body: Bytes) -> Response {
    let Ok(request) = serde_json::from_slice::<Value>(&body) else {
        return (StatusCode::BAD_REQUEST, "not JSON").into_response();
    };
    let last = request["messages"]
        .as_array()
        .and_then(|messages| messages.last())
        .cloned()
        .unwrap_or_default();
    let title = last["content"]
        .as_str()
        .and_then(|text| text.strip_prefix(PROMPT));
    let message = match (last["role"].as_str(), title) {
        (Some("user"), Some(title)) => {
            let arguments = json!({"page": 2, "title": title}).to_string();
            json!({"role": "assistant", "content": null, "tool_calls": [{
                "id": "call-rename",
                "type": "function",
                "function": {"name": "update_page_metadata", "arguments": arguments},
            }]})
        }
        _ => json!({"role": "assistant", "content": "Done."}),
    };
    let body = json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "fake",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 12, "completion_tokens": 7, "total_tokens": 19},
    });
    (
        StatusCode::OK,
        [("content-type", "application/json")],
        body.to_string(),
    )
        .into_response()
}
