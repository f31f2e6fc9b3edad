//! The agent-loop run the loop benchmarks share: the criterion bench
//! (`agent_loop.rs`) and the instruction-count driver (`instructions.rs`)
//! measure exactly the same run.
//!
//! A run of 5 rounds against 30 offered run-time tools, after a history of
//! 50 messages, asking an in-process [`CannedModel`] that does what a
//! provider client does without the network: it serializes the request
//! into an OpenAI Chat Completions body and parses a canned wire response.
//! Rounds 1 to 4 call two tools each (through the gates, in one parallel
//! batch); round 5 answers.

use std::borrow::Cow;
use std::sync::Mutex;

use futures_executor::block_on;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tool_core::agent::{
    Agent, Message, Model, ModelError, ModelRequest, ModelResponse, RunEnd, ToolCall, Usage,
};
use tool_core::export::Provider;
use tool_core::gates::{HostSettings, RunConfig, RunInputs, Selection};
use tool_core::{
    BoxFuture, DataClass, Declaration, DefinitionSite, DynTool, Effect, Egress, Registry, RunId,
    Shipped, ToolContext, ToolError, ToolOutput,
};

/// Offered tools.
pub const TOOLS: usize = 30;
/// Messages before the run's first request.
pub const HISTORY: usize = 50;
/// Requests of one run.
pub const ROUNDS: usize = 5;

/// A read tool with a schema of the size real tools have (four
/// properties, each described).
struct SearchTool {
    name: String,
}

impl DynTool for SearchTool {
    fn declaration(&self) -> Declaration {
        Declaration {
            name: Cow::Owned(self.name.clone()),
            group: Cow::Borrowed("workspace"),
            description: Cow::Borrowed(
                "Search the files of the workspace for a word, a phrase or a regular \
                 expression, and return the matching lines with their file and line number.",
            ),
            title: None,
            requires_admin: false,
            egress: Egress::None,
            effect: Effect::Read,
            shipped: Shipped::Enabled,
            scope: None,
            data: DataClass::Public,
            content: tool_core::Content::Trusted,
            timeout: None,
            idempotent: true,
            task: tool_core::TaskSupport::Forbidden,
        }
    }

    fn site(&self) -> DefinitionSite {
        DefinitionSite {
            crate_name: "bench",
            module_path: "bench",
            file: "agent_run/mod.rs",
            line: 0,
        }
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {
                    "type": "string",
                    "description": "The file or directory to search, relative to the workspace root."
                },
                "query": {
                    "type": "string",
                    "description": "What to look for: a word, a phrase or a regular expression."
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 500,
                    "description": "At most this many matching lines."
                },
                "case_sensitive": {
                    "type": "boolean",
                    "description": "Whether upper and lower case letters differ."
                }
            },
            "required": ["path", "query"]
        })
    }

    fn execute<'a>(
        &'a self,
        _arguments: Value,
        _cx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async {
            Ok(ToolOutput::text(
                "src/lib.rs:12: fn main() {\nsrc/lib.rs:40:     // the entry point\n\
                 src/agent/mod.rs:310: async fn drive(",
            ))
        })
    }
}

/// [`TOOLS`] search tools, `search_00` to `search_29`.
pub fn registry() -> Registry {
    let mut builder = Registry::builder();
    for i in 0..TOOLS {
        builder = builder.add(SearchTool {
            name: format!("search_{i:02}"),
        });
    }
    builder.build().expect("valid tools")
}

/// The host's settings and configuration of the run: the defaults.
pub struct Host {
    settings: HostSettings,
    config: RunConfig,
}

impl Host {
    pub fn new() -> Self {
        Host {
            settings: HostSettings::default(),
            config: RunConfig::default(),
        }
    }

    pub fn inputs(&self) -> RunInputs<'_> {
        RunInputs {
            settings: &self.settings,
            actor: None,
            config: &self.config,
            skills: &[],
            selection: &Selection::All,
        }
    }
}

/// A conversation of [`HISTORY`] messages: a system prompt, then twelve
/// exchanges of a question, a call, its result and an answer, then the
/// question of this run.
pub fn history() -> Vec<Message> {
    let mut messages = vec![Message::system(
        "You are the assistant of a software workspace. Answer briefly and precisely; \
         search the files before you answer a question about them, and say which file \
         and line an answer comes from. "
            .repeat(4),
    )];
    for i in 0..12 {
        let id = format!("old-{i}");
        messages.push(Message::user(format!(
            "Where is the entry point number {i} defined, and what does it call first?"
        )));
        messages.push(Message::Assistant {
            text: String::new(),
            calls: vec![ToolCall {
                id: id.clone(),
                name: format!("search_{:02}", i % TOOLS),
                arguments: json!({"path": "src", "query": format!("fn entry_{i}"), "limit": 20}),
            }],
        });
        messages.push(Message::Tool {
            call_id: id,
            name: format!("search_{:02}", i % TOOLS),
            content: format!("src/entry_{i}.rs:3: pub fn entry_{i}() {{\n").repeat(6),
            is_error: false,
        });
        messages.push(Message::Assistant {
            text: format!(
                "`entry_{i}` is defined in src/entry_{i}.rs at line 3; it first calls \
                 `setup`, which reads the configuration."
            ),
            calls: Vec::new(),
        });
    }
    messages.push(Message::user(
        "Find where the agent loop drives its rounds and what it sends each time.",
    ));
    assert_eq!(messages.len(), HISTORY);
    messages
}

