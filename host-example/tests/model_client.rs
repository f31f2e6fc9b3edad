//! The model client against an in-process Chat Completions server on
//! loopback: a real HTTP server speaking the real wire format, scripted per
//! test, recording every request it got.

use std::collections::{BTreeSet, VecDeque};
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use host_example::model::{ClientError, ModelConfig, OpenAiClient};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tool_core::agent::{
    Agent, Message, Model, ModelError, ModelRequest, RunEnd, RunStatus, ToolCall, Usage,
};
use tool_core::export::Provider;
use tool_core::gates::{HostSettings, RunConfig, RunInputs, Selection};
use tool_core::{Execute, Registry, RunId, Tool, ToolContext, ToolError, ToolOutput};

// The fake server.

/// One scripted answer.
enum Reply {
    /// A status, extra headers and a body.
    Answer {
        status: u16,
        headers: Vec<(&'static str, &'static str)>,
        body: String,
    },
    /// Nothing for this long, then an empty 200.
    Stall(Duration),
}

/// What one request carried.
#[derive(Debug, Clone)]
struct Seen {
    authorization: Option<String>,
    body: Value,
}

#[derive(Default)]
struct Script {
    replies: Mutex<VecDeque<Reply>>,
    seen: Mutex<Vec<Seen>>,
}

struct FakeServer {
    base_url: String,
    script: Arc<Script>,
}

impl FakeServer {
    /// Serves `replies` in order on `127.0.0.1`; must run inside the
    /// runtime the test uses.
    async fn start(replies: impl IntoIterator<Item = Reply>) -> Self {
        let script = Arc::new(Script {
            replies: Mutex::new(replies.into_iter().collect()),
            seen: Mutex::default(),
        });
        let app = Router::new()
            .route("/v1/chat/completions", post(chat_completions))
            .with_state(script.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        FakeServer { base_url, script }
    }

    fn config(&self) -> ModelConfig {
        ModelConfig::new(&self.base_url, "fake-model")
    }

    fn client(&self) -> OpenAiClient {
        OpenAiClient::new(self.config()).unwrap()
    }

    fn seen(&self) -> Vec<Seen> {
        self.script.seen.lock().unwrap().clone()
    }
}

async fn chat_completions(
    State(script): State<Arc<Script>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    script.seen.lock().unwrap().push(Seen {
        authorization: headers
            .get("authorization")
            .map(|value| value.to_str().unwrap().to_owned()),
        body: serde_json::from_slice(&body).expect("the client sends JSON"),
    });
    let reply = script.replies.lock().unwrap().pop_front();
    match reply {
        Some(Reply::Answer {
            status,
            headers,
            body,
        }) => {
            let mut response = (
                StatusCode::from_u16(status).unwrap(),
                [("content-type", "application/json")],
                body,
            )
                .into_response();
            for (name, value) in headers {
                response.headers_mut().insert(name, value.parse().unwrap());
            }
            response
        }
        Some(Reply::Stall(duration)) => {
            tokio::time::sleep(duration).await;
            StatusCode::OK.into_response()
        }
        None => (StatusCode::IM_A_TEAPOT, "the script is exhausted").into_response(),
    }
}

/// A Chat Completions answer: `message` is the choice's message.
fn completion(message: Value) -> Reply {
    Reply::Answer {
        status: 200,
        headers: Vec::new(),
        body: json!({
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": "fake-model",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 12, "completion_tokens": 7, "total_tokens": 19},
        })
        .to_string(),
    }
}

fn text(content: &str) -> Reply {
    completion(json!({"role": "assistant", "content": content}))
}

/// A message calling `name` with `arguments` (a string of JSON, or not).
fn tool_call(id: &str, name: &str, arguments: &str) -> Reply {
    completion(json!({
        "role": "assistant",
        "content": null,
        "tool_calls": [{
            "id": id,
            "type": "function",
            "function": {"name": name, "arguments": arguments},
        }],
    }))
}

fn error(status: u16, message: &str) -> Reply {
    Reply::Answer {
        status,
        headers: Vec::new(),
        body: json!({
            "error": {"message": message, "type": "invalid_request_error", "param": null, "code": null}
        })
        .to_string(),
    }
}

fn run<F: Future>(test: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(test)
}

fn ask(messages: &[Message]) -> ModelRequest<'_> {
    ModelRequest {
        messages,
        tools: None,
    }
}

