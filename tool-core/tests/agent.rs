//! The agent loop (docs/agent-loop.md) against a scripted model:
//! each behaviour of the loop is a named test, with assertions on what the
//! model was sent.

mod common;

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
#[tool(data = "public", name = "a_count", group = "alpha", effect = "read")]
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
        self.settings
            .tools
            .insert(tool.into(), ToolSettings { state });
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

// Plain answers and rounds of calls.

#[test]
fn plain_answer_without_tool_calls_completes_in_one_round() {
    let registry = registry();
    let model = Scripted::new([answer("Hello.")]);
    let agent = Agent::new(&registry, &model);
    let (end, events) = Host::new().start(&agent, "Hi");
    let finished = finished(end);
    assert_eq!(finished.status, RunStatus::Completed);
    assert_eq!(finished.answer.as_deref(), Some("Hello."));
    assert_eq!(finished.rounds, 1);
    let seen = model.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].messages, vec![Message::user("Hi")]);
    // The user's grant, in Anthropic's form and name order.
    let tools = offered(&seen[0]);
    assert!(tools.contains(&"a_read".to_owned()) && tools.contains(&"a_count".to_owned()));
    assert!(!tools.contains(&"a_admin".to_owned()) && !tools.contains(&"b_write".to_owned()));
    let mut sorted = tools.clone();
    sorted.sort();
    assert_eq!(tools, sorted);
    assert_eq!(
        kinds(&events),
        [
            "round_started",
            "context_budget",
            "request_sent",
            "response_received",
            "finished"
        ]
    );
    assert_eq!(
        finished.messages,
        vec![
            Message::user("Hi"),
            Message::Assistant {
                text: "Hello.".into(),
                calls: Vec::new()
            }
        ]
    );
}

#[test]
fn one_round_of_calls_sends_every_result_back_with_its_call_id() {
    let registry = registry();
    let model = Scripted::new([
        calls([
            call("c1", "a_read", json!({})),
            call("c2", "g_read", json!({})),
        ]),
        answer("Both read."),
    ]);
    let agent = Agent::new(&registry, &model);
    let (end, events) = Host::new().start(&agent, "Read both");
    let finished = finished(end);
    assert_eq!(finished.status, RunStatus::Completed);
    assert_eq!(finished.answer.as_deref(), Some("Both read."));
    assert_eq!(finished.rounds, 2);
    let seen = model.seen();
    assert_eq!(seen.len(), 2);
    assert_eq!(
        seen[1].messages[1],
        Message::Assistant {
            text: String::new(),
            calls: vec![
                call("c1", "a_read", json!({})),
                call("c2", "g_read", json!({}))
            ],
        }
    );
    assert_eq!(
        seen[1].messages[2..],
        [
            Message::Tool {
                call_id: "c1".into(),
                name: "a_read".into(),
                content: "ARead".into(),
                is_error: false
            },
            Message::Tool {
                call_id: "c2".into(),
                name: "g_read".into(),
                content: "GRead".into(),
                is_error: false
            },
        ]
    );
    assert_eq!(
        kinds(&events),
        [
            "round_started",
            "context_budget",
            "request_sent",
            "response_received",
            "tool_executed",
            "tool_executed",
            "round_started",
            "context_budget",
            "request_sent",
            "response_received",
            "finished",
        ]
    );
}

#[test]
fn call_to_a_tool_never_offered_is_refused_with_the_neutral_text_and_the_others_run() {
    let registry = registry();
    let model = Scripted::new([
        calls([
            call("c1", "a_admin", json!({})),
            call("c2", "ghost", json!({})),
            call("c3", "a_read", json!({})),
        ]),
        answer("Done."),
    ]);
    let agent = Agent::new(&registry, &model);
    let (end, events) = Host::new().start(&agent, "Go");
    assert_eq!(finished(end).status, RunStatus::Completed);
    assert_eq!(
        tool_results(&model.seen()[1].messages),
        [
            result("c1", "tool `a_admin` is not available", true),
            result("c2", "tool `ghost` is not available", true),
            result("c3", "ARead", false),
        ]
    );
    // The host sees which gate refused; the model never does.
    let executed = executed(&events);
    assert_eq!(denial(&executed[0].1), Some(Denial::AdminOnly));
    assert_eq!(denial(&executed[1].1), Some(Denial::NotRegistered));
    assert!(matches!(executed[2].1, CallResult::Output { .. }));
}