/// The canned OpenAI Chat Completions response to request `round` (from 0).
fn wire_response(round: usize) -> String {
    let message = if round + 1 < ROUNDS {
        let call = |n: usize| {
            let arguments = json!({
                "path": "tool-core/src",
                "query": format!("round {round} call {n}"),
                "limit": 50,
                "case_sensitive": null,
            });
            json!({
                "id": format!("call_{round}_{n}"),
                "type": "function",
                "function": {
                    "name": format!("search_{:02}", (round * 7 + n) % TOOLS),
                    "arguments": arguments.to_string(),
                },
            })
        };
        json!({"role": "assistant", "content": null, "tool_calls": [call(0), call(1)]})
    } else {
        json!({
            "role": "assistant",
            "content": "The loop drives its rounds in `drive` (tool-core/src/agent/mod.rs); \
                        each request sends the whole conversation and the offered tools.",
        })
    };
    json!({
        "id": format!("chatcmpl-{round}"),
        "object": "chat.completion",
        "model": "bench",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 4000 + round * 300, "completion_tokens": 60},
    })
    .to_string()
}

#[derive(Serialize)]
struct WireRequest<'a> {
    model: &'static str,
    messages: &'a [Message],
    #[serde(skip_serializing_if = "Option::is_none")]
    tools: Option<&'a [Value]>,
}

#[derive(Deserialize)]
struct WireResponse {
    choices: Vec<WireChoice>,
    usage: WireUsage,
}

#[derive(Deserialize)]
struct WireChoice {
    message: WireMessage,
}

#[derive(Deserialize)]
struct WireMessage {
    content: Option<String>,
    #[serde(default)]
    tool_calls: Vec<WireCall>,
}

#[derive(Deserialize)]
struct WireCall {
    id: String,
    function: WireFunction,
}

#[derive(Deserialize)]
struct WireFunction {
    name: String,
    arguments: String,
}

#[derive(Deserialize)]
struct WireUsage {
    prompt_tokens: u64,
    completion_tokens: u64,
}

/// A model client without the network: serializes each request as an
/// OpenAI body and answers with the canned response of its round (known
/// from how many messages the run has added to the history).
pub struct CannedModel {
    responses: Vec<String>,
}

impl CannedModel {
    pub fn new() -> Self {
        CannedModel {
            responses: (0..ROUNDS).map(wire_response).collect(),
        }
    }

    /// What the model does for one request: the whole of its cost, which
    /// the loop's overhead is measured without.
    pub fn answer(
        &self,
        messages: &[Message],
        tools: Option<&[Value]>,
    ) -> Result<ModelResponse, ModelError> {
        let body = serde_json::to_vec(&WireRequest {
            model: "bench",
            messages,
            tools,
        })
        .map_err(|e| ModelError::InvalidResponse {
            message: e.to_string(),
        })?;
        std::hint::black_box(body);
        // Each round adds the assistant's message and two results.
        let round = (messages.len() - HISTORY) / 3;
        let wire: WireResponse = serde_json::from_str(&self.responses[round]).map_err(|e| {
            ModelError::InvalidResponse {
                message: e.to_string(),
            }
        })?;
        let Some(WireChoice { message }) = wire.choices.into_iter().next() else {
            return Err(ModelError::InvalidResponse {
                message: "no choice".into(),
            });
        };
        Ok(ModelResponse {
            text: message.content.unwrap_or_default(),
            calls: message
                .tool_calls
                .into_iter()
                .map(|call| ToolCall {
                    id: call.id,
                    arguments: serde_json::from_str(&call.function.arguments)
                        .unwrap_or(Value::String(call.function.arguments)),
                    name: call.function.name,
                })
                .collect(),
            usage: Usage {
                input_tokens: wire.usage.prompt_tokens,
                output_tokens: wire.usage.completion_tokens,
            },
            ..ModelResponse::default()
        })
    }
}

/// The requests of one run exactly as the loop sends them (messages,
/// tools), for measuring the model alone.
pub fn requests(registry: &Registry, model: &CannedModel) -> Vec<Request> {
    let recording = Recording {
        model,
        seen: Mutex::new(Vec::new()),
    };
    let host = Host::new();
    let cx = ToolContext::new(RunId("bench".into()));
    let end =
        block_on(Agent::new(registry, &recording).start(history(), host.inputs(), &cx, &mut ()));
    assert!(matches!(end, RunEnd::Finished(ref f) if f.rounds as usize == ROUNDS));
    recording.seen.into_inner().expect("not poisoned")
}

/// One request as sent: the messages and the offered tools.
pub type Request = (Vec<Message>, Option<Vec<Value>>);

/// The canned model, keeping a copy of every request.
struct Recording<'m> {
    model: &'m CannedModel,
    seen: Mutex<Vec<Request>>,
}

impl Model for Recording<'_> {
    fn provider(&self) -> Provider {
        self.model.provider()
    }

    async fn complete(&self, request: ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
        let tools = request.tools.map(<[Value]>::to_vec);
        self.seen
            .lock()
            .expect("not poisoned")
            .push((request.messages.to_vec(), tools));
        self.model.complete(request).await
    }
}

impl Model for CannedModel {
    fn provider(&self) -> Provider {
        Provider::OpenAi
    }

    async fn complete(&self, request: ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
        self.answer(request.messages, request.tools)
    }
}
