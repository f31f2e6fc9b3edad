//! Asking the client through the context (`ToolContext::elicit`,
//! `sample`, `log`): without a client the answer is `NoClient` at once;
//! a cancelled call stops waiting; an answer counts as person-written
//! text for gate 9.

use std::sync::{Arc, Mutex};

use futures_executor::block_on;
use serde_json::{Map, json};
use tool_core::calls::CancelToken;
use tool_core::client::{
    AskError, Asking, ClientChannel, Elicitation, Elicited, LogLevel, Sampled, Sampling,
    SamplingMessage,
};
use tool_core::{RunId, ToolContext};

fn form() -> Elicitation {
    Elicitation {
        message: "Your name?".into(),
        schema: Map::new(),
    }
}

fn question() -> Sampling {
    Sampling {
        messages: vec![SamplingMessage::user("Hello?")],
        max_tokens: 10,
        system_prompt: None,
    }
}

#[test]
fn without_a_client_every_question_is_answered_no_client_at_once() {
    let cx = ToolContext::new(RunId("agent-run".into()));
    assert_eq!(block_on(cx.elicit(form())), Err(AskError::NoClient));
    assert_eq!(block_on(cx.sample(question())), Err(AskError::NoClient));
    assert_eq!(block_on(cx.roots()), Err(AskError::NoClient));
    assert_eq!(
        block_on(cx.elicit_url("Sign in", "https://example.com")),
        Err(AskError::NoClient)
    );
    // Logging without a client goes to tracing only, and returns.
    cx.log(LogLevel::Info, "nobody listens");
}

/// A client that answers every form with `name: Ada` and every question
/// with "Hi", and keeps what is logged.
#[derive(Default)]
struct Answering {
    logged: Mutex<Vec<(LogLevel, String)>>,
}

impl ClientChannel for Answering {
    fn elicit(&self, _request: Elicitation) -> Asking<'_, Elicited> {
        let mut values = Map::new();
        values.insert("name".into(), json!("Ada"));
        Box::pin(async move { Ok(Elicited::Accepted(values)) })
    }

    fn sample(&self, _request: Sampling) -> Asking<'_, Sampled> {
        Box::pin(async {
            Ok(Sampled {
                text: "Hi".into(),
                model: "test".into(),
            })
        })
    }

    fn log(&self, level: LogLevel, message: &str) {
        self.logged
            .lock()
            .unwrap()
            .push((level, message.to_owned()));
    }
}

#[test]
fn a_clients_answers_come_back_and_its_log_gets_the_messages() {
    let client = Arc::new(Answering::default());
    let cx = ToolContext::new(RunId("mcp-call".into())).with_client(client.clone());
    let Ok(Elicited::Accepted(values)) = block_on(cx.elicit(form())) else {
        panic!("accepted")
    };
    assert_eq!(values["name"], "Ada");
    assert_eq!(block_on(cx.sample(question())).unwrap().text, "Hi");
    // A channel that offers no roots, or opens no URL, says so.
    assert!(matches!(
        block_on(cx.roots()),
        Err(AskError::Unsupported(_))
    ));
    assert!(matches!(
        block_on(cx.elicit_url("Sign in", "https://example.com")),
        Err(AskError::Unsupported(_))
    ));
    cx.log(LogLevel::Warning, "careful");
    assert_eq!(
        *client.logged.lock().unwrap(),
        [(LogLevel::Warning, "careful".to_owned())]
    );
}

/// A client that never answers.
struct Silent;

impl ClientChannel for Silent {
    fn elicit(&self, _request: Elicitation) -> Asking<'_, Elicited> {
        Box::pin(std::future::pending())
    }

    fn sample(&self, _request: Sampling) -> Asking<'_, Sampled> {
        Box::pin(std::future::pending())
    }

    fn log(&self, _level: LogLevel, _message: &str) {}
}

#[test]
fn a_cancelled_call_stops_waiting_for_its_client() {
    let cancel = CancelToken::new();
    let cx = ToolContext::new(RunId("mcp-call".into()))
        .with_cancel(cancel.clone())
        .with_client(Arc::new(Silent));
    cancel.cancel();
    assert_eq!(block_on(cx.elicit(form())), Err(AskError::Cancelled));
    assert_eq!(block_on(cx.sample(question())), Err(AskError::Cancelled));
}

/// Asks for a name and greets it.
#[derive(tool_core::Tool, serde::Deserialize, schemars::JsonSchema)]
#[tool(
    group = "greeting",
    effect = "read",
    data = "public",
    content = "trusted"
)]
struct Greet {}

impl tool_core::Execute for Greet {
    async fn execute(
        self,
        cx: &ToolContext,
    ) -> Result<tool_core::ToolOutput, tool_core::ToolError> {
        let answer = cx
            .elicit(form())
            .await
            .map_err(|error| tool_core::ToolError::failed(error.to_string()))?;
        let Elicited::Accepted(values) = answer else {
            return Err(tool_core::ToolError::failed("no name given"));
        };
        Ok(tool_core::ToolOutput::text(format!(
            "Hello, {}",
            values["name"]
        )))
    }
}

#[test]
fn a_result_that_holds_the_clients_answer_carries_person_written_text() {
    let registry = tool_core::Registry::linked().unwrap();
    let cx = ToolContext::new(RunId("mcp-call".into())).with_client(Arc::new(Answering::default()));
    let outcome = block_on(registry.call_ungated("greet", json!({}), &cx)).unwrap();
    let tool_core::Outcome::Done(output) = outcome else {
        panic!("a read tool answers")
    };
    assert_eq!(output.to_model_text(), "Hello, \"Ada\"");
    // Declared `content = "trusted"`, yet the answer is a person's text.
    assert!(output.carries_authored());

    // Outside MCP the same tool fails with a clear error, at once.
    let agent = ToolContext::new(RunId("agent-run".into()));
    let error = block_on(registry.call_ungated("greet", json!({}), &agent)).unwrap_err();
    assert_eq!(
        error.model_text(),
        "there is no client to ask: this call did not come from an MCP client"
    );
}
