//! The agent loop with calls that take time: parallel read calls, a write
//! call among them, a run cancelled by the host, and the progress calls
//! report while they run, on a manual clock.

mod clock;

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tool_core::agent::{
    Agent, Event, Message, Model, ModelError, ModelRequest, ModelResponse, RunEnd, RunStatus,
    ToolCall,
};
use tool_core::calls::{CancelToken, ManualTimer, Timer};
use tool_core::export::Provider;
use tool_core::gates::{HostSettings, RunConfig, RunInputs, Selection, Toggle, ToolSettings};
use tool_core::{
    Execute, Proposal, Registry, RunId, Tool, ToolContext, ToolError, ToolOutput, Write,
};

use clock::{drive, drive_with, secs};

/// Sleeps as long as asked, on the test's clock, and says when it started.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(data = "public", group = "slow", effect = "read")]
struct Nap {
    /// Seconds to sleep.
    seconds: u64,
}

impl Execute for Nap {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let timer = cx.service::<ManualTimer>()?;
        let started = timer.now().as_secs();
        timer.sleep(Duration::from_secs(self.seconds)).await;
        Ok(ToolOutput::text(format!(
            "slept {} from {started}",
            self.seconds
        )))
    }
}

/// Counts to `to`, a second apart on the test's clock, reporting each
/// number as progress.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(data = "public", group = "slow", effect = "read")]
struct Count {
    /// Where to stop.
    to: u64,
}

impl Execute for Count {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let timer = cx.service::<ManualTimer>()?;
        for done in 1..=self.to {
            timer.sleep(Duration::from_secs(1)).await;
            cx.progress(done, Some(self.to), &format!("counted {done}"));
        }
        Ok(ToolOutput::text(format!("counted to {}", self.to)))
    }
}

/// Reports a thousand times without ever waiting.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(data = "public", group = "slow", effect = "read")]
struct Chatter {}

impl Execute for Chatter {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        for done in 1..=1000 {
            cx.progress(done, None, "chattering");
        }
        Ok(ToolOutput::text("done chattering"))
    }
}

/// Proposes, noting when.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(data = "public", group = "slow", effect = "write")]
struct Note {}

impl Write for Note {
    async fn propose(self, cx: &ToolContext) -> Result<Proposal, ToolError> {
        let started = cx.service::<ManualTimer>()?.now().as_secs();
        Ok(Proposal::new(
            "note",
            Vec::new(),
            format!("note at {started}"),
        ))
    }
    async fn apply(_proposal: &Proposal, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("noted"))
    }
}

/// Answers from a script.
struct Scripted(Mutex<VecDeque<ModelResponse>>);

impl Scripted {
    fn new(script: impl IntoIterator<Item = ModelResponse>) -> Self {
        Scripted(Mutex::new(script.into_iter().collect()))
    }
}

impl Model for Scripted {
    fn provider(&self) -> Provider {
        Provider::Anthropic
    }

    async fn complete(&self, _request: ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
        Ok(self
            .0
            .lock()
            .unwrap()
            .pop_front()
            .expect("asked more often than scripted"))
    }
}

fn call(id: &str, name: &str, arguments: Value) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments,
    }
}

fn calls(list: Vec<ToolCall>) -> ModelResponse {
    ModelResponse {
        calls: list,
        ..ModelResponse::default()
    }
}

fn answer(text: &str) -> ModelResponse {
    ModelResponse {
        text: text.into(),
        ..ModelResponse::default()
    }
}

fn settings() -> HostSettings {
    let mut settings = HostSettings::default();
    settings.tools.insert(
        "note".into(),
        ToolSettings {
            state: Toggle::Enabled,
            ..ToolSettings::default()
        },
    );
    settings
}

fn inputs<'a>(settings: &'a HostSettings, config: &'a RunConfig) -> RunInputs<'a> {
    RunInputs {
        settings,
        actor: None,
        config,
        skills: &[],
        selection: &Selection::All,
    }
}

/// The tool messages of a conversation: (call id, content).
fn results(messages: &[Message]) -> Vec<(String, String)> {
    messages
        .iter()
        .filter_map(|m| match m {
            Message::Tool {
                call_id, content, ..
            } => Some((call_id.clone(), content.clone())),
            _ => None,
        })
        .collect()
}

