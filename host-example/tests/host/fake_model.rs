//! A Chat Completions server on loopback, on its own thread and runtime
//! (the host processes under test talk to it while the test blocks on
//! them): it answers from a script and keeps every request it got.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};

#[derive(Default)]
struct Script {
    replies: Mutex<VecDeque<Value>>,
    seen: Mutex<Vec<Value>>,
}

pub struct FakeModel {
    pub base_url: String,
    script: Arc<Script>,
}

impl FakeModel {
    /// Serves each of `messages` (an assistant message each) in turn.
    pub fn start(messages: impl IntoIterator<Item = Value>) -> FakeModel {
        let script = Arc::new(Script {
            replies: Mutex::new(messages.into_iter().collect()),
            seen: Mutex::default(),
        });
        let state = script.clone();
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let app = Router::new()
                    .route("/v1/chat/completions", post(chat_completions))
                    .with_state(state);
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                let url = format!("http://{}/v1", listener.local_addr().unwrap());
                sender.send(url).unwrap();
                axum::serve(listener, app).await.unwrap();
            });
        });
        FakeModel {
            base_url: receiver.recv().unwrap(),
            script,
        }
    }

    /// The `model` setting pointing at it.
    pub fn setting(&self) -> String {
        json!({"base_url": self.base_url, "model": "fake"}).to_string()
    }

    /// The request bodies received, in order.
    pub fn seen(&self) -> Vec<Value> {
        self.script.seen.lock().unwrap().clone()
    }
}

async fn chat_completions(State(script): State<Arc<Script>>, body: Bytes) -> Response {
    script
        .seen
        .lock()
        .unwrap()
        .push(serde_json::from_slice(&body).expect("the client sends JSON"));
    let Some(message) = script.replies.lock().unwrap().pop_front() else {
        return (StatusCode::IM_A_TEAPOT, "the script is exhausted").into_response();
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

/// An assistant message calling `calls`: (id, tool, arguments).
pub fn calling(calls: &[(&str, &str, Value)]) -> Value {
    let calls: Vec<Value> = calls
        .iter()
        .map(|(id, name, arguments)| {
            json!({
                "id": id,
                "type": "function",
                "function": {"name": name, "arguments": arguments.to_string()},
            })
        })
        .collect();
    json!({"role": "assistant", "content": null, "tool_calls": calls})
}

/// An assistant message answering `text`.
pub fn answering(text: &str) -> Value {
    json!({"role": "assistant", "content": text})
}
