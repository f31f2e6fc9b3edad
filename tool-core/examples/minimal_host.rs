//! A minimal host: the agent loop over the gates, with a model that
//! follows a script (a hosted model needs the network; this one speaks the
//! same requests and responses). It asks for one tool call, reads the
//! result, and answers.
//!
//! `cargo run -p tool-core --example minimal_host`; `cargo test --workspace`
//! builds it and runs it.

use futures_executor::block_on;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tool_core::agent::{
    Agent, Event, Message, Model, ModelError, ModelRequest, ModelResponse, RunEnd, RunStatus,
    ToolCall,
};
use tool_core::export::Provider;
use tool_core::{Actor, Execute, Registry, Tool, ToolContext, ToolError, ToolOutput};

/// Add two numbers.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "math", effect = "read", data = "public", content = "trusted")]
struct AddNumbers {
    /// The first number.
    a: i64,
    /// The second number.
    b: i64,
}

impl Execute for AddNumbers {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text((self.a + self.b).to_string()))
    }
}

/// The script: first a call of `add_numbers`, then an answer quoting its
/// result.
struct Scripted;

impl Model for Scripted {
    fn provider(&self) -> Provider {
        Provider::OpenAi
    }

    async fn complete(&self, request: ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
        Ok(match request.messages.last() {
            // The result arrives marked as data: the tag, a note, the
            // value, the closing tag.
            Some(Message::Tool { content, .. }) => ModelResponse {
                text: format!(
                    "2 + 3 = {}",
                    content.lines().rev().nth(1).unwrap_or_default()
                ),
                ..ModelResponse::default()
            },
            _ => ModelResponse {
                calls: vec![ToolCall {
                    id: "call-1".into(),
                    name: "add_numbers".into(),
                    arguments: json!({"a": 2, "b": 3}),
                }],
                ..ModelResponse::default()
            },
        })
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::linked()?;
    // The run on the default settings and configuration; the loop resolves
    // its grant from the same inputs.
    let run = registry.run("example", Actor::user("ada")).start();
    let agent = Agent::new(&registry, &Scripted);
    let mut events: Vec<Event> = Vec::new();
    let end = block_on(agent.start(
        vec![Message::user("What is 2 + 3?")],
        run.inputs(),
        run.context(),
        &mut events,
    ));
    let RunEnd::Finished(finished) = end else {
        return Err("nothing here waits for an approval".into());
    };
    println!(
        "{:?} after {} rounds: {}",
        finished.status,
        finished.rounds,
        finished.answer.as_deref().unwrap_or_default()
    );
    assert_eq!(finished.status, RunStatus::Completed);
    assert_eq!(finished.answer.as_deref(), Some("2 + 3 = 5"));
    Ok(())
}

#[test]
fn runs() {
    main().unwrap();
}
