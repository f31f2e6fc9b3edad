//! The agent loop (docs/agent-loop.md) against a scripted model:
//! each behaviour of the loop is a named test, with assertions on what the
//! model was sent.

mod budget_and_events;
#[path = "../common/mod.rs"]
mod common;
mod dry_run;
mod rounds;
mod suspension;

use std::collections::{BTreeSet, VecDeque};
use std::sync::{Arc, Mutex};

use futures_executor::block_on;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tool_core::agent::{
    Agent, BudgetExceeded, CallResult, ContextBudget, ContextWindow, DEFAULT_CLOSING_PROMPT,
    Decision, Event, EventSink, Finished, MESSAGE_OVERHEAD_TOKENS, Message, Model, ModelError,
    ModelRequest, ModelResponse, RunEnd, RunState, RunStatus, Spent, ToolCall, Usage,
    estimate_tokens,
};
use tool_core::approval::MemoryApprovals;
use tool_core::export::Provider;
use tool_core::gates::{
    Denial, HostSettings, RunConfig, RunInputs, Selection, Toggle, ToolSettings,
};
use tool_core::{Actor, Execute, Registry, RunId, Tool, ToolContext, ToolError, ToolOutput};

use common::{Store, admin, registry, user};

/// Counts up to a limit; the limit is optional with a default, so strict
/// mode makes the model send `null` for it.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    data = "public",
    content = "trusted",
    name = "a_count",
    group = "alpha",
    effect = "read"
)]
struct ACount {
    /// How far to count; 3 when absent.
    #[serde(default = "three")]
    limit: u32,
}

fn three() -> u32 {
    3
}

impl Execute for ACount {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(self.limit.to_string()))
    }
}

// The scripted model.

type Reply = Result<ModelResponse, ModelError>;

/// What one request carried.
#[derive(Debug, Clone)]
struct Seen {
    messages: Vec<Message>,
    tools: Option<Vec<Value>>,
}

/// Answers from a script and records every request.
struct Scripted {
    provider: Provider,
    script: Mutex<VecDeque<Reply>>,
    seen: Mutex<Vec<Seen>>,
}

impl Scripted {
    fn new(script: impl IntoIterator<Item = Reply>) -> Self {
        Scripted {
            provider: Provider::Anthropic,
            script: Mutex::new(script.into_iter().collect()),
            seen: Mutex::new(Vec::new()),
        }
    }

    fn openai(mut self) -> Self {
        self.provider = Provider::OpenAi;
        self
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

impl Model for Scripted {
    fn provider(&self) -> Provider {
        self.provider
    }

    async fn complete(&self, request: ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
        self.seen.lock().unwrap().push(Seen {
            messages: request.messages.to_vec(),
            tools: request.tools.map(<[Value]>::to_vec),
        });
        self.script
            .lock()
            .unwrap()
            .pop_front()
            .expect("the model was asked more often than scripted")
    }
}

fn answer(text: &str) -> Reply {
    Ok(ModelResponse {
        text: text.into(),
        calls: Vec::new(),
        usage: Usage {
            input_tokens: 10,
            output_tokens: 5,
        },
        ..ModelResponse::default()
    })
}

fn calls(list: impl IntoIterator<Item = ToolCall>) -> Reply {
    Ok(ModelResponse {
        text: String::new(),
        calls: list.into_iter().collect(),
        usage: Usage {
            input_tokens: 10,
            output_tokens: 5,
        },
        ..ModelResponse::default()
    })
}

fn call(id: &str, name: &str, arguments: Value) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments,
    }
}

// The host.

struct Host {
    settings: HostSettings,
    actor: Option<Actor>,
    config: RunConfig,
    selection: Selection,
    store: Arc<Store>,
    approvals: MemoryApprovals,
}

impl Host {
    /// A plain user's run with the default settings.
    fn new() -> Self {
        Host {
            settings: HostSettings::default(),
            actor: Some(user()),
            config: RunConfig::default(),
            selection: Selection::All,
            store: common::store(),
            approvals: MemoryApprovals::new(),
        }
    }

    /// An administrator's run with `b_write` enabled.
    fn writer() -> Self {
        let mut host = Host::new();
        host.actor = Some(admin());
        host.set_tool("b_write", Toggle::Enabled);
        host
    }