// The client, one request at a time.

#[test]
fn plain_answer_with_usage() {
    run(async {
        let server = FakeServer::start([text("Paris.")]).await;
        let client = server.client();
        assert_eq!(client.provider(), Provider::OpenAi);
        let messages = [
            Message::system("Be brief."),
            Message::user("Capital of France?"),
        ];
        let response = client.complete(ask(&messages)).await.unwrap();
        assert_eq!(response.text, "Paris.");
        assert!(response.calls.is_empty());
        assert_eq!(
            response.usage,
            Usage {
                input_tokens: 12,
                output_tokens: 7
            }
        );

        let seen = server.seen();
        assert_eq!(seen.len(), 1);
        assert_eq!(
            seen[0].body,
            json!({
                "model": "fake-model",
                "messages": [
                    {"role": "system", "content": "Be brief."},
                    {"role": "user", "content": "Capital of France?"},
                ],
            })
        );
        assert_eq!(seen[0].authorization, None);
    });
}

#[test]
fn thinking_is_read_and_the_raw_answer_kept_only_when_asked() {
    run(async {
        let thinking = |field: &str| {
            completion(json!({"role": "assistant", "content": "42.", field: "Six times seven."}))
        };
        let server = FakeServer::start([
            thinking("reasoning_content"),
            thinking("reasoning"),
            text("Plain."),
        ])
        .await;
        let messages = [Message::user("Answer?")];
        let client = server.client();
        let first = client.complete(ask(&messages)).await.unwrap();
        assert_eq!(first.thinking.as_deref(), Some("Six times seven."));
        assert_eq!(first.raw, None, "raw answers are kept only when asked");
        let client = client.capture_raw(true);
        let second = client.complete(ask(&messages)).await.unwrap();
        assert_eq!(second.thinking.as_deref(), Some("Six times seven."));
        let raw = second.raw.expect("kept when asked");
        assert_eq!(
            raw["choices"][0]["message"]["reasoning"],
            "Six times seven."
        );
        assert_eq!(raw["usage"]["total_tokens"], 19);
        let third = client.complete(ask(&messages)).await.unwrap();
        assert_eq!(third.thinking, None);
        // What a dry run shows is the body that was posted.
        assert_eq!(client.request_body(&ask(&messages)), server.seen()[2].body);
    });
}