#[test]
fn bad_arguments_come_back_with_the_path_and_the_model_can_retry() {
    let registry = registry();
    let model = Scripted::new([
        calls([call("c1", "a_scoped", json!({"path": 5}))]),
        calls([call("c2", "a_scoped", json!({"path": "docs/a.md"}))]),
        answer("Read it."),
    ]);
    let agent = Agent::new(&registry, &model);
    let (end, _) = Host::new().start(&agent, "Read docs/a.md");
    assert_eq!(finished(end).status, RunStatus::Completed);
    let seen = model.seen();
    let first = tool_results(&seen[1].messages);
    assert_eq!(first.len(), 1);
    let (id, text, is_error) = &first[0];
    assert_eq!(id, "c1");
    assert!(is_error);
    assert!(text.contains("/path"), "{text}");
    assert_eq!(
        tool_results(&seen[2].messages)[1],
        result("c2", "docs/a.md", false)
    );
}

#[test]
fn openai_arguments_are_normalized_before_the_call() {
    let registry = registry();
    // Strict mode sends `null` for an argument the model leaves out.
    let script = || {
        [
            calls([call("c1", "a_count", json!({"limit": null}))]),
            answer("Counted."),
        ]
    };
    let openai = Scripted::new(script()).openai();
    let (end, _) = Host::new().start(&Agent::new(&registry, &openai), "Count");
    assert_eq!(finished(end).status, RunStatus::Completed);
    let seen = openai.seen();
    assert!(
        seen[0]
            .tools
            .iter()
            .flatten()
            .all(|tool| tool["type"] == "function")
    );
    assert_eq!(tool_results(&seen[1].messages), [result("c1", "3", false)]);

    // Other providers' arguments pass unchanged: `null` is not a number.
    let anthropic = Scripted::new(script());
    let (end, _) = Host::new().start(&Agent::new(&registry, &anthropic), "Count");
    assert_eq!(finished(end).status, RunStatus::Completed);
    let (_, text, is_error) = &tool_results(&anthropic.seen()[1].messages)[0];
    assert!(*is_error && text.contains("/limit"), "{text}");
}

// The round cap.

#[test]
fn cap_reached_with_calls_pending_ends_truncated_after_a_tool_free_closing_request() {
    let registry = registry();
    let model = Scripted::new([
        calls([call("c1", "a_read", json!({}))]),
        calls([call("c2", "a_read", json!({}))]),
        // Calls in the closing answer cannot run: no tools were offered.
        Ok(ModelResponse {
            text: "What I found so far.".into(),
            calls: vec![call("c3", "a_read", json!({}))],
            usage: Usage::default(),
            ..ModelResponse::default()
        }),
    ]);
    let agent = Agent::new(&registry, &model).max_rounds(2);
    let (end, events) = Host::new().start(&agent, "Dig");
    let finished = finished(end);
    assert_eq!(finished.status, RunStatus::Truncated);
    assert_eq!(finished.answer.as_deref(), Some("What I found so far."));
    assert_eq!(finished.rounds, 3);
    let seen = model.seen();
    assert_eq!(seen.len(), 3);
    assert!(seen[0].tools.is_some() && seen[1].tools.is_some());
    assert_eq!(seen[2].tools, None);
    // The pending call's result is in the closing request, then the prompt.
    let closing = &seen[2].messages;
    assert_eq!(
        tool_results(closing).last(),
        Some(&result("c2", "ARead", false))
    );
    assert_eq!(closing.last(), Some(&Message::user(DEFAULT_CLOSING_PROMPT)));
    assert_eq!(
        finished.messages.last(),
        Some(&Message::Assistant {
            text: "What I found so far.".into(),
            calls: Vec::new()
        })
    );
    assert_eq!(executed(&events).len(), 2);
    assert!(matches!(
        events.iter().rev().nth(2),
        Some(Event::RequestSent { tools: None, .. })
    ));
}

#[test]
fn default_round_cap_is_five() {
    let registry = registry();
    let mut script: Vec<Reply> = (0..5)
        .map(|i| calls([call(&format!("c{i}"), "a_read", json!({}))]))
        .collect();
    script.push(answer("Enough."));
    let model = Scripted::new(script);
    let (end, _) = Host::new().start(&Agent::new(&registry, &model), "Loop");
    assert_eq!(finished(end).status, RunStatus::Truncated);
    let seen = model.seen();
    assert_eq!(seen.len(), 6);
    assert!(seen[..5].iter().all(|s| s.tools.is_some()));
    assert_eq!(seen[5].tools, None);
}

