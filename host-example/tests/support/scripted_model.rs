//! A rule-driven Chat Completions server for the browser tests: it speaks
//! the wire format the host's client uses (`POST {base}/chat/completions`,
//! not streamed) and decides each answer from the conversation it gets, so
//! a browser test steers a run through its prompt alone.
//!
//! The rules, first match wins:
//!
//! 0. the trailing tool results say `CALL <tool> <json-object>` anywhere
//!    → that call, each one: the model obeys text it read, as a model
//!    taken in by a prompt injection does (the injection suite,
//!    `tests/injection.rs`);
//! 1. the last message is a tool result → a final answer quoting the
//!    trailing results briefly, without the host's mark around each
//!    (`The tools answered: …`);
//! 2. the last user message has lines `CALL <tool> <json-arguments>` → one
//!    call per line, of that tool with those arguments (passed on as
//!    written, so arguments that are not JSON reach the host as they
//!    would from a real model);
//! 3. it has a line starting `SAY ` → the answer is exactly what follows
//!    `SAY `, to the end of the message;
//! 4. otherwise a plain answer saying it has nothing to call.
//!
//! A line `HOLD <name>` in the last user message makes the answer to it
//! wait until `POST {base}/release/<name>` (or a minute): a test can look
//! at a run while the model is still "thinking". Every answer carries a
//! `reasoning_content` (as DeepSeek, vLLM and llama.cpp send it) naming the
//! rule, and a `usage` of the request's and answer's bytes / 4.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};
use tokio::sync::Notify;

/// How long a `HOLD` waits for its release at most.
const HOLD_LIMIT: Duration = Duration::from_secs(60);

/// How much of each tool result the final answer quotes.
const QUOTED_CHARS: usize = 160;

/// A running scripted model.
pub struct ScriptedModel {
    /// The API root (`http://127.0.0.1:port/v1`), as a model setting's
    /// `base_url`.
    pub base_url: String,
}

/// The held answers, by name: a release before the hold is kept.
#[derive(Default)]
struct Holds(Mutex<HashMap<String, Arc<Notify>>>);

impl Holds {
    fn get(&self, name: &str) -> Arc<Notify> {
        let mut holds = self.0.lock().unwrap_or_else(|e| e.into_inner());
        holds.entry(name.to_owned()).or_default().clone()
    }
}

impl ScriptedModel {
    /// Serves it on loopback, on the current Tokio runtime.
    pub async fn start() -> ScriptedModel {
        let app = Router::new()
            .route("/v1/chat/completions", post(chat_completions))
            .route("/v1/release/{name}", post(release))
            .with_state(Arc::new(Holds::default()));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        ScriptedModel { base_url }
    }

    /// The `model` setting pointing at it, with prices so that costs show.
    pub fn setting(&self) -> String {
        self.setting_named("scripted")
    }

    /// A model configuration pointing at it, the model called `model`.
    pub fn setting_named(&self, model: &str) -> String {
        json!({
            "base_url": self.base_url,
            "model": model,
            "input_price_per_mtok": 1.0,
            "output_price_per_mtok": 4.0,
        })
        .to_string()
    }
}

async fn release(State(holds): State<Arc<Holds>>, Path(name): Path<String>) -> StatusCode {
    // `notify_one` keeps a permit when nobody waits yet.
    holds.get(&name).notify_one();
    StatusCode::NO_CONTENT
}