    fn set_tool(&mut self, tool: &str, state: Toggle) {
        self.settings.tools.insert(
            tool.into(),
            ToolSettings {
                state,
                ..ToolSettings::default()
            },
        );
    }

    fn inputs(&self) -> RunInputs<'_> {
        RunInputs {
            settings: &self.settings,
            actor: self.actor.as_ref(),
            config: &self.config,
            skills: &[],
            selection: &self.selection,
        }
    }

    fn cx(&self) -> ToolContext {
        let cx = ToolContext::new(RunId("agent-run".into())).with_service(Arc::clone(&self.store));
        match &self.actor {
            Some(actor) => cx.with_actor(actor.clone()),
            None => cx,
        }
    }

    fn start(&self, agent: &Agent<'_, Scripted>, prompt: &str) -> (RunEnd, Vec<Event<'static>>) {
        let mut events = Vec::new();
        let end = block_on(agent.start(
            vec![Message::user(prompt)],
            self.inputs(),
            &self.cx(),
            &mut events,
        ));
        (end, events)
    }

    fn resume(
        &self,
        agent: &Agent<'_, Scripted>,
        state: RunState,
        decision: Decision,
    ) -> (RunEnd, Vec<Event<'static>>) {
        let mut events = Vec::new();
        let end = block_on(agent.resume(
            state,
            decision,
            self.inputs(),
            &self.approvals,
            &self.cx(),
            &mut events,
        ));
        (end, events)
    }

    fn record(&self, id: &str) -> Option<Value> {
        self.store.0.lock().unwrap().get(id).cloned()
    }
}

fn finished(end: RunEnd) -> Finished {
    match end {
        RunEnd::Finished(finished) => finished,
        RunEnd::Suspended(state) => panic!("suspended on {:?}", state.proposal()),
    }
}

fn suspended(end: RunEnd) -> RunState {
    match end {
        RunEnd::Suspended(state) => state,
        RunEnd::Finished(finished) => panic!("finished: {finished:?}"),
    }
}

/// The tool messages: (call id, content, is_error).
fn tool_results(messages: &[Message]) -> Vec<(String, String, bool)> {
    messages
        .iter()
        .filter_map(|message| match message {
            Message::Tool {
                call_id,
                content,
                is_error,
                ..
            } => Some((call_id.clone(), content.clone(), *is_error)),
            _ => None,
        })
        .collect()
}

fn result(id: &str, content: &str, is_error: bool) -> (String, String, bool) {
    (id.into(), content.into(), is_error)
}

/// The offered tools' names, from Anthropic's form.
fn offered(seen: &Seen) -> Vec<String> {
    seen.tools
        .iter()
        .flatten()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect()
}

/// Each event's serialized tag, which also proves every event serializes.
fn kinds(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .map(|event| {
            serde_json::to_value(event).unwrap()["event"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

fn executed(events: &[Event]) -> Vec<(String, CallResult)> {
    events
        .iter()
        .filter_map(|event| match event {
            Event::ToolExecuted {
                call_id, result, ..
            } => Some((call_id.to_string(), result.clone())),
            _ => None,
        })
        .collect()
}

fn denial(result: &CallResult) -> Option<Denial> {
    match result {
        CallResult::Error { denial, .. } => denial.clone(),
        _ => None,
    }
}

fn write_call(id: &str, record: &str, value: &str) -> ToolCall {
    call(id, "b_write", json!({"record": record, "value": value}))
}

/// Starts a run whose first response is `first`, and returns the stored
/// (serialized) state of its suspension.
fn suspend(host: &Host, first: Reply) -> (String, Vec<Event<'static>>) {
    let registry = registry();
    let model = Scripted::new([first]);
    let (end, events) = host.start(
        &Agent::new(&registry, &model).mark_results(false),
        "Set r1 to v",
    );
    let state = suspended(end);
    (serde_json::to_string(&state).unwrap(), events)
}

/// Resumes a stored state in a fresh loop (new registry, new model).
fn resume_fresh(
    host: &Host,
    stored: &str,
    decision: Decision,
    script: impl IntoIterator<Item = Reply>,
) -> (RunEnd, Vec<Event<'static>>, Vec<Seen>) {
    let registry: Registry = registry();
    let model = Scripted::new(script);
    let state: RunState = serde_json::from_str(stored).unwrap();
    let (end, events) = host.resume(
        &Agent::new(&registry, &model).mark_results(false),
        state,
        decision,
    );
    (end, events, model.seen())
}