#[test]
fn answer_in_the_last_round_completes_without_a_closing_request() {
    let registry = registry();
    let model = Scripted::new([calls([call("c1", "a_read", json!({}))]), answer("Done.")]);
    let agent = Agent::new(&registry, &model).max_rounds(2);
    let (end, _) = Host::new().start(&agent, "Go");
    assert_eq!(finished(end).status, RunStatus::Completed);
    assert_eq!(model.seen().len(), 2);
}

#[test]
fn empty_grant_sends_no_tools_field() {
    let registry = registry();
    let mut host = Host::new();
    host.selection = Selection::Only(BTreeSet::new());
    let model = Scripted::new([
        // A model that calls a tool anyway is refused like any other.
        calls([call("c1", "a_read", json!({}))]),
        answer("Plain."),
    ]);
    let (end, events) = host.start(&Agent::new(&registry, &model), "Hi");
    assert_eq!(finished(end).status, RunStatus::Completed);
    let seen = model.seen();
    assert!(seen.iter().all(|s| s.tools.is_none()));
    assert_eq!(
        tool_results(&seen[1].messages),
        [result("c1", "tool `a_read` is not available", true)]
    );
    let request = events
        .iter()
        .find(|e| matches!(e, Event::RequestSent { .. }))
        .unwrap();
    assert_eq!(serde_json::to_value(request).unwrap()["tools"], Value::Null);
}

// Suspension and resumption.

fn write_call(id: &str, record: &str, value: &str) -> ToolCall {
    call(id, "b_write", json!({"record": record, "value": value}))
}

/// Starts a run whose first response is `first`, and returns the stored
/// (serialized) state of its suspension.
fn suspend(host: &Host, first: Reply) -> (String, Vec<Event<'static>>) {
    let registry = registry();
    let model = Scripted::new([first]);
    let (end, events) = host.start(&Agent::new(&registry, &model), "Set r1 to v");
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
    let (end, events) = host.resume(&Agent::new(&registry, &model), state, decision);
    (end, events, model.seen())
}

#[test]
fn write_call_suspends_and_resumes_in_a_fresh_loop_after_approval() {
    let host = Host::writer();
    let (stored, events) = suspend(&host, calls([write_call("w1", "r1", "v")]));
    assert_eq!(
        host.record("r1"),
        None,
        "nothing is written before approval"
    );
    let state: RunState = serde_json::from_str(&stored).unwrap();
    assert_eq!(state.proposal().summary, "set r1 to v");
    assert_eq!(state.pending().call.id, "w1");
    assert_eq!(state.round(), 1);
    assert!(state.remaining().is_empty());
    assert!(state.grant().allowance("b_write").is_some());
    assert_eq!(
        kinds(&events)[4..],
        ["tool_executed", "suspended"],
        "{events:?}"
    );
    assert!(matches!(
        executed(&events)[0].1,
        CallResult::Proposed { .. }
    ));

    let approved = Decision::Approved { approver: admin() };
    let (end, events, seen) = resume_fresh(&host, &stored, approved.clone(), [answer("Saved.")]);
    let finished = finished(end);
    assert_eq!(finished.status, RunStatus::Completed);
    assert_eq!(finished.answer.as_deref(), Some("Saved."));
    assert_eq!(host.record("r1"), Some(json!("v")));
    assert_eq!(
        tool_results(&seen[0].messages),
        [result("w1", "r1 = \"v\"", false)]
    );
    // Rounds and usage run on across the suspension.
    assert_eq!(finished.rounds, 2);
    assert_eq!(
        finished.usage,
        Usage {
            input_tokens: 20,
            output_tokens: 10
        }
    );
    assert_eq!(finished.decisions.len(), 1);
    assert_eq!(finished.decisions[0].decision, approved);
    assert_eq!(
        kinds(&events),
        [
            "resumed",
            "tool_executed",
            "round_started",
            "context_budget",
            "request_sent",
            "response_received",
            "finished"
        ]
    );
}