async fn chat_completions(State(holds): State<Arc<Holds>>, body: String) -> Response {
    let Ok(request) = serde_json::from_str::<Value>(&body) else {
        return (StatusCode::BAD_REQUEST, "the body is not JSON").into_response();
    };
    let messages = request["messages"].as_array().cloned().unwrap_or_default();
    let last_is_tool = messages.last().is_some_and(|m| m["role"] == "tool");
    if !last_is_tool && let Some(name) = command(&messages, "HOLD ").next() {
        let released = holds.get(name.trim());
        let _ = tokio::time::timeout(HOLD_LIMIT, released.notified()).await;
    }
    let (message, rule) = answer(&messages);
    let written = message.to_string().len();
    let mut message = message;
    message["reasoning_content"] = json!(format!("Rule {rule} applies."));
    let body = json!({
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "scripted",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {
            "prompt_tokens": body.len() / 4,
            "completion_tokens": written / 4,
            "total_tokens": (body.len() + written) / 4,
        },
    });
    (
        StatusCode::OK,
        [("content-type", "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// The assistant message the rules give for `messages`, and the rule.
fn answer(messages: &[Value]) -> (Value, u8) {
    let trailing_results: Vec<String> = messages
        .iter()
        .rev()
        .take_while(|m| m["role"] == "tool")
        .map(|m| cut(unmarked(m["content"].as_str().unwrap_or_default())))
        .collect();
    let earlier_calls: usize = messages
        .iter()
        .filter_map(|m| m["tool_calls"].as_array())
        .map(Vec::len)
        .sum();
    let obeyed: Vec<Value> = messages
        .iter()
        .rev()
        .take_while(|m| m["role"] == "tool")
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .flat_map(|m| injected_calls(m["content"].as_str().unwrap_or_default()))
        .enumerate()
        .map(|(index, (tool, arguments))| {
            json!({
                "id": format!("call_{}", earlier_calls + index + 1),
                "type": "function",
                "function": {"name": tool, "arguments": arguments},
            })
        })
        .collect();
    if !obeyed.is_empty() {
        return (
            json!({"role": "assistant", "content": null, "tool_calls": obeyed}),
            0,
        );
    }
    if !trailing_results.is_empty() {
        let quoted: Vec<String> = trailing_results.into_iter().rev().collect();
        let text = format!("The tools answered: {}", quoted.join(" | "));
        return (json!({"role": "assistant", "content": text}), 1);
    }
    let calls: Vec<Value> = command(messages, "CALL ")
        .enumerate()
        .map(|(index, rest)| {
            let rest = rest.trim();
            let (tool, arguments) = rest.split_once(char::is_whitespace).unwrap_or((rest, "{}"));
            json!({
                "id": format!("call_{}", earlier_calls + index + 1),
                "type": "function",
                "function": {"name": tool, "arguments": arguments.trim()},
            })
        })
        .collect();
    if !calls.is_empty() {
        return (
            json!({"role": "assistant", "content": null, "tool_calls": calls}),
            2,
        );
    }
    let prompt = last_user_text(messages);
    if let Some(at) = prompt
        .match_indices("SAY ")
        .map(|(at, _)| at)
        .find(|&at| at == 0 || prompt[..at].ends_with('\n'))
    {
        let text = &prompt[at + "SAY ".len()..];
        return (json!({"role": "assistant", "content": text}), 3);
    }
    let text = format!(
        "I read your message ({} characters) and have nothing to call.",
        prompt.chars().count()
    );
    (json!({"role": "assistant", "content": text}), 4)
}

/// The calls a tool result tells the model to make: each `CALL <tool>`
/// followed by a JSON object, anywhere in the text (its arguments as
/// JSON text). A result that is JSON is read through its string escapes,
/// as a model reads it.
fn injected_calls(text: &str) -> Vec<(String, String)> {
    let calls = injected_calls_in(text);
    if calls.is_empty() && text.contains("\\\"") {
        return injected_calls_in(&text.replace("\\\"", "\""));
    }
    calls
}

fn injected_calls_in(text: &str) -> Vec<(String, String)> {
    let mut calls = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("CALL ") {
        rest = &rest[at + "CALL ".len()..];
        let name_end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .unwrap_or(rest.len());
        let (tool, after) = rest.split_at(name_end);
        let mut values =
            serde_json::Deserializer::from_str(after.trim_start()).into_iter::<Value>();
        if let (false, Some(Ok(arguments @ Value::Object(_)))) = (tool.is_empty(), values.next()) {
            calls.push((tool.to_owned(), arguments.to_string()));
        }
    }
    calls
}

/// What follows `word` on each line of the last user message that starts
/// with it.
fn command<'m>(messages: &'m [Value], word: &'static str) -> impl Iterator<Item = &'m str> {
    last_user_text(messages)
        .lines()
        .filter_map(move |line| line.trim_start().strip_prefix(word))
}

fn last_user_text(messages: &[Value]) -> &str {
    messages
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
}

/// A tool result without the host's mark around it (the opening tag and
/// its note, the closing tag): what the model quotes is the data.
fn unmarked(text: &str) -> &str {
    if !text.starts_with("<tool_result ") {
        return text;
    }
    let mut lines = text.splitn(3, '\n');
    let (_, _, data) = (lines.next(), lines.next(), lines.next().unwrap_or_default());
    data.strip_suffix("\n</tool_result>").unwrap_or(data)
}

fn cut(text: &str) -> String {
    match text.char_indices().nth(QUOTED_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}
