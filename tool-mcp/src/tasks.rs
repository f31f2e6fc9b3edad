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
    JsonObject, Task, TaskPayload, TaskStatus, UpdateTaskParams,
};
use serde_json::{Value, json};
use tool_core::Actor;

use crate::host::{Proposals, Task as HostTask, TaskState, Withdrawal, host_failed};
use crate::results;
use crate::task_runs::TaskRuns;

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

/// `tasks/get`: a call `runs` runs as a task, or a proposal of `proposals`,
/// if it is `actor`'s.
pub(crate) async fn get(
    runs: &TaskRuns,
    proposals: Option<&dyn Proposals>,
    actor: &Actor,
    id: &str,
) -> Result<GetTaskResult, ErrorData> {
    if runs.holds(actor, id) {
        return runs.get(id).map(GetTaskResult::new);
    }
    let Some(proposals) = proposals else {
        return Err(unknown(id));
    };
    match proposals.task(actor, id).await {
        Ok(Some(task)) => Ok(detailed(&task)),
        Ok(None) => Err(unknown(id)),
        Err(error) => Err(host_failed(error)),
    }
}

/// `tasks/cancel`: the call is told; a proposal is withdrawn (a decided
/// one stays as decided).
pub(crate) async fn cancel(
    runs: &TaskRuns,
    proposals: Option<&dyn Proposals>,
    actor: &Actor,
    id: &str,
) -> Result<(), ErrorData> {
    if runs.holds(actor, id) {
        return runs.cancel(id);
    }
    let Some(proposals) = proposals else {
        return Err(unknown(id));
    };
    match proposals.withdraw(actor, id).await {
        Ok(Withdrawal::Done) => Ok(()),
        Ok(Withdrawal::Unknown) => Err(unknown(id)),
        Ok(Withdrawal::Refused(why)) => Err(ErrorData::invalid_request(why, None)),
        Err(error) => Err(host_failed(error)),
    }
}

/// `tasks/update`: answers for a call run as a task. A proposal asks for
/// no input: a person decides it in the host.
pub(crate) fn update(
    runs: &TaskRuns,
    actor: &Actor,
    request: UpdateTaskParams,
) -> Result<(), ErrorData> {
    if runs.holds(actor, &request.task_id) {
        return runs.update(&request.task_id, request.input_responses);
    }
    Err(ErrorData::invalid_params(
        format!(
            "task `{}` asks for no input: a person decides it in the host",
            request.task_id
        ),
        None,
    ))
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