#[test]
fn tool_call_round_trip_in_the_wire_format() {
    run(async {
        let server = FakeServer::start([
            tool_call("call_abc", "read_note", r#"{"title": "plans"}"#),
            text("The plan is to ship."),
        ])
        .await;
        let client = OpenAiClient::new(ModelConfig {
            max_tokens: Some(256),
            ..server.config()
        })
        .unwrap();
        let tool = json!({
            "type": "function",
            "function": {
                "name": "read_note",
                "description": "Read a note.",
                "parameters": {
                    "type": "object",
                    "properties": {"title": {"type": "string"}},
                    "required": ["title"],
                    "additionalProperties": false,
                },
                "strict": true,
            },
        });

        let mut messages = vec![Message::user("What is the plan?")];
        let first = client
            .complete(ModelRequest {
                messages: &messages,
                tools: Some(std::slice::from_ref(&tool)),
            })
            .await
            .unwrap();
        assert_eq!(first.text, "");
        assert_eq!(
            first.calls,
            [ToolCall {
                id: "call_abc".into(),
                name: "read_note".into(),
                arguments: json!({"title": "plans"}),
            }]
        );

        messages.push(Message::Assistant {
            text: first.text,
            calls: first.calls,
        });
        messages.push(Message::Tool {
            call_id: "call_abc".into(),
            name: "read_note".into(),
            content: "ship it".into(),
            is_error: false,
        });
        let second = client
            .complete(ModelRequest {
                messages: &messages,
                tools: Some(std::slice::from_ref(&tool)),
            })
            .await
            .unwrap();
        assert_eq!(second.text, "The plan is to ship.");

        let seen = server.seen();
        assert_eq!(seen[0].body["tools"], json!([tool]));
        assert_eq!(seen[0].body["max_tokens"], 256);
        assert_eq!(
            seen[1].body["messages"],
            json!([
                {"role": "user", "content": "What is the plan?"},
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [{
                        "id": "call_abc",
                        "type": "function",
                        "function": {"name": "read_note", "arguments": r#"{"title":"plans"}"#},
                    }],
                },
                {"role": "tool", "tool_call_id": "call_abc", "content": "ship it"},
            ])
        );
    });
}

#[test]
fn malformed_arguments_are_passed_on_as_the_raw_string() {
    run(async {
        let server =
            FakeServer::start([tool_call("call_1", "read_note", r#"{"title": "pla"#)]).await;
        let response = server
            .client()
            .complete(ask(&[Message::user("Read plans")]))
            .await
            .unwrap();
        assert_eq!(
            response.calls[0].arguments,
            Value::String(r#"{"title": "pla"#.into())
        );
    });
}

#[test]
fn an_empty_tool_list_is_not_sent() {
    run(async {
        let server = FakeServer::start([text("a"), text("b")]).await;
        let client = server.client();
        let messages = [Message::user("Hi")];
        for tools in [Some(Vec::new()), None] {
            client
                .complete(ModelRequest {
                    messages: &messages,
                    tools: tools.as_deref(),
                })
                .await
                .unwrap();
        }
        for seen in server.seen() {
            assert!(seen.body.get("tools").is_none(), "{}", seen.body);
        }
    });
}

#[test]
fn a_rate_limit_is_retried() {
    run(async {
        let server = FakeServer::start([error(429, "Rate limit reached"), text("done")]).await;
        let response = server
            .client()
            .complete(ask(&[Message::user("Hi")]))
            .await
            .unwrap();
        assert_eq!(response.text, "done");
        assert_eq!(server.seen().len(), 2);
    });
}

#[test]
fn server_errors_are_retried_then_reported_with_the_providers_message() {
    let failing = || Reply::Answer {
        status: 500,
        // Honoured, so the test does not wait for the backoff.
        headers: vec![("retry-after", "0")],
        body: json!({"error": {"message": "The server had an error"}}).to_string(),
    };
    run(async {
        let server = FakeServer::start([failing(), failing(), failing()]).await;
        let client = OpenAiClient::new(ModelConfig {
            max_retries: 2,
            ..server.config()
        })
        .unwrap();
        let error = client
            .complete(ask(&[Message::user("Hi")]))
            .await
            .unwrap_err();
        assert_eq!(server.seen().len(), 3);
        let ModelError::Refused { message } = &error else {
            panic!("{error:?}")
        };
        assert!(message.contains("The server had an error"), "{message}");
        assert!(message.contains("500"), "{message}");
        assert!(message.contains("after 3 attempts"), "{message}");
    });
}

#[test]
fn a_client_error_is_reported_with_the_providers_message_and_not_retried() {
    run(async {
        let server = FakeServer::start([
            error(400, "Invalid schema for function 'read_note'"),
            text("never sent"),
        ])
        .await;
        let error = server
            .client()
            .complete(ask(&[Message::user("Hi")]))
            .await
            .unwrap_err();
        assert_eq!(server.seen().len(), 1);
        assert_eq!(
            error,
            ModelError::Refused {
                message: "HTTP 400 Bad Request: Invalid schema for function 'read_note'".into()
            }
        );
    });
}

#[test]
fn a_body_that_is_not_an_error_object_is_quoted_cut() {
    run(async {
        let long = "x".repeat(1000);
        let server = FakeServer::start([Reply::Answer {
            status: 404,
            headers: Vec::new(),
            body: long,
        }])
        .await;
        let error = server
            .client()
            .complete(ask(&[Message::user("Hi")]))
            .await
            .unwrap_err();
        let ModelError::Refused { message } = &error else {
            panic!("{error:?}")
        };
        assert!(message.starts_with("HTTP 404 Not Found: xxx"), "{message}");
        assert!(message.chars().count() < 350, "{message}");
    });
}

#[test]
fn a_response_slower_than_the_timeout_times_out() {
    run(async {
        let server = FakeServer::start([Reply::Stall(Duration::from_secs(30))]).await;
        let client = OpenAiClient::new(ModelConfig {
            timeout: Duration::from_millis(200),
            ..server.config()
        })
        .unwrap();
        let error = client
            .complete(ask(&[Message::user("Hi")]))
            .await
            .unwrap_err();
        let ModelError::Unavailable { message } = &error else {
            panic!("{error:?}")
        };
        assert!(message.contains("timed out after 0.2 s"), "{message}");
        assert_eq!(server.seen().len(), 1, "a timeout is not retried");
    });
}

#[test]
fn no_server_is_reported_with_its_url() {
    run(async {
        // A port that was free a moment ago: nothing listens there now.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        drop(listener);
        let client =
            OpenAiClient::new(ModelConfig::new(format!("http://{address}/v1"), "m")).unwrap();
        let error = client
            .complete(ask(&[Message::user("Hi")]))
            .await
            .unwrap_err();
        let ModelError::Unavailable { message } = &error else {
            panic!("{error:?}")
        };
        assert!(
            message.contains(&format!("http://{address}/v1/chat/completions")),
            "{message}"
        );
        assert!(message.contains("is the server running?"), "{message}");
    });
}

#[test]
fn an_unset_key_variable_is_named() {
    run(async {
        let server = FakeServer::start([text("never sent")]).await;
        let client = OpenAiClient::new(ModelConfig {
            api_key_env: Some("HOST_EXAMPLE_TEST_KEY_NEVER_SET".into()),
            ..server.config()
        })
        .unwrap();
        let error = client
            .complete(ask(&[Message::user("Hi")]))
            .await
            .unwrap_err();
        let ModelError::Unavailable { message } = &error else {
            panic!("{error:?}")
        };
        assert!(
            message.contains("`HOST_EXAMPLE_TEST_KEY_NEVER_SET`"),
            "{message}"
        );
        assert!(message.contains("not set"), "{message}");
        assert!(server.seen().is_empty());
    });
}

#[test]
fn the_key_is_sent_as_a_bearer_token() {
    // SAFETY: the variable is this test's alone, and every reader of the
    // environment in this binary goes through std, which locks it; the
    // client connects to an IP literal, so no resolver reads it either.
    unsafe { std::env::set_var("HOST_EXAMPLE_TEST_KEY_BEARER", "sk-test-123") };
    run(async {
        let server = FakeServer::start([text("ok")]).await;
        let client = OpenAiClient::new(ModelConfig {
            api_key_env: Some("HOST_EXAMPLE_TEST_KEY_BEARER".into()),
            ..server.config()
        })
        .unwrap();
        client.complete(ask(&[Message::user("Hi")])).await.unwrap();
        assert_eq!(
            server.seen()[0].authorization.as_deref(),
            Some("Bearer sk-test-123")
        );
        assert!(!format!("{client:?}").contains("sk-test-123"));
    });
}

#[test]
fn a_base_url_that_cannot_be_used_is_refused_at_build() {
    let error = OpenAiClient::new(ModelConfig::new("ftp://models.example/v1", "m")).unwrap_err();
    assert!(
        matches!(&error, ClientError::InvalidBaseUrl { reason, .. } if reason.contains("ftp")),
        "{error:?}"
    );
    let https = OpenAiClient::new(ModelConfig::new("https://api.openai.com/v1/", "m"));
    if cfg!(feature = "https") {
        assert_eq!(
            https.unwrap().endpoint().as_str(),
            "https://api.openai.com/v1/chat/completions"
        );
    } else {
        assert!(matches!(https, Err(ClientError::HttpsNotBuilt { .. })));
    }
}

// A whole run through the agent loop.

/// Read a note by its title.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(data = "public", group = "notes", effect = "read")]
struct ReadNote {
    /// The note's title.
    title: String,
}

impl Execute for ReadNote {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(format!("{}: ship on Friday", self.title)))
    }
}

#[test]
fn an_agent_run_calls_the_tool_and_answers() {
    run(async {
        let server = FakeServer::start([
            // Bad JSON first: the model gets the error back and retries.
            tool_call("call_1", "read_note", r#"{"title": "plans""#),
            tool_call("call_2", "read_note", r#"{"title": "plans"}"#),
            text("We ship on Friday."),
        ])
        .await;
        let client = server.client();
        let registry = Registry::linked().unwrap();
        let settings = HostSettings::default();
        let config = RunConfig::default();
        let selection = Selection::Only(BTreeSet::from(["read_note".to_owned()]));
        let inputs = RunInputs {
            settings: &settings,
            actor: None,
            config: &config,
            skills: &[],
            selection: &selection,
        };
        let cx = ToolContext::new(RunId("run-model-client".into()));
        let end = Agent::new(&registry, &client)
            .start(
                vec![Message::user("When do we ship?")],
                inputs,
                &cx,
                &mut (),
            )
            .await;
        let RunEnd::Finished(finished) = end else {
            panic!("a read tool never suspends the run")
        };
        assert_eq!(finished.status, RunStatus::Completed);
        assert_eq!(finished.answer.as_deref(), Some("We ship on Friday."));
        assert_eq!(finished.rounds, 3);
        assert_eq!(finished.usage.input_tokens, 36);

        let seen = server.seen();
        assert_eq!(seen.len(), 3);
        assert_eq!(seen[0].body["tools"][0]["function"]["name"], "read_note");
        let refused = &seen[1].body["messages"][2];
        assert_eq!(refused["role"], "tool");
        assert_eq!(refused["tool_call_id"], "call_1");
        let refusal = refused["content"].as_str().unwrap();
        assert!(
            refusal.starts_with("invalid arguments for `read_note`"),
            "{refusal}"
        );
        // The result goes out marked as data (gate 9's companion,
        // docs/exposure.md); the refusal above, the host's own text, not.
        let result = &seen[2].body["messages"][4];
        let marked = tool_core::agent::mark_tool_result("read_note", "plans: ship on Friday");
        assert_eq!(
            result,
            &json!({"role": "tool", "tool_call_id": "call_2", "content": marked})
        );
    });
}

#[test]
fn a_provider_error_ends_the_run_with_its_message_and_keeps_the_conversation() {
    run(async {
        let server = FakeServer::start([error(
            400,
            "This model's maximum context length is 8192 tokens",
        )])
        .await;
        let client = server.client();
        let registry = Registry::linked().unwrap();
        let settings = HostSettings::default();
        let config = RunConfig::default();
        let selection = Selection::Only(BTreeSet::from(["read_note".to_owned()]));
        let inputs = RunInputs {
            settings: &settings,
            actor: None,
            config: &config,
            skills: &[],
            selection: &selection,
        };
        let cx = ToolContext::new(RunId("run-model-error".into()));
        let end = Agent::new(&registry, &client)
            .start(
                vec![Message::user("When do we ship?")],
                inputs,
                &cx,
                &mut (),
            )
            .await;
        let RunEnd::Finished(finished) = end else {
            panic!("the run fails, it does not suspend")
        };
        let RunStatus::Failed { error } = &finished.status else {
            panic!("{:?}", finished.status)
        };
        assert!(
            error.to_string().contains("maximum context length is 8192"),
            "{error}"
        );
        assert_eq!(finished.messages, [Message::user("When do we ship?")]);
    });
}