#[test]
fn edited_approval_applies_the_edit_and_an_edit_of_another_record_writes_nothing() {
    let host = Host::writer();
    let (stored, _) = suspend(&host, calls([write_call("w1", "r1", "v")]));

    // An edit that moves the change to another record is refused: nothing
    // is written and nothing is decided, so the proposal can still be.
    let registry: Registry = registry();
    let model = Scripted::new([answer("Saved.")]);
    let agent = Agent::new(&registry, &model);
    let state: RunState = serde_json::from_str(&stored).unwrap();
    let proposal = state.proposal().id().clone();
    let mut events = Vec::new();
    let elsewhere = json!({"record": "r2", "value": "w"});
    let end = block_on(agent.resume_edited(
        state,
        admin(),
        elsewhere,
        host.inputs(),
        &host.approvals,
        &host.cx(),
        &mut events,
    ));
    assert_eq!((host.record("r1"), host.record("r2")), (None, None));
    assert_eq!(host.approvals.decision(&proposal), None);
    assert!(matches!(&executed(&events)[0].1, CallResult::Error { .. }));
    drop(end);

    let model = Scripted::new([answer("Saved.")]);
    let agent = Agent::new(&registry, &model);
    let state: RunState = serde_json::from_str(&stored).unwrap();
    let mut events = Vec::new();
    let edit = json!({"record": "r1", "value": "w"});
    let end = block_on(agent.resume_edited(
        state,
        admin(),
        edit.clone(),
        host.inputs(),
        &host.approvals,
        &host.cx(),
        &mut events,
    ));
    let finished = finished(end);
    assert_eq!(finished.answer.as_deref(), Some("Saved."));
    assert_eq!(host.record("r1"), Some(json!("w")));
    assert_eq!(
        host.approvals.decision(&proposal),
        Some(Decision::Approved { approver: admin() })
    );
    // The event shows what was applied: the edited arguments.
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::ToolExecuted { arguments, .. } if **arguments == edit))
    );
    assert_eq!(
        tool_results(&model.seen()[0].messages),
        [result("w1", "r1 = \"w\"", false)]
    );
}

#[test]
fn rejected_write_is_not_applied_and_the_model_is_told_why() {
    let host = Host::writer();
    let (stored, _) = suspend(&host, calls([write_call("w1", "r1", "v")]));
    let rejected = Decision::Rejected {
        approver: admin(),
        reason: "r1 is frozen".into(),
    };
    let (end, events, seen) =
        resume_fresh(&host, &stored, rejected.clone(), [answer("Understood.")]);
    let finished = finished(end);
    assert_eq!(finished.status, RunStatus::Completed);
    assert_eq!(host.record("r1"), None);
    let results = tool_results(&seen[0].messages);
    assert_eq!(results.len(), 1);
    let (id, text, is_error) = &results[0];
    assert_eq!(id, "w1");
    assert!(is_error);
    assert!(
        text.contains("rejected") && text.contains("r1 is frozen"),
        "{text}"
    );
    // The decision is recorded, and nothing was executed for it.
    assert_eq!(finished.decisions[0].decision, rejected);
    assert!(
        matches!(&events[0], Event::Resumed { call_id, decision, .. } if call_id == "w1" && *decision == rejected)
    );
    assert!(executed(&events).is_empty());
}

#[test]
fn tool_disabled_while_the_run_waited_is_refused_after_resume() {
    let mut host = Host::writer();
    let (stored, _) = suspend(&host, calls([write_call("w1", "r1", "v")]));
    host.set_tool("b_write", Toggle::Disabled);
    let approved = Decision::Approved { approver: admin() };
    let (end, events, seen) = resume_fresh(&host, &stored, approved, [answer("Oh well.")]);
    assert_eq!(finished(end).status, RunStatus::Completed);
    assert_eq!(host.record("r1"), None);
    assert_eq!(
        tool_results(&seen[0].messages),
        [result("w1", "tool `b_write` is not available", true)]
    );
    assert_eq!(denial(&executed(&events)[0].1), Some(Denial::ToolDisabled));
}

#[test]
fn approver_who_fails_the_gates_for_the_tool_cannot_apply_it() {
    let host = Host::writer();
    let (stored, _) = suspend(&host, calls([write_call("w1", "r1", "v")]));
    // b_write requires an administrator; this approver is not one.
    let approved = Decision::Approved { approver: user() };
    let (end, events, seen) = resume_fresh(&host, &stored, approved, [answer("Oh well.")]);
    assert_eq!(finished(end).status, RunStatus::Completed);
    assert_eq!(host.record("r1"), None);
    assert_eq!(
        tool_results(&seen[0].messages),
        [result("w1", "tool `b_write` is not available", true)]
    );
    assert_eq!(denial(&executed(&events)[0].1), Some(Denial::AdminOnly));
}

