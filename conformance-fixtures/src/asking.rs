//! The fixture tools that ask their client or log to it (tool-core's
//! `ToolContext::elicit`, `sample` and `log`), one per scenario.

use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tool_core::client::{Elicitation, Elicited, LogLevel, Sampling, SamplingMessage};
use tool_core::{Execute, Tool, ToolContext, ToolError, ToolOutput};

/// Logs three messages at `info`, about 50 ms apart (scenario
/// `tools-call-with-logging`).
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "conformance", effect = "read", data = "public")]
pub struct TestToolWithLogging {}

impl Execute for TestToolWithLogging {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        cx.log(LogLevel::Info, "Tool execution started");
        tokio::time::sleep(Duration::from_millis(50)).await;
        cx.log(LogLevel::Info, "Tool processing data");
        tokio::time::sleep(Duration::from_millis(50)).await;
        cx.log(LogLevel::Info, "Tool execution completed");
        Ok(ToolOutput::text("Logging test completed"))
    }
}

/// Asks the client's model (scenario `tools-call-sampling`).
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "conformance", effect = "read", data = "public")]
pub struct TestSampling {
    /// The prompt to send to the client's model.
    prompt: String,
}

impl Execute for TestSampling {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let sampled = cx
            .sample(Sampling {
                messages: vec![SamplingMessage::user(self.prompt)],
                max_tokens: 100,
                system_prompt: None,
            })
            .await
            .map_err(|error| ToolError::failed(error.to_string()))?;
        Ok(ToolOutput::text(format!("LLM response: {}", sampled.text)))
    }
}

/// Asks the person behind the client to open `url` (URL-mode elicitation;
/// tests/asking.rs calls it).
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "conformance", effect = "read", data = "public")]
pub struct TestElicitationUrl {
    /// The page to open.
    url: String,
}

impl Execute for TestElicitationUrl {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let answer = cx
            .elicit_url("Please sign in on this page", &self.url)
            .await
            .map_err(|error| ToolError::failed(error.to_string()))?;
        let action = match answer {
            Elicited::Accepted(_) => "accept",
            Elicited::Declined => "decline",
            Elicited::Cancelled => "cancel",
        };
        Ok(ToolOutput::text(format!(
            "URL elicitation: action={action}"
        )))
    }
}

/// Lists the client's roots, one URI a line (no scenario of the pinned
/// suite's 2025 revisions asks for it; tests/asking.rs calls it).
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "conformance", effect = "read", data = "public")]
pub struct TestListRoots {}

impl Execute for TestListRoots {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let roots = cx
            .roots()
            .await
            .map_err(|error| ToolError::failed(error.to_string()))?;
        let lines: Vec<String> = roots
            .iter()
            .map(|root| format!("{} {}", root.uri, root.name.as_deref().unwrap_or("-")))
            .collect();
        Ok(ToolOutput::text(format!("Roots: {}", lines.join("; "))))
    }
}

/// Asks the person behind the client for a user name and an e-mail
/// address (scenario `tools-call-elicitation`).
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "conformance", effect = "read", data = "public")]
pub struct TestElicitation {
    /// The message to show the user.
    message: String,
}

impl Execute for TestElicitation {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let schema = json!({
            "type": "object",
            "properties": {
                "username": {"type": "string", "description": "User's response"},
                "email": {"type": "string", "description": "User's email address"},
            },
            "required": ["username", "email"],
        });
        let answer = elicit(cx, self.message, schema).await?;
        Ok(ToolOutput::text(format!("User response: {answer}")))
    }
}

/// A form with a default for every primitive type (scenario
/// `elicitation-sep1034-defaults`).
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "conformance", effect = "read", data = "public")]
pub struct TestElicitationSep1034Defaults {}

impl Execute for TestElicitationSep1034Defaults {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let schema = json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "default": "John Doe"},
                "age": {"type": "integer", "default": 30},
                "score": {"type": "number", "default": 95.5},
                "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
                "verified": {"type": "boolean", "default": true},
            },
        });
        let answer = elicit(cx, "Please review your details".into(), schema).await?;
        Ok(ToolOutput::text(format!("Elicitation completed: {answer}")))
    }
}

/// A form with each of the five enum forms (scenario
/// `elicitation-sep1330-enums`).
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "conformance", effect = "read", data = "public")]
pub struct TestElicitationSep1330Enums {}

impl Execute for TestElicitationSep1330Enums {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let titled = |titles: [&str; 3]| {
            let values = ["value1", "value2", "value3"];
            Value::Array(
                values
                    .iter()
                    .zip(titles)
                    .map(|(value, title)| json!({"const": value, "title": title}))
                    .collect(),
            )
        };
        let schema = json!({
            "type": "object",
            "properties": {
                "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
                "titledSingle": {
                    "type": "string",
                    "oneOf": titled(["First Option", "Second Option", "Third Option"]),
                },
                "legacyEnum": {
                    "type": "string",
                    "enum": ["opt1", "opt2", "opt3"],
                    "enumNames": ["Option One", "Option Two", "Option Three"],
                },
                "untitledMulti": {
                    "type": "array",
                    "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
                },
                "titledMulti": {
                    "type": "array",
                    "items": {"anyOf": titled(["First Choice", "Second Choice", "Third Choice"])},
                },
            },
        });
        let answer = elicit(cx, "Please choose".into(), schema).await?;
        Ok(ToolOutput::text(format!("Elicitation completed: {answer}")))
    }
}

/// Asks the form `schema` with `message`; the answer as the scenarios
/// read it: `action=..., content={...}`.
async fn elicit(cx: &ToolContext, message: String, schema: Value) -> Result<String, ToolError> {
    let Value::Object(schema) = schema else {
        return Err(ToolError::failed("the form is not an object"));
    };
    let answer = cx
        .elicit(Elicitation { message, schema })
        .await
        .map_err(|error| ToolError::failed(error.to_string()))?;
    Ok(match answer {
        Elicited::Accepted(values) => format!("action=accept, content={}", Value::Object(values)),
        Elicited::Declined => format!("action=decline, content={}", Value::Object(Map::new())),
        Elicited::Cancelled => format!("action=cancel, content={}", Value::Object(Map::new())),
    })
}
