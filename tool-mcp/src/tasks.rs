//! A write call's proposal as an MCP task (the `io.modelcontextprotocol/tasks`
//! extension, SEP-2663): the host's [`Task`] in MCP's form.
//!
//! `working` while a person decides (the host's status message names the
//! change and the values it replaces); then `completed` with the applied
//! result (or, when approving wrote nothing, a result with `isError`),
//! `failed` with the rejection or the expiry, or `cancelled` when the
//! caller withdrew it. `input_required` is never used: it would ask the
//! client to answer, and the requester must not approve their own change.

use rmcp::model::{
    CallToolResult, ContentBlock, CreateTaskResult, DetailedTask, ErrorData, GetTaskResult,
    JsonObject, Task, TaskPayload, TaskStatus,
};
use serde_json::{Value, json};

use crate::host::{Task as HostTask, TaskState};
use crate::results;

/// How often a client is asked to poll: a person decides in minutes, not
/// milliseconds.
const POLL_INTERVAL_MS: u64 = 2_000;

/// The JSON-RPC error code a failed task carries: the server's own range
/// (the call did not fail as a request; the change was refused).
const NOT_APPLIED: i32 = -32_000;

/// The task a write call returns in place of its result.
pub(crate) fn created(task: &HostTask) -> CreateTaskResult {
    CreateTaskResult::new(base(task))
}

/// `tasks/get`'s answer.
pub(crate) fn detailed(task: &HostTask) -> GetTaskResult {
    let payload = match &task.state {
        TaskState::Working => TaskPayload::Working,
        TaskState::Applied(output) => TaskPayload::Completed {
            result: object(results::done(output)),
        },
        TaskState::NotApplied(reason) => TaskPayload::Completed {
            result: object(CallToolResult::error(vec![ContentBlock::text(format!(
                "approved, but nothing was written: {reason}"
            ))])),
        },
        TaskState::Failed => TaskPayload::Failed {
            error: failure(task),
        },
        TaskState::Withdrawn => TaskPayload::Cancelled,
    };
    GetTaskResult::new(DetailedTask::new(base(task), payload))
}

/// The answer to a task id the caller has no task of.
pub(crate) fn unknown(id: &str) -> ErrorData {
    ErrorData::invalid_params(format!("no task `{id}`"), None)
}

fn base(task: &HostTask) -> Task {
    let status = if task.state.is_final() {
        // `DetailedTask::new` sets the final status from the payload.
        TaskStatus::Completed
    } else {
        TaskStatus::Working
    };
    let mut base = Task::new(
        task.id.as_str(),
        status,
        task.created_at.clone(),
        task.updated_at.clone(),
    )
    .with_status_message(task.message.clone());
    if !task.state.is_final() {
        base = base.with_poll_interval_ms(POLL_INTERVAL_MS);
    }
    base
}

fn failure(task: &HostTask) -> JsonObject {
    let mut error = JsonObject::new();
    error.insert("code".into(), NOT_APPLIED.into());
    error.insert("message".into(), task.message.clone().into());
    error.insert("data".into(), json!({ "proposal": task.id }));
    error
}

/// A result as the JSON object a task's payload carries (a
/// `CallToolResult` serializes to an object, so nothing is dropped).
fn object(result: CallToolResult) -> JsonObject {
    match serde_json::to_value(result) {
        Ok(Value::Object(object)) => object,
        _ => JsonObject::new(),
    }
}
