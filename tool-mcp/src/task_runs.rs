//! Tool calls run as tasks the client polls (MCP's tasks extension,
//! SEP-2663), for tools that declare `task = "optional"` or `"required"`:
//! rmcp's [`TaskManager`] runs the gated call, `tasks/get` shows where it
//! stands (its result inlined once it ends), a question the tool asks its
//! client puts the task in `input_required` until `tasks/update` brings
//! the answer, and `tasks/cancel` cancels the call. A task is seen only by
//! the caller who started it; any other id is answered as unknown.
//!
//! A write call's proposal is a task too, but the host's
//! ([`crate::Proposals`]): a person decides it, and nothing answers it here.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::host::{Call, CallError, McpHost, host_failed};
use crate::results;
use rmcp::model::{
    ClientCapabilities, DetailedTask, ErrorData, InputRequest, InputResponses, Task,
};
use rmcp::task_manager::{TaskContext, TaskExit, TaskFuture, TaskManager, TaskOptions};
use serde_json::{Value, json};
use tool_core::client::{
    AskError, Asking, ClientChannel, Elicitation, Elicited, LogLevel, Root, Sampled, Sampling,
};
use tool_core::{Actor, TaskSupport, ToolError};

/// The tasks this server runs, and who started each.
#[derive(Default)]
pub(crate) struct TaskRuns {
    manager: TaskManager,
    owners: Mutex<HashMap<String, Actor>>,
}

impl std::fmt::Debug for TaskRuns {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskRuns").finish_non_exhaustive()
    }
}

impl TaskRuns {
    /// Starts the call `make` builds as a task of `owner`'s; the task is
    /// seen by `tasks/get` before this returns.
    pub(crate) fn start(
        &self,
        owner: &Actor,
        make: impl FnOnce(TaskChannel) -> TaskFuture,
    ) -> Task {
        let task = self.manager.spawn(TaskOptions::new(), |cx| {
            make(TaskChannel {
                cx,
                next: AtomicUsize::new(0),
            })
        });
        lock(&self.owners).insert(task.task_id.clone(), owner.clone());
        task
    }

    /// Whether `id` is a task of `owner`'s here.
    pub(crate) fn holds(&self, owner: &Actor, id: &str) -> bool {
        lock(&self.owners)
            .get(id)
            .is_some_and(|started| started == owner)
    }

    /// `tasks/get` of a task [`holds`](Self::holds) said is the caller's.
    pub(crate) fn get(&self, id: &str) -> Result<DetailedTask, ErrorData> {
        self.manager.get_task(id)
    }

    /// `tasks/update`: the answers to the task's open questions.
    pub(crate) fn update(&self, id: &str, answers: InputResponses) -> Result<(), ErrorData> {
        self.manager.update_task(id, answers)
    }

    /// `tasks/cancel`: the call is told, and settles as it decides.
    pub(crate) fn cancel(&self, id: &str) -> Result<(), ErrorData> {
        self.manager.cancel_task(id)
    }
}

/// A task's client: its questions wait in the task (`input_required`)
/// for `tasks/update`.
pub(crate) struct TaskChannel {
    cx: TaskContext,
    next: AtomicUsize,
}

impl TaskChannel {
    /// The task's cancellation, for the call's token.
    pub(crate) fn context(&self) -> &TaskContext {
        &self.cx
    }

    fn key(&self, kind: &str) -> String {
        let n = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        format!("{kind}-{n}")
    }

    /// Asks `method` with `params` under `key`, and reads the answer as
    /// `T`.
    fn ask<T: serde::de::DeserializeOwned + Send + 'static>(
        &self,
        key: &str,
        method: &'static str,
        params: Value,
    ) -> Asking<'_, T> {
        let key = key.to_owned();
        Box::pin(async move {
            let question: InputRequest = serde_json::from_value(
                json!({"method": method, "params": params}),
            )
            .map_err(|error| AskError::Failed(format!("not a question MCP can carry: {error}")))?;
            let answer = self
                .cx
                .request_input(key, question)
                .await
                .map_err(|exit| match exit {
                    TaskExit::Cancelled => AskError::Cancelled,
                    TaskExit::Error(error) => AskError::Failed(error.message.to_string()),
                })?;
            serde_json::from_value(answer)
                .map_err(|error| AskError::Failed(format!("the client's answer: {error}")))
        })
    }
}