fn three_naps() -> Vec<ToolCall> {
    vec![
        call("c1", "nap", json!({"seconds": 3})),
        call("c2", "nap", json!({"seconds": 1})),
        call("c3", "nap", json!({"seconds": 2})),
    ]
}

#[test]
fn read_calls_of_one_response_run_at_once_and_answer_in_the_models_order() {
    let timer = ManualTimer::new();
    let registry = Registry::linked().unwrap();
    let model = Scripted::new([calls(three_naps()), answer("rested")]);
    let (settings, config) = (settings(), RunConfig::default());
    let cx = ToolContext::new(RunId("run".into())).with_service(timer.clone());
    let agent = Agent::new(&registry, &model).mark_results(false);
    let driven = drive(
        &timer,
        agent.start(
            vec![Message::user("rest")],
            inputs(&settings, &config),
            &cx,
            &mut (),
        ),
    );
    let RunEnd::Finished(finished) = driven.output else {
        panic!("no write call")
    };
    assert_eq!(finished.status, RunStatus::Completed);
    // All three started at 0: the run took the longest call's time.
    assert_eq!(driven.at, Duration::from_secs(3));
    assert_eq!(
        results(&finished.messages),
        [
            ("c1".to_owned(), "slept 3 from 0".to_owned()),
            ("c2".to_owned(), "slept 1 from 0".to_owned()),
            ("c3".to_owned(), "slept 2 from 0".to_owned()),
        ]
    );
}

#[test]
fn one_parallel_call_runs_them_one_after_another() {
    let timer = ManualTimer::new();
    let registry = Registry::linked().unwrap();
    let model = Scripted::new([calls(three_naps()), answer("rested")]);
    let (settings, config) = (settings(), RunConfig::default());
    let cx = ToolContext::new(RunId("run".into())).with_service(timer.clone());
    let agent = Agent::new(&registry, &model)
        .mark_results(false)
        .parallel_calls(1);
    let driven = drive(
        &timer,
        agent.start(vec![], inputs(&settings, &config), &cx, &mut ()),
    );
    assert_eq!(driven.at, Duration::from_secs(6));
    assert_eq!(driven.steps, 3);
}

#[test]
fn the_limit_bounds_how_many_run_at_once() {
    let timer = ManualTimer::new();
    let registry = Registry::linked().unwrap();
    let naps = (0..4)
        .map(|i| call(&format!("c{i}"), "nap", json!({"seconds": 1})))
        .collect();
    let model = Scripted::new([calls(naps), answer("rested")]);
    let (settings, config) = (settings(), RunConfig::default());
    let cx = ToolContext::new(RunId("run".into())).with_service(timer.clone());
    let agent = Agent::new(&registry, &model)
        .mark_results(false)
        .parallel_calls(2);
    let driven = drive(
        &timer,
        agent.start(vec![], inputs(&settings, &config), &cx, &mut ()),
    );
    // Two at a time: two steps of one second.
    assert_eq!(driven.at, Duration::from_secs(2));
    assert_eq!(driven.steps, 2);
}

#[test]
fn a_write_call_runs_alone_after_the_reads_before_it_and_suspends() {
    let timer = ManualTimer::new();
    let registry = Registry::linked().unwrap();
    let model = Scripted::new([calls(vec![
        call("c1", "nap", json!({"seconds": 2})),
        call("c2", "note", json!({})),
        call("c3", "nap", json!({"seconds": 1})),
    ])]);
    let (settings, config) = (settings(), RunConfig::default());
    let cx = ToolContext::new(RunId("run".into())).with_service(timer.clone());
    let agent = Agent::new(&registry, &model).mark_results(false);
    let driven = drive(
        &timer,
        agent.start(vec![], inputs(&settings, &config), &cx, &mut ()),
    );
    let RunEnd::Suspended(state) = driven.output else {
        panic!("the write call suspends the run")
    };
    // It proposed after the read before it had finished.
    assert_eq!(state.proposal().summary, "note at 2");
    // The read after it waits for the decision.
    assert_eq!(state.remaining().len(), 1);
    assert_eq!(state.remaining()[0].id, "c3");
    assert_eq!(
        results(state.messages()),
        [("c1".to_owned(), "slept 2 from 0".to_owned())]
    );
}

