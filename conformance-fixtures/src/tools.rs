//! The fixture tools, one per conformance scenario that calls a tool.

use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::{Execute, Tool, ToolContext, ToolError, ToolOutput};

/// Returns a simple text (scenario `tools-call-simple-text`).
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "conformance", effect = "read", data = "public")]
pub struct TestSimpleText {}

impl Execute for TestSimpleText {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(
            "This is a simple text response for testing.",
        ))
    }
}

/// Always fails (scenario `tools-call-error`: a result with `isError`).
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "conformance", effect = "read", data = "public")]
pub struct TestErrorHandling {}

impl Execute for TestErrorHandling {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Err(ToolError::failed(
            "This tool intentionally returns an error for testing",
        ))
    }
}

/// Reports progress 0, 50 and 100 of 100, about 50 ms apart (scenario
/// `tools-call-with-progress`).
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "conformance", effect = "read", data = "public")]
pub struct TestToolWithProgress {}

impl Execute for TestToolWithProgress {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        for done in [0, 50, 100] {
            if done > 0 {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            cx.progress(done, Some(100), "testing progress");
        }
        Ok(ToolOutput::text("Progress test completed"))
    }
}

/// Answers at once (scenario `server-sse-polling`, which also accepts a
/// result on the first stream).
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "conformance", effect = "read", data = "public")]
pub struct TestReconnection {}

impl Execute for TestReconnection {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("Reconnection test completed successfully"))
    }
}

/// Tool with JSON Schema 2020-12 features (scenario
/// `json-schema-2020-12`: `$schema`, `$defs` and `additionalProperties`
/// kept in the listing).
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    name = "json_schema_2020_12_tool",
    group = "conformance",
    effect = "read",
    data = "public"
)]
#[serde(deny_unknown_fields)]
pub struct JsonSchema202012Tool {
    /// A name.
    pub name: Option<String>,
    /// An address.
    pub address: Option<Address>,
}

/// A postal address, the schema's `$defs/address`.
#[derive(Deserialize, JsonSchema)]
#[schemars(rename = "address")]
pub struct Address {
    /// The street.
    pub street: Option<String>,
    /// The city.
    pub city: Option<String>,
}

impl Execute for JsonSchema202012Tool {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let city = self.address.and_then(|a| a.city).unwrap_or_default();
        Ok(ToolOutput::text(format!(
            "{} {city}",
            self.name.unwrap_or_default()
        )))
    }
}