#[test]
fn run_that_lost_the_tool_while_waiting_is_refused_even_when_the_approver_may_use_it() {
    let mut host = Host::writer();
    let (stored, _) = suspend(&host, calls([write_call("w1", "r1", "v")]));
    // The run's actor is no longer an administrator; the approver is one.
    host.actor = Some(Actor {
        id: "root".into(),
        admin: false,
    });
    let approved = Decision::Approved { approver: admin() };
    let (end, events, seen) = resume_fresh(&host, &stored, approved, [answer("Oh well.")]);
    assert_eq!(finished(end).status, RunStatus::Completed);
    assert_eq!(host.record("r1"), None);
    assert_eq!(
        tool_results(&seen[0].messages),
        [result("w1", "tool `b_write` is not available", true)]
    );
    assert_eq!(denial(&executed(&events)[0].1), Some(Denial::AdminOnly));
}

#[test]
fn remaining_calls_of_the_response_run_after_the_decision_against_the_resumed_grant() {
    let mut host = Host::writer();
    let (stored, _) = suspend(
        &host,
        calls([
            call("c1", "a_read", json!({})),
            write_call("w1", "r1", "v"),
            call("c2", "g_read", json!({})),
            call("c3", "b_read", json!({})),
        ]),
    );
    let state: RunState = serde_json::from_str(&stored).unwrap();
    assert_eq!(
        state.remaining(),
        [
            call("c2", "g_read", json!({})),
            call("c3", "b_read", json!({}))
        ]
    );
    assert_eq!(
        tool_results(state.messages()),
        [result("c1", "ARead", false)]
    );
    // Taken away while the run waited.
    host.set_tool("g_read", Toggle::Disabled);
    let approved = Decision::Approved { approver: admin() };
    let (end, _, seen) = resume_fresh(&host, &stored, approved, [answer("All done.")]);
    assert_eq!(finished(end).status, RunStatus::Completed);
    assert_eq!(
        tool_results(&seen[0].messages),
        [
            result("c1", "ARead", false),
            result("w1", "r1 = \"v\"", false),
            result("c2", "tool `g_read` is not available", true),
            result("c3", "BRead", false),
        ]
    );
    assert!(!offered(&seen[0]).contains(&"g_read".to_owned()));
}

#[test]
fn second_write_call_of_a_response_suspends_the_run_again() {
    let host = Host::writer();
    let (stored, _) = suspend(
        &host,
        calls([write_call("w1", "r1", "one"), write_call("w2", "r2", "two")]),
    );
    let approved = Decision::Approved { approver: admin() };
    let (end, events, seen) = resume_fresh(&host, &stored, approved.clone(), []);
    assert!(seen.is_empty(), "the model waits for the second decision");
    let state = suspended(end);
    assert_eq!(state.pending().call.id, "w2");
    assert_eq!(state.decisions().len(), 1);
    assert_eq!(host.record("r1"), Some(json!("one")));
    assert_eq!(kinds(&events).last().map(String::as_str), Some("suspended"));

    let stored = serde_json::to_string(&state).unwrap();
    let (end, _, seen) = resume_fresh(&host, &stored, approved, [answer("Both set.")]);
    let finished = finished(end);
    assert_eq!(finished.decisions.len(), 2);
    assert_eq!(host.record("r2"), Some(json!("two")));
    assert_eq!(
        tool_results(&seen[0].messages),
        [
            result("w1", "r1 = \"one\"", false),
            result("w2", "r2 = \"two\"", false)
        ]
    );
}