#[test]
fn a_refused_call_does_not_stop_the_others() {
    let timer = ManualTimer::new();
    let registry = Registry::linked().unwrap();
    let model = Scripted::new([
        calls(vec![
            call("c1", "no_such_tool", json!({})),
            call("c2", "nap", json!({"seconds": 1})),
            call("c3", "nap", json!({"seconds": "x"})),
        ]),
        answer("done"),
    ]);
    let (settings, config) = (settings(), RunConfig::default());
    let cx = ToolContext::new(RunId("run".into())).with_service(timer.clone());
    let agent = Agent::new(&registry, &model).mark_results(false);
    let driven = drive(
        &timer,
        agent.start(vec![], inputs(&settings, &config), &cx, &mut ()),
    );
    let RunEnd::Finished(finished) = driven.output else {
        panic!()
    };
    let results = results(&finished.messages);
    assert_eq!(results[0].1, "tool `no_such_tool` is not available");
    assert_eq!(results[1].1, "slept 1 from 0");
    assert!(results[2].1.contains("/seconds"), "{}", results[2].1);
}

#[test]
fn cancelling_mid_call_ends_the_run_cancelled_and_keeps_its_state() {
    let timer = ManualTimer::new();
    let registry = Registry::linked().unwrap();
    let model = Scripted::new([calls(vec![
        call("c1", "nap", json!({"seconds": 1})),
        call("c2", "nap", json!({"seconds": 60})),
        call("c3", "note", json!({})),
    ])]);
    let (settings, config) = (settings(), RunConfig::default());
    let token = CancelToken::new();
    let cx = ToolContext::new(RunId("run".into()))
        .with_service(timer.clone())
        .with_cancel(token.clone());
    let agent = Agent::new(&registry, &model).mark_results(false);
    let driven = drive_with(
        &timer,
        agent.start(
            vec![Message::user("rest")],
            inputs(&settings, &config),
            &cx,
            &mut (),
        ),
        |now| {
            if now >= secs(1.0) {
                token.cancel();
            }
        },
    );
    let RunEnd::Finished(finished) = driven.output else {
        panic!("a cancelled run finishes; it does not suspend")
    };
    assert_eq!(finished.status, RunStatus::Cancelled);
    assert_eq!(finished.answer, None);
    assert!(driven.at < Duration::from_secs(60));
    // The conversation so far, every call answered: the finished one with
    // its result, the others as cancelled. The write call never proposed.
    assert!(matches!(&finished.messages[0], Message::User { .. }));
    assert_eq!(
        results(&finished.messages),
        [
            ("c1".to_owned(), "slept 1 from 0".to_owned()),
            (
                "c2".to_owned(),
                "the call to `nap` was cancelled".to_owned()
            ),
            (
                "c3".to_owned(),
                "the call to `note` was cancelled".to_owned()
            ),
        ]
    );
    let stored = serde_json::to_value(&finished).unwrap();
    assert_eq!(stored["status"], json!({"status": "cancelled"}));
}

#[test]
fn a_run_cancelled_before_a_round_asks_nothing() {
    let timer = ManualTimer::new();
    let registry = Registry::linked().unwrap();
    let model = Scripted::new([]);
    let (settings, config) = (settings(), RunConfig::default());
    let token = CancelToken::new();
    token.cancel();
    let cx = ToolContext::new(RunId("run".into())).with_cancel(token);
    let agent = Agent::new(&registry, &model).mark_results(false);
    let driven = drive(
        &timer,
        agent.start(
            vec![Message::user("hello")],
            inputs(&settings, &config),
            &cx,
            &mut (),
        ),
    );
    let RunEnd::Finished(finished) = driven.output else {
        panic!()
    };
    assert_eq!(finished.status, RunStatus::Cancelled);
    assert_eq!(finished.rounds, 0);
    assert_eq!(finished.messages.len(), 1);
}

/// Takes a minute to answer, on the test's clock.
struct SlowModel(ManualTimer);

impl Model for SlowModel {
    fn provider(&self) -> Provider {
        Provider::Anthropic
    }

    async fn complete(&self, _request: ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
        self.0.sleep(Duration::from_secs(60)).await;
        Ok(answer("late"))
    }
}