impl ClientChannel for TaskChannel {
    fn elicit(&self, request: Elicitation) -> Asking<'_, Elicited> {
        let key = self.key("elicitation");
        self.elicit_as(&key, request)
    }

    fn elicit_as(&self, key: &str, request: Elicitation) -> Asking<'_, Elicited> {
        let params = json!({
            "mode": "form",
            "message": request.message,
            "requestedSchema": Value::Object(request.schema),
        });
        let asking = self.ask::<rmcp::model::ElicitResult>(key, "elicitation/create", params);
        Box::pin(async move {
            let result = asking.await?;
            Ok(match result.action {
                rmcp::model::ElicitationAction::Accept => {
                    Elicited::Accepted(match result.content {
                        Some(Value::Object(values)) => values,
                        _ => serde_json::Map::new(),
                    })
                }
                rmcp::model::ElicitationAction::Decline => Elicited::Declined,
                _ => Elicited::Cancelled,
            })
        })
    }

    fn sample(&self, request: Sampling) -> Asking<'_, Sampled> {
        let key = self.key("sampling");
        self.sample_as(&key, request)
    }

    fn sample_as(&self, key: &str, request: Sampling) -> Asking<'_, Sampled> {
        let messages: Vec<Value> = request
            .messages
            .iter()
            .map(|message| {
                let role = if message.from_user {
                    "user"
                } else {
                    "assistant"
                };
                json!({"role": role, "content": {"type": "text", "text": message.text}})
            })
            .collect();
        let mut params = json!({"messages": messages, "maxTokens": request.max_tokens});
        if let Some(system) = request.system_prompt {
            params["systemPrompt"] = Value::String(system);
        }
        let asking = self.ask::<Value>(key, "sampling/createMessage", params);
        Box::pin(async move {
            let result = asking.await?;
            let text = result["content"]["text"]
                .as_str()
                .ok_or_else(|| AskError::Failed("the client's model answered no text".into()))?;
            Ok(Sampled {
                text: text.to_owned(),
                model: result["model"].as_str().unwrap_or_default().to_owned(),
            })
        })
    }

    fn roots(&self) -> Asking<'_, Vec<Root>> {
        let key = self.key("roots");
        self.roots_as(&key)
    }

    fn roots_as(&self, key: &str) -> Asking<'_, Vec<Root>> {
        let asking = self.ask::<Value>(key, "roots/list", json!({}));
        Box::pin(async move {
            let listed = asking.await?;
            Ok(listed["roots"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|root| {
                    Some(Root {
                        uri: root["uri"].as_str()?.to_owned(),
                        name: root["name"].as_str().map(str::to_owned),
                    })
                })
                .collect())
        })
    }

    /// A task has no stream to log to: its log goes to `tracing` only.
    fn log(&self, _level: LogLevel, _message: &str) {}
}

/// Starts `call` as a task of `owner`'s in `runs`, through `host`'s gated
/// call with the task as its client; cancelling the task cancels the call.
pub(crate) fn start(runs: &TaskRuns, host: Arc<dyn McpHost>, owner: &Actor, call: Call) -> Task {
    runs.start(owner, move |channel| {
        let task = channel.context().clone();
        let cancel = call.control.cancel.clone();
        let mut call = call;
        call.control.client = Some(Arc::new(channel));
        Box::pin(async move {
            let mut running = host.call(call);
            let outcome = tokio::select! {
                outcome = &mut running => outcome,
                () = task.cancelled() => {
                    cancel.cancel();
                    running.await
                }
            };
            match outcome {
                Ok(outcome) => Ok(results::answer(Ok(outcome))),
                // A tool that panicked did not report an error: the call
                // failed, as a protocol error does (the task is `failed`).
                Err(CallError::Tool(error @ ToolError::Panicked { .. })) => Err(TaskExit::Error(
                    ErrorData::internal_error(error.to_string(), None),
                )),
                Err(CallError::Tool(error)) => Ok(results::answer(Err(error))),
                Err(CallError::Host(error)) => Err(TaskExit::Error(host_failed(error))),
            }
        })
    })
}

/// Whether a call of `tool` runs as a task, for a client that polls
/// tasks (`polls`) or not.
///
/// # Errors
///
/// -32021 for a tool that runs only as a task, called by a client that
/// does not poll them.
pub(crate) fn runs_as_task(host: &dyn McpHost, tool: &str, polls: bool) -> Result<bool, ErrorData> {
    let support = host
        .registry()
        .get(tool)
        .map(|tool| tool.declaration().task)
        .unwrap_or_default();
    match support {
        TaskSupport::Required if !polls => Err(extension_required()),
        TaskSupport::Forbidden => Ok(false),
        TaskSupport::Optional | TaskSupport::Required => Ok(polls),
    }
}

/// The error for a tool that runs only as a task, called by a client that
/// did not declare the tasks extension (-32021, naming it).
fn extension_required() -> ErrorData {
    serde_json::from_value::<ClientCapabilities>(json!({
        "extensions": { rmcp::model::TASKS_EXTENSION_ID: {} }
    }))
    .map(ErrorData::missing_required_client_capability)
    .unwrap_or_else(|error| ErrorData::internal_error(error.to_string(), None))
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Every write is one insert: a panic elsewhere leaves no half-write.
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}
