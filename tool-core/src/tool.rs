//! The traits a tool type implements. `Tool` comes from `#[derive(Tool)]`;
//! the author writes `Execute` (read tools) or `Write` (write tools).

use std::future::Future;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use crate::{Arguments, Declaration, Proposal, ToolContext, ToolError, ToolOutput};

/// A declared tool: its arguments type with the declaration attached.
///
/// Implemented by `#[derive(Tool)]`, with [`Arguments`] (the checks of
/// its arguments, generated from the same type as its schema);
/// implementing it by hand registers nothing.
pub trait Tool: DeserializeOwned + JsonSchema + Arguments + Send + 'static {
    /// What `#[tool(...)]` and the doc comment declared.
    const DECLARATION: Declaration;
}

/// Runs a `read` tool.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is declared `effect = \"read\"` but does not implement `Execute`",
    label = "a read tool needs `impl Execute for {Self}`",
    note = "a `read` tool implements `tool_core::Execute`; a `write` tool implements `tool_core::Write` and declares `effect = \"write\"`"
)]
pub trait Execute: Tool {
    /// Runs the call. The arguments were validated against the schema the
    /// model was shown before `self` was built.
    fn execute(
        self,
        cx: &ToolContext,
    ) -> impl Future<Output = Result<ToolOutput, ToolError>> + Send;
}

/// Runs a `write` tool in two phases, with a person's approval between them.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is declared `effect = \"write\"` but does not implement `Write`",
    label = "a write tool needs `impl Write for {Self}`",
    note = "a `write` tool implements `tool_core::Write`; a `read` tool implements `tool_core::Execute` and declares `effect = \"read\"`"
)]
pub trait Write: Tool {
    /// Reads what the call would change and returns the proposal. Writes
    /// nothing.
    fn propose(self, cx: &ToolContext) -> impl Future<Output = Result<Proposal, ToolError>> + Send;

    /// Applies an approved proposal: refuses it when the record no longer
    /// holds the replaced values, and re-reads the record afterwards.
    fn apply(
        proposal: &Proposal,
        cx: &ToolContext,
    ) -> impl Future<Output = Result<ToolOutput, ToolError>> + Send;
}