#[test]
fn cancelling_while_the_model_thinks_ends_the_run() {
    let timer = ManualTimer::new();
    let registry = Registry::linked().unwrap();
    let model = SlowModel(timer.clone());
    let (settings, config) = (settings(), RunConfig::default());
    let token = CancelToken::new();
    let cx = ToolContext::new(RunId("run".into())).with_cancel(token.clone());
    let agent = Agent::new(&registry, &model).mark_results(false);
    let driven = drive_with(
        &timer,
        agent.start(
            vec![Message::user("hello")],
            inputs(&settings, &config),
            &cx,
            &mut (),
        ),
        |_| token.cancel(),
    );
    let RunEnd::Finished(finished) = driven.output else {
        panic!()
    };
    assert_eq!(finished.status, RunStatus::Cancelled);
    assert_eq!(finished.rounds, 1);
    assert_eq!(driven.at, Duration::ZERO);
}

/// The progress events of `events`: (call id, done), in order, and where
/// each call's result came.
fn progress_and_results(events: &[Event<'static>]) -> Vec<(String, Option<u64>)> {
    events
        .iter()
        .filter_map(|event| match event {
            Event::ToolProgress { call_id, done, .. } => Some((call_id.clone(), Some(*done))),
            Event::ToolExecuted { call_id, .. } => Some((call_id.to_string(), None)),
            _ => None,
        })
        .collect()
}

#[test]
fn progress_reaches_the_events_while_the_calls_run_each_naming_its_call() {
    let timer = ManualTimer::new();
    let registry = Registry::linked().unwrap();
    let model = Scripted::new([
        calls(vec![
            call("c1", "count", json!({"to": 3})),
            call("c2", "count", json!({"to": 1})),
        ]),
        answer("counted"),
    ]);
    let (settings, config) = (settings(), RunConfig::default());
    let cx = ToolContext::new(RunId("run".into())).with_service(timer.clone());
    let agent = Agent::new(&registry, &model).mark_results(false);
    let mut events: Vec<Event<'static>> = Vec::new();
    drive(
        &timer,
        agent.start(vec![], inputs(&settings, &config), &cx, &mut events),
    );
    // Each report as it was made (a second apart), before the results,
    // which come in the model's order once both calls are done.
    let c1 = |done| ("c1".to_owned(), done);
    let c2 = |done| ("c2".to_owned(), done);
    assert_eq!(
        progress_and_results(&events),
        [
            c1(Some(1)),
            c2(Some(1)),
            c1(Some(2)),
            c1(Some(3)),
            c1(None),
            c2(None)
        ]
    );
    let Some(Event::ToolProgress {
        tool,
        total,
        message,
        round,
        ..
    }) = events
        .iter()
        .find(|e| matches!(e, Event::ToolProgress { .. }))
    else {
        panic!("no progress")
    };
    assert_eq!(
        (tool.as_str(), *total, message.as_str(), *round),
        ("count", Some(3), "counted 1", 1)
    );
}

#[test]
fn reports_made_faster_than_the_loop_looks_fold_into_the_newest() {
    let timer = ManualTimer::new();
    let registry = Registry::linked().unwrap();
    let model = Scripted::new([calls(vec![call("c1", "chatter", json!({}))]), answer("ok")]);
    let (settings, config) = (settings(), RunConfig::default());
    let cx = ToolContext::new(RunId("run".into())).with_service(timer.clone());
    let agent = Agent::new(&registry, &model).mark_results(false);
    let mut events: Vec<Event<'static>> = Vec::new();
    drive(
        &timer,
        agent.start(vec![], inputs(&settings, &config), &cx, &mut events),
    );
    assert_eq!(
        progress_and_results(&events),
        [("c1".to_owned(), Some(1000)), ("c1".to_owned(), None)]
    );
}

#[test]
fn the_hosts_own_progress_sink_still_hears_every_report_of_a_run() {
    let timer = ManualTimer::new();
    let registry = Registry::linked().unwrap();
    let model = Scripted::new([calls(vec![call("c1", "chatter", json!({}))]), answer("ok")]);
    let (settings, config) = (settings(), RunConfig::default());
    let heard = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let counter = std::sync::Arc::clone(&heard);
    let cx = ToolContext::new(RunId("run".into()))
        .with_service(timer.clone())
        .with_progress_sink(move |_done, _total, _message: &str| {
            counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        });
    let agent = Agent::new(&registry, &model).mark_results(false);
    let mut events: Vec<Event<'static>> = Vec::new();
    drive(
        &timer,
        agent.start(vec![], inputs(&settings, &config), &cx, &mut events),
    );
    assert_eq!(heard.load(std::sync::atomic::Ordering::Relaxed), 1000);
}
