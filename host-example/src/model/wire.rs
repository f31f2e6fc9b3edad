//! The Chat Completions wire format, and its mapping to and from the loop's
//! provider-neutral messages.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tool_core::agent::{Message, ModelResponse, ToolCall, Usage};

/// The body of `POST /chat/completions`.
#[derive(Debug, Serialize)]
pub(crate) struct ChatRequest<'a> {
    pub model: &'a str,
    pub messages: Vec<WireMessage<'a>>,
    /// Absent, never empty: several providers refuse `"tools": []`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<&'a [Value]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
}

#[derive(Debug, Serialize)]
#[serde(tag = "role", rename_all = "lowercase")]
pub(crate) enum WireMessage<'a> {
    System {
        content: &'a str,
    },
    User {
        content: &'a str,
    },
    Assistant {
        /// `""`, not `null`, when the model only called tools: OpenAI takes
        /// both, but Ollama refuses `null` ("invalid message content type:
        /// <nil>", pydantic/pydantic-ai#5206) and some gateways refuse a
        /// missing key.
        content: &'a str,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<WireToolCall<'a>>,
    },
    Tool {
        tool_call_id: &'a str,
        content: &'a str,
    },
}

#[derive(Debug, Serialize)]
pub(crate) struct WireToolCall<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    function: WireFunction<'a>,
}

#[derive(Debug, Serialize)]
struct WireFunction<'a> {
    name: &'a str,
    /// A string of JSON, as the provider sent it.
    arguments: String,
}

impl<'a> WireMessage<'a> {
    pub fn from_message(message: &'a Message) -> Self {
        match message {
            Message::System { text } => WireMessage::System { content: text },
            Message::User { text } => WireMessage::User { content: text },
            Message::Assistant { text, calls } => WireMessage::Assistant {
                content: text,
                tool_calls: calls
                    .iter()
                    .map(|call| WireToolCall {
                        id: &call.id,
                        kind: "function",
                        function: WireFunction {
                            name: &call.name,
                            arguments: arguments_text(&call.arguments),
                        },
                    })
                    .collect(),
            },
            // The error flag has no field here: `content` already reads as
            // an error to the model.
            Message::Tool {
                call_id, content, ..
            } => WireMessage::Tool {
                tool_call_id: call_id,
                content,
            },
        }
    }
}

/// The arguments as the model wrote them: arguments that were not JSON were
/// kept as the raw string (see [`parse_arguments`]) and go back unchanged.
fn arguments_text(arguments: &Value) -> String {
    match arguments {
        Value::String(raw) => raw.clone(),
        other => other.to_string(),
    }
}

/// A 2xx answer. Only what the loop reads; every other field is ignored.
#[derive(Debug, Deserialize)]
pub(crate) struct ChatResponse {
    #[serde(default)]
    choices: Vec<Choice>,
    #[serde(default)]
    usage: Option<WireUsage>,
}

#[derive(Debug, Deserialize)]
struct Choice {
    message: ResponseMessage,
}

#[derive(Debug, Deserialize)]
struct ResponseMessage {
    #[serde(default)]
    content: Option<String>,
    /// The reasoning, apart from the text: `reasoning_content` (DeepSeek,
    /// vLLM, llama.cpp) or `reasoning` (Ollama, newer vLLM). Two fields,
    /// not an alias: a server sending both must not fail the answer.
    #[serde(default)]
    reasoning_content: Option<String>,
    #[serde(default)]
    reasoning: Option<String>,
    #[serde(default)]
    tool_calls: Option<Vec<ResponseToolCall>>,
}

#[derive(Debug, Deserialize)]
struct ResponseToolCall {
    #[serde(default)]
    id: Option<String>,
    function: ResponseFunction,
}

#[derive(Debug, Deserialize)]
struct ResponseFunction {
    name: String,
    #[serde(default)]
    arguments: Value,
}

#[derive(Debug, Default, Deserialize)]
struct WireUsage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
}

impl ChatResponse {
    /// The first choice as the loop's response. `earlier_calls` numbers
    /// the ids made up for calls a server sent without one, so that they
    /// stay unique over the conversation.
    pub fn into_model_response(self, earlier_calls: usize) -> Result<ModelResponse, String> {
        let usage = self.usage.unwrap_or_default();
        let Some(choice) = self.choices.into_iter().next() else {
            return Err("the answer has no `choices`".to_owned());
        };
        let calls = choice
            .message
            .tool_calls
            .unwrap_or_default()
            .into_iter()
            .enumerate()
            .map(|(index, call)| ToolCall {
                // Some local servers send no id, or an empty one; the loop
                // answers each id once, so ids must be there and distinct.
                id: call
                    .id
                    .filter(|id| !id.is_empty())
                    .unwrap_or_else(|| format!("call_{}", earlier_calls + index + 1)),
                name: call.function.name,
                arguments: parse_arguments(call.function.arguments),
            })
            .collect();
        Ok(ModelResponse {
            text: choice.message.content.unwrap_or_default(),
            calls,
            usage: Usage {
                input_tokens: usage.prompt_tokens,
                output_tokens: usage.completion_tokens,
            },
            thinking: [choice.message.reasoning_content, choice.message.reasoning]
                .into_iter()
                .flatten()
                .find(|thinking| !thinking.trim().is_empty()),
            raw: None,
        })
    }
}

/// OpenAI sends arguments as a string of JSON. What does not parse stays a
/// string: the registry refuses it with a readable error that goes back to
/// the model, which can then retry. A blank or absent string is `{}` (some
/// servers send that for a call without arguments); an object, as a few
/// local servers send, is taken as it is.
fn parse_arguments(arguments: Value) -> Value {
    match arguments {
        Value::Null => Value::Object(Map::new()),
        Value::String(raw) if raw.trim().is_empty() => Value::Object(Map::new()),
        Value::String(raw) => serde_json::from_str(&raw).unwrap_or(Value::String(raw)),
        other => other,
    }
}
