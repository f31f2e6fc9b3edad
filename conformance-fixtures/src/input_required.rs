//! The fixture tools of the input-required scenarios (2026-07-28, SEP-2322:
//! `input-required-result-*`): each asks its client under the key the
//! scenario names (tool-core's `ToolContext::elicit_as`, `sample_as`,
//! `roots_as`). tool-mcp carries the questions in the call's result and
//! answers them when the call comes again; nothing here knows the revision.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tool_core::client::{AskError, Elicitation, Elicited, Root, Sampling, SamplingMessage};
use tool_core::{Execute, Tool, ToolContext, ToolError, ToolOutput};

/// A form of one property, `name` of `kind`, that the person must fill in.
pub(crate) fn form(message: &str, name: &str, kind: &str) -> Elicitation {
    let schema = json!({
        "type": "object",
        "properties": {name: {"type": kind}},
        "required": [name],
    });
    Elicitation {
        message: message.to_owned(),
        schema: match schema {
            Value::Object(schema) => schema,
            _ => Map::new(),
        },
    }
}

/// What the person gave for `name`, as text; declining is the tool's error.
pub(crate) fn filled(answer: Elicited, name: &str) -> Result<String, ToolError> {
    match answer {
        Elicited::Accepted(values) => Ok(values
            .get(name)
            .map(|value| match value {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            })
            .unwrap_or_default()),
        Elicited::Declined | Elicited::Cancelled => {
            Err(ToolError::failed("the form was not filled in"))
        }
    }
}

fn asked(error: AskError) -> ToolError {
    ToolError::failed(error.to_string())
}

fn question(text: &str, max_tokens: u32) -> Sampling {
    Sampling {
        messages: vec![SamplingMessage::user(text)],
        max_tokens,
        system_prompt: None,
    }
}

fn listed(roots: &[Root]) -> String {
    let uris: Vec<&str> = roots.iter().map(|root| root.uri.as_str()).collect();
    uris.join(", ")
}

/// Asks for a name (`input-required-result-basic-elicitation`, and the
/// scenarios that send it wrong or extra answers).
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "conformance", effect = "read", data = "public")]
pub struct TestInputRequiredResultElicitation {}

impl Execute for TestInputRequiredResultElicitation {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let answer = cx
            .elicit_as("user_name", form("What is your name?", "name", "string"))
            .await
            .map_err(asked)?;
        Ok(ToolOutput::text(format!(
            "Hello, {}!",
            filled(answer, "name")?
        )))
    }
}

/// Asks the client's model (`input-required-result-basic-sampling`).
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "conformance", effect = "read", data = "public")]
pub struct TestInputRequiredResultSampling {}

impl Execute for TestInputRequiredResultSampling {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let sampled = cx
            .sample_as(
                "capital_question",
                question("What is the capital of France?", 100),
            )
            .await
            .map_err(asked)?;
        Ok(ToolOutput::text(sampled.text))
    }
}

/// Asks for the client's roots (`input-required-result-basic-list-roots`).
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "conformance", effect = "read", data = "public")]
pub struct TestInputRequiredResultListRoots {}

impl Execute for TestInputRequiredResultListRoots {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let roots = cx.roots_as("client_roots").await.map_err(asked)?;
        Ok(ToolOutput::text(format!("Roots: {}", listed(&roots))))
    }
}

/// Asks for a confirmation that comes back with the sealed state
/// (`input-required-result-request-state`). tool-mcp checks the state
/// before the tool runs again, so an answer reaching the tool is one whose
/// state held.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "conformance", effect = "read", data = "public")]
pub struct TestInputRequiredResultRequestState {}

impl Execute for TestInputRequiredResultRequestState {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let answer = cx
            .elicit_as("confirm", form("Please confirm", "ok", "boolean"))
            .await
            .map_err(asked)?;
        Ok(ToolOutput::text(format!(
            "state-ok: confirmed {}",
            filled(answer, "ok")?
        )))
    }
}

/// The same, for the scenario that sends the state back changed
/// (`input-required-result-tampered-state`): that round must not run.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "conformance", effect = "read", data = "public")]
pub struct TestInputRequiredResultTamperedState {}

impl Execute for TestInputRequiredResultTamperedState {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        TestInputRequiredResultRequestState {}.execute(cx).await
    }
}

/// Asks three questions at once, each before any answer is needed
/// (`input-required-result-multiple-input-requests`).
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "conformance", effect = "read", data = "public")]
pub struct TestInputRequiredResultMultipleInputs {}

impl Execute for TestInputRequiredResultMultipleInputs {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let name = cx
            .elicit_as("user_name", form("What is your name?", "name", "string"))
            .await;
        let greeting = cx
            .sample_as("greeting", question("Generate a greeting", 50))
            .await;
        let roots = cx.roots_as("client_roots").await;
        let (name, greeting, roots) = (
            name.map_err(asked)?,
            greeting.map_err(asked)?,
            roots.map_err(asked)?,
        );
        Ok(ToolOutput::text(format!(
            "{} {}: {}",
            greeting.text,
            filled(name, "name")?,
            listed(&roots)
        )))
    }
}

/// Asks in two steps, the second only once the first is answered
/// (`input-required-result-multi-round`).
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "conformance", effect = "read", data = "public")]
pub struct TestInputRequiredResultMultiRound {}

impl Execute for TestInputRequiredResultMultiRound {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let name = cx
            .elicit_as(
                "step1",
                form("Step 1: What is your name?", "name", "string"),
            )
            .await
            .map_err(asked)?;
        let color = cx
            .elicit_as(
                "step2",
                form("Step 2: What is your favorite color?", "color", "string"),
            )
            .await
            .map_err(asked)?;
        Ok(ToolOutput::text(format!(
            "{} likes {}",
            filled(name, "name")?,
            filled(color, "color")?
        )))
    }
}

/// Asks a form and the model; a client that declared only one of the two
/// capabilities is asked only that one
/// (`input-required-result-capability-check`).
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "conformance", effect = "read", data = "public")]
pub struct TestInputRequiredResultCapabilities {}

impl Execute for TestInputRequiredResultCapabilities {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let name = cx
            .elicit_as("user_name", form("What is your name?", "name", "string"))
            .await;
        let capital = cx
            .sample_as(
                "capital_question",
                question("What is the capital of France?", 100),
            )
            .await;
        let mut said = Vec::new();
        match name {
            Ok(answer) => said.push(format!("name: {}", filled(answer, "name")?)),
            // A client that cannot answer forms is not asked one.
            Err(AskError::Unsupported(_)) => {}
            Err(error) => return Err(asked(error)),
        }
        match capital {
            Ok(sampled) => said.push(format!("model: {}", sampled.text)),
            Err(AskError::Unsupported(_)) => {}
            Err(error) => return Err(asked(error)),
        }
        Ok(ToolOutput::text(if said.is_empty() {
            "the client can answer neither a form nor a question for its model".to_owned()
        } else {
            said.join("; ")
        }))
    }
}

/// Needs the client's model (`server-stateless`: a request that did not
/// declare `sampling` is refused with -32021 rather than answered).
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "conformance", effect = "read", data = "public")]
pub struct TestMissingCapability {}

impl Execute for TestMissingCapability {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let sampled = cx
            .sample_as("answer", question("Say OK.", 10))
            .await
            .map_err(asked)?;
        Ok(ToolOutput::text(sampled.text))
    }
}