#[test]
fn stored_state_of_an_unknown_format_is_refused_not_guessed() {
    let host = Host::writer();
    let (stored, _) = suspend(&host, calls([write_call("w1", "r1", "v")]));
    assert!(stored.starts_with(r#"{"format":1,"#), "{stored}");
    let newer = stored.replacen(r#""format":1"#, r#""format":2"#, 1);
    let error = serde_json::from_str::<RunState>(&newer).unwrap_err();
    assert!(error.to_string().contains("format 2"), "{error}");
}

// Budget, failures, usage.

#[test]
fn budget_check_runs_before_every_round_and_can_end_the_run() {
    let registry = registry();
    let model = Scripted::new([
        Ok(ModelResponse {
            text: String::new(),
            calls: vec![call("c1", "a_read", json!({}))],
            usage: Usage {
                input_tokens: 80,
                output_tokens: 30,
            },
            ..ModelResponse::default()
        }),
        answer("never asked"),
    ]);
    let checks = Mutex::new(Vec::new());
    let agent = Agent::new(&registry, &model).budget(|spent: &Spent| {
        checks.lock().unwrap().push(*spent);
        if spent.usage.total() >= 100 {
            Err(BudgetExceeded::new("the run's 100 tokens are spent"))
        } else {
            Ok(())
        }
    });
    let (end, events) = Host::new().start(&agent, "Go");
    let finished = finished(end);
    assert_eq!(
        finished.status,
        RunStatus::Budget {
            reason: "the run's 100 tokens are spent".into()
        }
    );
    assert_eq!(finished.answer, None);
    assert_eq!(finished.rounds, 1);
    assert_eq!(model.seen().len(), 1);
    let checks = checks.lock().unwrap().clone();
    assert_eq!(checks.iter().map(|s| s.rounds).collect::<Vec<_>>(), [0, 1]);
    assert_eq!(checks[1].usage.total(), 110);
    // The call of the last round was answered before the run ended.
    assert_eq!(executed(&events).len(), 1);
    assert!(matches!(
        events.last(),
        Some(Event::Finished {
            status: RunStatus::Budget { .. },
            ..
        })
    ));
}

#[test]
fn budget_spent_before_the_first_round_sends_nothing() {
    let registry = registry();
    let model = Scripted::new([]);
    let agent = Agent::new(&registry, &model)
        .budget(|_: &Spent| Err(BudgetExceeded::new("the daily budget is spent")));
    let (end, _) = Host::new().start(&agent, "Go");
    let finished = finished(end);
    assert!(matches!(finished.status, RunStatus::Budget { .. }));
    assert_eq!(finished.rounds, 0);
    assert!(model.seen().is_empty());
}

#[test]
fn model_error_ends_the_run_as_failed() {
    let registry = registry();
    let error = ModelError::Unavailable {
        message: "connection reset".into(),
    };
    let model = Scripted::new([calls([call("c1", "a_read", json!({}))]), Err(error.clone())]);
    let (end, events) = Host::new().start(&Agent::new(&registry, &model), "Go");
    let finished = finished(end);
    assert_eq!(finished.status, RunStatus::Failed { error });
    assert_eq!(finished.answer, None);
    assert_eq!(finished.rounds, 2);
    assert_eq!(
        finished.usage.total(),
        15,
        "usage before the failure counts"
    );
    assert!(matches!(
        events.last(),
        Some(Event::Finished {
            status: RunStatus::Failed { .. },
            ..
        })
    ));
}

#[test]
fn usage_is_summed_over_the_run_and_saturates() {
    let registry = registry();
    let huge = Usage {
        input_tokens: u64::MAX,
        output_tokens: 1,
    };
    let model = Scripted::new([
        calls([call("c1", "a_read", json!({}))]),
        Ok(ModelResponse {
            text: "Done.".into(),
            calls: Vec::new(),
            usage: huge,
            ..ModelResponse::default()
        }),
    ]);
    let (end, events) = Host::new().start(&Agent::new(&registry, &model), "Go");
    let finished = finished(end);
    assert_eq!(
        finished.usage,
        Usage {
            input_tokens: u64::MAX,
            output_tokens: 6
        }
    );
    assert!(matches!(
        events.last(),
        Some(Event::Finished { usage, .. }) if *usage == finished.usage
    ));
}

// Bad model input, events, Send.

#[test]
fn odd_model_input_never_panics_and_every_call_id_gets_one_result() {
    let registry = registry();
    let long_name = "x".repeat(10_000);
    let model = Scripted::new([
        calls([
            call("d", "a_read", json!({})),
            call("d", "g_read", json!({})),
            call("s", "a_read", json!("not an object")),
            call("n", "a_scoped", Value::Null),
            call("e", "", json!({})),
            call("l", &long_name, json!([1, 2])),
        ]),
        answer("Sorry."),
    ]);
    let (end, events) = Host::new().start(&Agent::new(&registry, &model), "Go");
    assert_eq!(finished(end).status, RunStatus::Completed);
    let seen = model.seen();
    let Message::Assistant { calls, .. } = &seen[1].messages[1] else {
        panic!("expected the assistant's calls");
    };
    let ids: Vec<&str> = calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["d", "s", "n", "e", "l"], "the repeated id is dropped");
    let results = tool_results(&seen[1].messages);
    let answered: Vec<&str> = results.iter().map(|(id, ..)| id.as_str()).collect();
    assert_eq!(answered, ids);
    assert_eq!(results[0], result("d", "ARead", false));
    assert!(results[1..].iter().all(|(_, _, is_error)| *is_error));
    assert!(results[1].1.contains("(root)"), "{}", results[1].1);
    // The raw response, duplicate included, is in the events.
    assert!(matches!(&events[3], Event::ResponseReceived { calls, .. } if calls.len() == 6));
}

#[test]
fn events_are_serializable_and_stream_live_to_a_closure() {
    let registry = registry();
    let host = Host::writer();
    let model = Scripted::new([calls([
        call("c1", "a_admin", json!({})),
        write_call("w1", "r1", "v"),
    ])]);
    let agent = Agent::new(&registry, &model);
    let mut live = Vec::new();
    let mut sink = |event: &Event| live.push(event.clone().into_owned());
    let end = block_on(agent.start(
        vec![Message::system("Be brief."), Message::user("Go")],
        host.inputs(),
        &host.cx(),
        &mut sink,
    ));
    let _ = suspended(end);
    assert_eq!(
        kinds(&live),
        [
            "round_started",
            "context_budget",
            "request_sent",
            "response_received",
            "tool_executed",
            "tool_executed",
            "suspended"
        ]
    );
    let json = serde_json::to_string(&live).unwrap();
    let back: Vec<Event> = serde_json::from_str(&json).unwrap();
    assert_eq!(back, live);
    let value: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(value[4]["tool"], "a_admin");
    assert_eq!(value[4]["result"]["kind"], "output");
    assert_eq!(value[5]["result"]["kind"], "proposed");
    assert_eq!(value[6]["proposal"]["summary"], "set r1 to v");
}

#[test]
fn run_futures_are_send() {
    fn assert_send<T: Send>(_: &T) {}
    let registry = registry();
    let host = Host::writer();
    let model = Scripted::new([]);
    let agent = Agent::new(&registry, &model).budget(|_: &Spent| Ok(()));
    let cx = host.cx();
    let mut events: Vec<Event> = Vec::new();
    let start = agent.start(Vec::new(), host.inputs(), &cx, &mut events);
    assert_send(&start);
    drop(start);
    let (stored, _) = suspend(&host, calls([write_call("w1", "r1", "v")]));
    let state: RunState = serde_json::from_str(&stored).unwrap();
    let decision = Decision::Approved { approver: admin() };
    let resume = agent.resume(
        state,
        decision,
        host.inputs(),
        &host.approvals,
        &cx,
        &mut events,
    );
    assert_send(&resume);
}

/// A sink that says it is not listening and fails the test if it is told
/// anything.
struct Deaf;

impl EventSink for Deaf {
    fn event(&mut self, event: &Event<'_>) {
        panic!("a sink that is not listening got {event:?}");
    }

    fn is_listening(&self) -> bool {
        false
    }
}

#[test]
fn a_sink_that_is_not_listening_gets_no_event_and_the_run_is_the_same() {
    let registry = registry();
    let script = || {
        Scripted::new([
            calls([
                call("c1", "a_read", json!({})),
                call("c2", "a_count", json!({})),
            ]),
            answer("Done."),
        ])
    };
    let (heard, deaf) = (script(), script());
    let host = Host::new();
    let (listened, events) = host.start(&Agent::new(&registry, &heard), "Go");
    let unheard = block_on(Agent::new(&registry, &deaf).start(
        vec![Message::user("Go")],
        host.inputs(),
        &host.cx(),
        &mut Deaf,
    ));
    assert!(events.len() > 5);
    assert_eq!(finished(unheard), finished(listened));
    let requests = |model: &Scripted| {
        model
            .seen()
            .into_iter()
            .map(|seen| (seen.messages, seen.tools))
            .collect::<Vec<_>>()
    };
    assert_eq!(requests(&deaf), requests(&heard));
}

// Dry runs and the context budget.

#[test]
fn a_dry_run_assembles_the_first_request_exactly_without_asking_the_model() {
    let registry = registry();
    let host = Host::new();
    let messages = vec![Message::system("Be brief."), Message::user("Count")];
    let idle = Scripted::new([]).openai();
    let dry = Agent::new(&registry, &idle).dry_run(messages.clone(), host.inputs());
    assert!(idle.seen().is_empty(), "a dry run asks no model");
    assert_eq!(dry.messages, messages);
    let names: Vec<&str> = dry.grant.tool_names().collect();
    assert!(names.contains(&"a_count") && !names.contains(&"a_admin"));

    // A real run sends exactly that as its first request.
    let model = Scripted::new([answer("Three.")]).openai();
    let end =
        block_on(Agent::new(&registry, &model).start(messages, host.inputs(), &host.cx(), &mut ()));
    let _ = finished(end);
    let seen = model.seen();
    assert_eq!(seen[0].messages, dry.messages);
    assert_eq!(seen[0].tools, dry.tools);
    assert!(
        dry.tools
            .as_ref()
            .is_some_and(|tools| tools[0]["type"] == "function"),
        "the tools are in the model's provider's form"
    );
}

#[test]
fn a_dry_run_with_nothing_granted_offers_no_tools_field() {
    let registry = registry();
    let mut host = Host::new();
    host.selection = Selection::Only(BTreeSet::new());
    let model = Scripted::new([]);
    let dry = Agent::new(&registry, &model).dry_run(vec![Message::user("Hi")], host.inputs());
    assert_eq!(dry.tools, None);
    assert_eq!(dry.budget.tool_schemas, 0);
}

#[test]
fn every_round_opens_with_a_context_budget_whose_parts_sum_to_its_total() {
    let registry = registry();
    let host = Host::new();
    let model = Scripted::new([calls([call("c1", "a_read", json!({}))]), answer("Read.")]);
    let skills = "## Skill: tidy\nKeep titles short.";
    let system = format!("You work on a site.\n\n{skills}");
    let window = ContextWindow::new(10_000, 1_000);
    let agent = Agent::new(&registry, &model)
        .context_window(window)
        .skill_bytes(skills.len());
    let mut events = Vec::new();
    let end = block_on(agent.start(
        vec![Message::system(system.clone()), Message::user("Read it")],
        host.inputs(),
        &host.cx(),
        &mut events,
    ));
    let _ = finished(end);
    let budgets: Vec<(u32, ContextBudget)> = events
        .iter()
        .filter_map(|event| match event {
            Event::ContextBudget { round, budget } => Some((*round, *budget)),
            _ => None,
        })
        .collect();
    assert_eq!(
        budgets.iter().map(|(round, _)| *round).collect::<Vec<_>>(),
        [1, 2]
    );
    let seen = model.seen();
    for ((_, budget), request) in budgets.iter().zip(&seen) {
        assert_eq!(budget.limits, window);
        assert_eq!(window.safety_margin, 1_000);
        let tools: u64 = request
            .tools
            .iter()
            .flatten()
            .map(|tool| estimate_tokens(&tool.to_string()))
            .sum();
        assert_eq!(budget.tool_schemas, tools);
        assert!(budget.tool_schemas > 0);
        assert_eq!(budget.skills, estimate_tokens(skills));
        assert_eq!(
            budget.system_prompt + budget.skills,
            MESSAGE_OVERHEAD_TOKENS + estimate_tokens(&system)
        );
        assert_eq!(
            budget.total(),
            budget.system_prompt + budget.skills + budget.tool_schemas + budget.transcript
        );
        assert_eq!(
            budget.left(),
            10_000 - 1_000 - 1_000 - budget.total() as i64
        );
    }
    // The transcript grows by the call and its result.
    assert_eq!(
        budgets[0].1.transcript,
        MESSAGE_OVERHEAD_TOKENS + estimate_tokens("Read it")
    );
    assert!(budgets[1].1.transcript > budgets[0].1.transcript);
    // The budget is sent before its request, after the round starts.
    let kinds = kinds(&events);
    assert_eq!(
        &kinds[..3],
        ["round_started", "context_budget", "request_sent"]
    );
}

#[test]
fn a_request_larger_than_the_window_has_negative_room_left() {
    let budget = ContextBudget::estimate(
        ContextWindow::new(100, 20),
        &[Message::user("x".repeat(400))],
        None,
        0,
    );
    assert_eq!(budget.transcript, MESSAGE_OVERHEAD_TOKENS + 100);
    assert_eq!(budget.left(), 100 - 20 - 10 - 104);
}
