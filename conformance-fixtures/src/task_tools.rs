//! The fixture tools of the tasks extension's scenarios (`tasks-*`,
//! SEP-2663): which run as tasks is their declaration's
//! (`#[tool(task = ...)]`); tool-mcp runs them, and their questions wait
//! in the task for `tasks/update`.

use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::{Execute, Tool, ToolContext, ToolError, ToolOutput};

use crate::input_required::{filled, form};

/// Greets `name` at once; never a task.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "conformance", effect = "read", data = "public")]
pub struct Greet {
    /// Who to greet.
    name: String,
}

impl Execute for Greet {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(format!("Hello, {}!", self.name)))
    }
}

/// Works for `seconds`, then answers: a task where the client polls one.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "conformance",
    effect = "read",
    data = "public",
    task = "optional"
)]
pub struct SlowCompute {
    /// How long to work, in seconds (at most an hour).
    #[schemars(range(max = 3600))]
    seconds: u64,
    /// A label to answer with.
    #[serde(default)]
    label: Option<String>,
}

impl Execute for SlowCompute {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        tokio::select! {
            () = tokio::time::sleep(Duration::from_secs(self.seconds)) => {}
            () = cx.cancelled() => {
                return Err(ToolError::Cancelled {
                    tool: "slow_compute".into(),
                });
            }
        }
        let label = self.label.unwrap_or_default();
        Ok(ToolOutput::text(format!(
            "computed {label} in {}s",
            self.seconds
        )))
    }
}

/// A job that always reports its own failure: only as a task.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "conformance",
    effect = "read",
    data = "public",
    task = "required"
)]
pub struct FailingJob {}

impl Execute for FailingJob {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Err(ToolError::failed("the job failed, as it always does"))
    }
}

/// Asks the person to confirm deleting `filename`, inside the task.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "conformance",
    effect = "read",
    data = "public",
    task = "optional"
)]
pub struct ConfirmDelete {
    /// The file to delete.
    filename: String,
}

impl Execute for ConfirmDelete {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let message = format!("Delete {}?", self.filename);
        let answer = cx
            .elicit_as("confirm", form(&message, "confirm", "boolean"))
            .await
            .map_err(|error| ToolError::failed(error.to_string()))?;
        Ok(ToolOutput::text(format!(
            "{}: confirm = {}",
            self.filename,
            filled(answer, "confirm")?
        )))
    }
}

/// Asks two forms at once, so two questions wait together.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "conformance",
    effect = "read",
    data = "public",
    task = "optional"
)]
pub struct MultiInput {}

impl Execute for MultiInput {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let (first, second) = tokio::join!(
            cx.elicit_as("first", form("First?", "value", "string")),
            cx.elicit_as("second", form("Second?", "value", "string")),
        );
        let failed = |error: tool_core::client::AskError| ToolError::failed(error.to_string());
        Ok(ToolOutput::text(format!(
            "{} and {}",
            filled(first.map_err(failed)?, "value")?,
            filled(second.map_err(failed)?, "value")?
        )))
    }
}

/// A job whose call fails inside the server rather than reporting an
/// error (it panics; tool-core keeps the process up): a task that ends
/// `failed`.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "conformance",
    effect = "read",
    data = "public",
    task = "optional"
)]
pub struct ProtocolErrorJob {}

impl Execute for ProtocolErrorJob {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        panic!("protocol_error_job fails inside the server, as it always does")
    }
}
