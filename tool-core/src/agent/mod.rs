//! The agent loop (docs/agent-loop.md): a bounded conversation
//! between a [`Model`] and the tools a run is granted, independent of any
//! provider and of any async runtime.
//!
//! A host implements [`Model`] once per provider, builds an [`Agent`], and
//! [`start`](Agent::start)s a run with the settings as they are now
//! ([`RunInputs`]). The loop:
//!
//! 1. resolves the run's [`Grant`] through the gates, once;
//! 2. before every round, runs the host's [`Budget`] check, if any;
//! 3. sends the messages and the offered tools
//!    ([`export::offered_tools`] in the model's
//!    [`Provider`](crate::export::Provider) form; `None`,
//!    never an empty list, when nothing is offered);
//! 4. runs the calls of the answer through the gated call path
//!    ([`Gates::call`] with the run's grant; arguments from OpenAI are
//!    [normalized](export::normalize_arguments) first) and sends back one
//!    [`Message::Tool`] per call id, in the order the model made the calls:
//!    the result, or the error's
//!    [model-facing text](crate::ToolError::model_text). Read calls run at
//!    once, up to [`Agent::parallel_calls`] (default 4); a call to a write
//!    tool waits for the calls before it and runs alone (it may suspend the
//!    run). A refused or failed call does not stop the others;
//! 5. asks again, until the model answers without calls
//!    ([`RunStatus::Completed`]) or the round cap is reached (default 5,
//!    [`Agent::max_rounds`]). At the cap, with calls answered but pending a
//!    reply, one last request *without tools* asks for a closing answer and
//!    the run ends [`RunStatus::Truncated`].
//!
//! Every step is an [`Event`] sent to the host's [`EventSink`]. Events and
//! requests borrow what the run holds: nothing of the conversation, the
//! offered tools or the model's answer is copied to ask the model or to
//! tell a sink, and for a sink that is not listening (`()`) no event is
//! built at all.
//!
//! A host stops a run with the [`CancelToken`](crate::calls::CancelToken)
//! of its context: the call in flight (or the request to the model) is
//! dropped, every call not answered is answered "cancelled", and the run
//! ends [`RunStatus::Cancelled`] with the conversation so far. Applying an
//! approved proposal is never cut short ([`calls`](crate::calls)).
//!
//! (The examples are standalone crates: each links only its own tools.)
//!
//! ```standalone_crate
//! use schemars::JsonSchema;
//! use serde::Deserialize;
//! use serde_json::json;
//! use tool_core::agent::{
//!     Agent, Event, Message, Model, ModelError, ModelRequest, ModelResponse, RunEnd, RunStatus,
//!     ToolCall,
//! };
//! use tool_core::export::Provider;
//! use tool_core::gates::{HostSettings, RunConfig, RunInputs, Selection};
//! use tool_core::{Execute, Registry, RunId, Tool, ToolContext, ToolError, ToolOutput};
//!
//! /// Add two numbers.
//! #[derive(Tool, Deserialize, JsonSchema)]
//! #[tool(data = "public", group = "math", effect = "read")]
//! struct AddNumbers {
//!     /// The first number.
//!     a: i64,
//!     /// The second number.
//!     b: i64,
//! }
//!
//! impl Execute for AddNumbers {
//!     async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
//!         Ok(ToolOutput::text((self.a + self.b).to_string()))
//!     }
//! }
//!
//! /// Stands in for a provider's client: asks for one sum, then answers.
//! struct Arithmetician;
//!
//! impl Model for Arithmetician {
//!     fn provider(&self) -> Provider {
//!         Provider::Anthropic
//!     }
//!
//!     async fn complete(&self, request: ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
//!         // `request.tools` holds `add_numbers` in Anthropic's form.
//!         assert_eq!(request.tools.map(<[_]>::len), Some(1));
//!         Ok(match request.messages.last() {
//!             // The result arrives marked as data (`mark_tool_result`):
//!             // `<tool_result tool="add_numbers">`, a note, `5`, the end.
//!             Some(Message::Tool { content, .. }) => ModelResponse {
//!                 text: format!("2 + 3 = {}", content.lines().rev().nth(1).unwrap_or_default()),
//!                 ..ModelResponse::default()
//!             },
//!             _ => ModelResponse {
//!                 calls: vec![ToolCall {
//!                     id: "call-1".into(),
//!                     name: "add_numbers".into(),
//!                     arguments: json!({"a": 2, "b": 3}),
//!                 }],
//!                 ..ModelResponse::default()
//!             },
//!         })
//!     }
//! }
//!
//! # futures_executor::block_on(async {
//! let registry = Registry::linked().expect("no duplicate or invalid tools");
//! // The settings as they are now, from the host's storage.
//! let settings = HostSettings::default();
//! let config = RunConfig::default();
//! let inputs = RunInputs {
//!     settings: &settings,
//!     actor: None,
//!     config: &config,
//!     skills: &[],
//!     selection: &Selection::All,
//! };
//! let cx = ToolContext::new(RunId("run-1".into()));
//!
//! let agent = Agent::new(&registry, &Arithmetician);
//! let mut events: Vec<Event> = Vec::new();
//! let end = agent.start(vec![Message::user("What is 2 + 3?")], inputs, &cx, &mut events).await;
//! let RunEnd::Finished(finished) = end else {
//!     panic!("no write tool was called, so nothing waits for approval");
//! };
//! assert_eq!(finished.status, RunStatus::Completed);
//! assert_eq!(finished.answer.as_deref(), Some("2 + 3 = 5"));
//! assert_eq!(finished.rounds, 2);
//! assert!(matches!(events.last(), Some(Event::Finished { .. })));
//! # });
//! ```
//!
//! # Suspension and resumption
//!
//! A call to a `write` tool returns a proposal and writes nothing: the run
//! is suspended ([`RunEnd::Suspended`]) with a [`RunState`] the host stores
//! (it serializes with serde and carries a format version) while an
//! approver decides. [`Agent::resume`] continues it, in this process or
//! another, with the [`Decision`]:
//!
//! - the run continues against `stored ∩ now` ([`Grant::resume`]): a change
//!   while it waited can take a tool away, never add one;
//! - **approved**: the call is checked again against that grant and the
//!   gates as they are now, then [`Approval::approve`] checks that the
//!   approver passes the gates for the tool and applies the proposal. The applied
//!   result (or the error, such as a stale proposal) is the call's result;
//! - **rejected**: nothing is written; the call's result is an error saying
//!   so, with the approver's reason. **Expired** (nobody decided in time):
//!   nothing is written; the call's result is an error saying it expired. The decision is recorded in the events,
//!   in later states and in [`Finished::decisions`];
//! - the **other calls of the same response** after the suspended one run
//!   after the decision, in order, against the resumed grant (a second write
//!   call among them suspends the run again). So the model gets exactly one
//!   result for every call id, in the order it made the calls.
//!
//! ```standalone_crate
//! # use schemars::JsonSchema;
//! # use serde::Deserialize;
//! # use serde_json::json;
//! # use tool_core::agent::{Agent, Decision, Message, Model, ModelError, ModelRequest, ModelResponse, RunEnd, RunState, ToolCall};
//! # use tool_core::approval::MemoryApprovals;
//! # use tool_core::export::Provider;
//! # use tool_core::gates::{HostSettings, RunConfig, RunInputs, Selection, ToolSettings, Toggle};
//! # use tool_core::{Actor, Change, Proposal, Registry, RunId, Tool, ToolContext, ToolError, ToolOutput, Write};
//! /// Rename a page.
//! #[derive(Tool, Deserialize, JsonSchema)]
//! #[tool(data = "public", group = "pages", effect = "write")]
//! struct RenamePage {
//!     /// The page.
//!     page: String,
//!     /// Its new title.
//!     title: String,
//! }
//!
//! impl Write for RenamePage {
//!     async fn propose(self, _cx: &ToolContext) -> Result<Proposal, ToolError> {
//!         Ok(Proposal::new(
//!             self.page.clone(),
//!             vec![Change { field: "title".into(), new: json!(self.title), replaces: json!("Old") }],
//!             format!("rename {} to {}", self.page, self.title),
//!         ))
//!     }
//!     async fn apply(proposal: &Proposal, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
//!         Ok(ToolOutput::text(format!("renamed {}", proposal.record)))
//!     }
//! }
//!
//! struct Editor;
//!
//! impl Model for Editor {
//!     fn provider(&self) -> Provider { Provider::OpenAi }
//!     async fn complete(&self, request: ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
//!         Ok(match request.messages.last() {
//!             Some(Message::Tool { content, .. }) => ModelResponse {
//!                 // The applied result, inside its mark.
//!                 text: content.lines().rev().nth(1).unwrap_or_default().to_owned(),
//!                 ..Default::default()
//!             },
//!             _ => ModelResponse {
//!                 calls: vec![ToolCall {
//!                     id: "call-1".into(),
//!                     name: "rename_page".into(),
//!                     arguments: json!({"page": "home", "title": "Welcome"}),
//!                 }],
//!                 ..Default::default()
//!             },
//!         })
//!     }
//! }
//!
//! # futures_executor::block_on(async {
//! let registry = Registry::linked().unwrap();
//! // Write tools ship disabled: an administrator enabled this one.
//! let mut settings = HostSettings::default();
//! settings.tools.insert("rename_page".into(), ToolSettings { state: Toggle::Enabled, ..ToolSettings::default() });
//! let (config, author) = (RunConfig::default(), Actor { id: "ada".into(), admin: false });
//! let inputs = RunInputs { settings: &settings, actor: Some(&author), config: &config, skills: &[], selection: &Selection::All };
//! let cx = ToolContext::new(RunId("run-2".into())).with_actor(author.clone());
//!
//! let agent = Agent::new(&registry, &Editor);
//! let end = agent.start(vec![Message::user("Rename the home page")], inputs, &cx, &mut ()).await;
//! let RunEnd::Suspended(state) = end else { panic!("a write call suspends the run") };
//! assert_eq!(state.proposal().summary, "rename home to Welcome");
//! let stored = serde_json::to_string(&state).unwrap();
//!
//! // Later, perhaps in another process, with the settings as they are then:
//! let state: RunState = serde_json::from_str(&stored).unwrap();
//! let approver = Actor { id: "grace".into(), admin: false };
//! let approvals = MemoryApprovals::new();
//! let end = agent.resume(state, Decision::Approved { approver }, inputs, &approvals, &cx, &mut ()).await;
//! let RunEnd::Finished(finished) = end else { panic!("nothing else to approve") };
//! assert_eq!(finished.answer.as_deref(), Some("renamed home"));
//! # });
//! ```
//!
//! # Events
//!
//! In order, for a run: [`Event::RoundStarted`], [`Event::ContextBudget`]
//! (an estimate of where the request's context window goes: see
//! [`ContextBudget`]), [`Event::RequestSent`] (messages and tools offered),
//! [`Event::ResponseReceived`] (text, calls, usage, and the thinking and
//! raw answer where the model gives them), one [`Event::ToolExecuted`] per call (name, arguments, result or
//! error with the gate that refused, duration), then either the next round,
//! [`Event::Suspended`] or [`Event::Finished`] (answer, status, usage).
//! A resumed run starts with [`Event::Resumed`] (the decision).
//!
//! # Bad model input
//!
//! Nothing a model sends panics the loop. A name that is no tool, or a tool
//! not granted, is refused with the same neutral text ("tool `x` is not
//! available"); arguments that are not an object, or do not match the
//! schema, come back as an error naming the JSON path, so the model can
//! retry. When one response repeats a call id, only the first call with it
//! runs; the later ones are dropped (with a `tracing` warning) so that each
//! id has exactly one result. Calls in the answer to the closing request of
//! a truncated run are not run (no tools were offered) and are not kept in
//! the conversation. Token sums saturate.
//!
//! See also docs/agent-loop.md.
//!
//! [`Approval::approve`]: crate::approval::Approval::approve

mod event;
mod exposure;
mod model;
mod progress;
mod resume;
mod state;
mod steps;
mod window;

use std::borrow::Cow;
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::future::{Either, select};
use futures_util::stream::{self, StreamExt};
use serde_json::Value;

pub use event::{CallResult, Event, EventSink};
pub use model::{Message, Model, ModelError, ModelRequest, ModelResponse, ToolCall, Usage};
pub use state::{
    Budget, BudgetExceeded, Decision, Finished, PendingApproval, ProposalDecision,
    RUN_STATE_FORMAT, RunEnd, RunState, RunStatus, Spent,
};
pub use steps::{TOOL_RESULT_NOTE, mark_tool_result};
pub use window::{ContextBudget, ContextWindow, MESSAGE_OVERHEAD_TOKENS, estimate_tokens};

use progress::CallProgress;
use steps::{cancelled, distinct_ids, finish, tool_message};

use crate::export;
use crate::exposure::Exposure;
use crate::gates::{Gates, Grant, RunInputs};
use crate::{BoxFuture, Effect, Outcome, Registry, ToolContext, ToolError};

/// The round cap when none is set.
pub const DEFAULT_MAX_ROUNDS: u32 = 5;

/// How many read calls of one response run at once unless the host sets
/// another limit ([`Agent::parallel_calls`]).
pub const DEFAULT_PARALLEL_CALLS: usize = 4;

/// The user message of the closing request of a truncated run.
pub const DEFAULT_CLOSING_PROMPT: &str = "The limit of tool-call rounds for this run is reached. \
     Do not call any tool: answer now with what you have.";

/// The loop's configuration, for one registry and one model. Cheap to
/// build; shared by reference, so one `Agent` can drive many runs.
pub struct Agent<'a, M> {
    registry: &'a Registry,
    model: &'a M,
    max_rounds: u32,
    closing_prompt: Cow<'static, str>,
    budget: Option<Box<dyn Budget + 'a>>,
    parallel_calls: usize,
    window: ContextWindow,
    skill_bytes: usize,
    mark_results: bool,
    read_before: Arc<Exposure>,
}

/// What the first request of a run would send ([`Agent::dry_run`]).
#[derive(Debug, Clone, PartialEq)]
pub struct DryRun {
    /// The run's grant, resolved as [`Agent::start`] would.
    pub grant: Grant,
    /// The messages sent.
    pub messages: Vec<Message>,
    /// The tools offered, in the model's provider's form; `None` for none.
    pub tools: Option<Vec<Value>>,
    /// The estimate of where the request's context window goes.
    pub budget: ContextBudget,
}

/// What is left of a run while it is driven: everything of a
/// [`RunState`] but the suspension.
struct Run {
    messages: Vec<Message>,
    grant: Grant,
    round: u32,
    usage: Usage,
    decisions: Vec<ProposalDecision>,
    /// What its tool results have brought in (gate 9); shared with each
    /// call's context, copied only when it rises.
    exposure: Arc<Exposure>,
    /// Whether its tool results reach the model marked as data.
    marked: bool,
}

impl<'a, M: Model> Agent<'a, M> {
    /// A loop over `registry`'s tools, asking `model`; the round cap is
    /// [`DEFAULT_MAX_ROUNDS`] and there is no budget check.
    pub fn new(registry: &'a Registry, model: &'a M) -> Self {
        Agent {
            registry,
            model,
            max_rounds: DEFAULT_MAX_ROUNDS,
            closing_prompt: Cow::Borrowed(DEFAULT_CLOSING_PROMPT),
            budget: None,
            parallel_calls: DEFAULT_PARALLEL_CALLS,
            window: ContextWindow::default(),
            skill_bytes: 0,
            mark_results: true,
            read_before: Arc::default(),
        }
    }

    /// Says what a run's first messages already bring in (default
    /// nothing): a prompt the host wrote around a record quotes text
    /// people wrote, so the run starts as having read it, and gate 9
    /// holds from its first call.
    pub fn having_read(mut self, exposure: Exposure) -> Self {
        self.read_before = Arc::new(exposure);
        self
    }

    /// Whether each tool result reaches the model marked as data (default
    /// on): between `<tool_result tool="NAME">` and `</tool_result>`,
    /// after [`TOOL_RESULT_NOTE`] ([`mark_tool_result`]), in every provider
    /// form alike. A host that marks results its own way turns it off.
    pub fn mark_results(mut self, marked: bool) -> Self {
        self.mark_results = marked;
        self
    }

    /// Sets the model's context window, which every
    /// [`Event::ContextBudget`] measures against (default
    /// [`ContextWindow::default`]).
    pub fn context_window(mut self, window: ContextWindow) -> Self {
        self.window = window;
        self
    }

    /// Says how many bytes of the system messages are the skills' lines,
    /// so that [`Event::ContextBudget`] counts them apart from the rest of
    /// the system prompt.
    pub fn skill_bytes(mut self, bytes: usize) -> Self {
        self.skill_bytes = bytes;
        self
    }

    /// Sets how many read calls of one response may run at once (default
    /// [`DEFAULT_PARALLEL_CALLS`]; 1 runs them one after another; 0 is
    /// taken as 1). Write calls always run alone.
    pub fn parallel_calls(mut self, calls: usize) -> Self {
        self.parallel_calls = calls.max(1);
        self
    }

    /// Sets the round cap: how many requests may offer tools. At least 1
    /// (0 is taken as 1).
    pub fn max_rounds(mut self, rounds: u32) -> Self {
        self.max_rounds = rounds.max(1);
        self
    }

    /// Sets the user message of the closing request (default
    /// [`DEFAULT_CLOSING_PROMPT`]).
    pub fn closing_prompt(mut self, text: impl Into<Cow<'static, str>>) -> Self {
        self.closing_prompt = text.into();
        self
    }

    /// Sets the budget check run before every round.
    pub fn budget(mut self, budget: impl Budget + 'a) -> Self {
        self.budget = Some(Box::new(budget));
        self
    }

    /// Assembles the first request of a run exactly as [`Agent::start`]
    /// would send it (the grant resolved with `inputs` now, `messages`, the
    /// offered tools in the model's provider's form) without asking the
    /// model or running anything.
    pub fn dry_run(&self, messages: Vec<Message>, inputs: RunInputs<'_>) -> DryRun {
        let gates = Gates::new(self.registry, inputs);
        let grant = gates.resolve().grant;
        // What the run starts having read narrows the first offer too.
        let offered = gates.offer(&grant, &self.read_before);
        let shown = offered.as_ref().map_or(&grant, |(narrowed, _)| narrowed);
        let tools = export::offered_tools(self.registry, shown, self.model.provider());
        let budget =
            ContextBudget::estimate(self.window, &messages, tools.as_deref(), self.skill_bytes);
        DryRun {
            grant,
            messages,
            tools,
            budget,
        }
    }

    /// Starts a run: resolves its grant with `inputs` (the settings as they
    /// are now) and drives it until it finishes or suspends.
    ///
    /// `cx` is the context every call of the run gets (its run id, actor
    /// and the host's services).
    pub async fn start(
        &self,
        messages: Vec<Message>,
        inputs: RunInputs<'_>,
        cx: &ToolContext,
        events: &mut impl EventSink,
    ) -> RunEnd {
        let gates = Gates::new(self.registry, inputs);
        let grant = gates.resolve().grant;
        let run = Run {
            messages,
            grant,
            round: 0,
            usage: Usage::default(),
            decisions: Vec::new(),
            exposure: Arc::clone(&self.read_before),
            marked: self.mark_results,
        };
        self.drive(run, VecDeque::new(), &gates, cx, events).await
    }

    /// The loop: answers the queued calls, then asks again, until the run
    /// finishes or a write call suspends it.
    async fn drive(
        &self,
        mut run: Run,
        mut queue: VecDeque<ToolCall>,
        gates: &Gates<'_>,
        cx: &ToolContext,
        events: &mut impl EventSink,
    ) -> RunEnd {
        // The offered tools change only when the exposure rises: their part
        // of the context estimate is counted then, and only for a sink that
        // reads it.
        let mut offer = self.offer(&run, gates, events);
        let progress = CallProgress::new(events);
        loop {
            while let Some(first) = queue.front() {
                if cx.is_cancelled() {
                    return cancelled(run, queue, events);
                }
                if !self.runs_alone(first) {
                    // The read calls up to the next write call, at once.
                    let reads = queue.iter().take_while(|c| !self.runs_alone(c)).count();
                    let batch: Vec<ToolCall> = queue.drain(..reads).collect();
                    let call_cx = exposed(cx, &run.exposure);
                    let reads = self.run_reads(&run.grant, &batch, gates, &call_cx, &progress);
                    let outcomes = progress.watch(reads, run.round, events).await;
                    for (call, (outcome, duration)) in batch.iter().zip(outcomes) {
                        if let Some(proposal) =
                            self.settle(&mut run, call, outcome, duration, gates, events)
                        {
                            // Only a write tool proposes, and none is in the batch.
                            tracing::error!(target: "tool_core::agent", run = %cx.run(), tool = call.name.as_str(), proposal = %proposal.id(), "a read call proposed; the proposal is dropped");
                            run.messages.push(tool_message(
                                call,
                                Err(&ToolError::NotAvailable {
                                    tool: call.name.clone(),
                                }),
                                run.marked,
                            ));
                        }
                    }
                    continue;
                }
                let Some(call) = queue.pop_front() else { break };
                let call_cx = exposed(cx, &run.exposure);
                let write = self.execute(&run.grant, &call, gates, &call_cx, &progress);
                let (outcome, duration) = progress.watch(write, run.round, events).await;
                if let Some(proposal) =
                    self.settle(&mut run, &call, outcome, duration, gates, events)
                {
                    emit(events, || Event::Suspended {
                        round: run.round,
                        call_id: call.id.clone(),
                        proposal: proposal.clone(),
                    });
                    return RunEnd::Suspended(RunState::suspend(
                        run,
                        PendingApproval { call, proposal },
                        queue.into(),
                    ));
                }
            }
            if cx.is_cancelled() {
                return cancelled(run, queue, events);
            }
            if offer.exposure != run.exposure {
                offer = self.offer(&run, gates, events);
            }

            if let Some(budget) = &self.budget {
                let spent = Spent {
                    rounds: run.round,
                    usage: run.usage,
                };
                if let Err(exceeded) = budget.check(&spent) {
                    let status = RunStatus::Budget {
                        reason: exceeded.reason,
                    };
                    return finish(run, None, status, events);
                }
            }
            // Only reached with every call of the last response answered, so
            // at the cap there are results the model has not yet read.
            let closing = run.round >= self.max_rounds;
            run.round += 1;
            let round = run.round;
            emit(events, || Event::RoundStarted { round });
            let (tools, tool_tokens) = if closing {
                run.messages
                    .push(Message::user(self.closing_prompt.clone()));
                (None, 0)
            } else {
                (offer.tools.as_deref(), offer.tokens)
            };
            emit(events, || Event::ContextBudget {
                round,
                budget: ContextBudget::with_tool_schemas(
                    self.window,
                    &run.messages,
                    tool_tokens,
                    self.skill_bytes,
                ),
            });
            emit(events, || Event::RequestSent {
                round,
                messages: Cow::Borrowed(&run.messages),
                tools: tools.map(Cow::Borrowed),
            });
            let request = ModelRequest {
                messages: &run.messages,
                tools,
            };
            let response = match cx.cancel_token() {
                None => Some(self.model.complete(request).await),
                Some(token) => {
                    let complete = std::pin::pin!(self.model.complete(request));
                    let stop = std::pin::pin!(token.cancelled());
                    match select(complete, stop).await {
                        Either::Left((response, _)) => Some(response),
                        Either::Right(_) => None,
                    }
                }
            };
            let response = match response {
                Some(Ok(response)) => response,
                Some(Err(error)) => {
                    return finish(run, None, RunStatus::Failed { error }, events);
                }
                None => return cancelled(run, VecDeque::new(), events),
            };
            run.usage += response.usage;
            emit(events, || Event::ResponseReceived {
                round,
                text: Cow::Borrowed(&response.text),
                calls: Cow::Borrowed(&response.calls),
                usage: response.usage,
                thinking: response.thinking.as_deref().map(Cow::Borrowed),
                raw: response.raw.as_ref().map(Cow::Borrowed),
            });
            let ModelResponse { text, calls, .. } = response;
            if closing {
                if !calls.is_empty() {
                    tracing::warn!(
                        target: "tool_core::agent",
                        run = %cx.run(),
                        calls = calls.len(),
                        "the closing answer calls tools although none were offered; the calls are dropped",
                    );
                }
                run.messages.push(Message::Assistant {
                    text: text.clone(),
                    calls: Vec::new(),
                });
                return finish(run, Some(text), RunStatus::Truncated, events);
            }
            let calls = distinct_ids(calls, cx);
            if calls.is_empty() {
                run.messages.push(Message::Assistant {
                    text: text.clone(),
                    calls,
                });
                return finish(run, Some(text), RunStatus::Completed, events);
            }
            queue.extend(calls.iter().cloned());
            run.messages.push(Message::Assistant { text, calls });
        }
    }

    /// Whether a call must run by itself: a call to a write tool, which
    /// may suspend the run. A name that is no tool is refused without
    /// running anything, so it may run beside others.
    fn runs_alone(&self, call: &ToolCall) -> bool {
        self.registry
            .get(&call.name)
            .is_some_and(|tool| tool.declaration().effect == Effect::Write)
    }

    /// Runs one call through the gated call path.
    async fn execute(
        &self,
        grant: &Grant,
        call: &ToolCall,
        gates: &Gates<'_>,
        cx: &ToolContext,
        progress: &CallProgress,
    ) -> (Result<Outcome, ToolError>, Duration) {
        let arguments = self.normalized(call);
        let cx = progress.context(cx, call);
        let started = Instant::now();
        let outcome = gates.call(grant, &call.name, arguments, &cx).await;
        (outcome, started.elapsed())
    }

    /// Runs read calls at once, at most [`Agent::parallel_calls`] at a
    /// time, and returns their outcomes in the calls' order.
    async fn run_reads(
        &self,
        grant: &Grant,
        calls: &[ToolCall],
        gates: &Gates<'_>,
        cx: &ToolContext,
        progress: &CallProgress,
    ) -> Vec<(Result<Outcome, ToolError>, Duration)> {
        if let [call] = calls {
            return vec![self.execute(grant, call, gates, cx, progress).await];
        }
        // Boxed and collected first: a lazy `map` held across the await
        // would make the run's future `Send` for one lifetime only
        // (rust-lang/rust#102211), and hosts spawn runs on multi-threaded
        // runtimes.
        let calls: Vec<BoxFuture<'_, _>> = calls
            .iter()
            .map(|call| {
                Box::pin(self.execute(grant, call, gates, cx, progress)) as BoxFuture<'_, _>
            })
            .collect();
        stream::iter(calls)
            .buffered(self.parallel_calls)
            .collect()
            .await
    }

    /// Records a call's outcome: its event, and its answer to the model, or
    /// the proposal of a write call (answered after the decision).
    fn settle(
        &self,
        run: &mut Run,
        call: &ToolCall,
        outcome: Result<Outcome, ToolError>,
        duration: Duration,
        gates: &Gates<'_>,
        events: &mut impl EventSink,
    ) -> Option<crate::Proposal> {
        let brings_in = crate::exposure::brings_in(&outcome);
        // Kept before the outcome moves: its provenance raises the exposure.
        let authored = crate::exposure::carries_authored(&outcome);
        let round = run.round;
        let executed = |result| Event::ToolExecuted {
            round,
            call_id: Cow::Borrowed(&call.id),
            tool: Cow::Borrowed(&call.name),
            arguments: Cow::Borrowed(&call.arguments),
            result,
            duration,
        };
        let proposal = match outcome {
            Ok(Outcome::Done(output)) => {
                run.messages
                    .push(tool_message(call, Ok(&output), run.marked));
                emit(events, || executed(CallResult::Output { output }));
                None
            }
            Ok(Outcome::Proposed(proposal)) => {
                emit(events, || {
                    executed(CallResult::Proposed {
                        proposal: (*proposal).clone(),
                    })
                });
                Some(*proposal)
            }
            Err(error) => {
                run.messages
                    .push(tool_message(call, Err(&error), run.marked));
                emit(events, || executed(CallResult::from_error(&error)));
                None
            }
        };
        // After the call's own event: the call, then what it raised.
        if brings_in {
            self.record_exposure(run, call, authored, gates, events);
        }
        proposal
    }

    /// The call's arguments as the gates should see them: strict mode's
    /// nulls for optional arguments removed ([`export::normalize_arguments`]).
    fn normalized(&self, call: &ToolCall) -> Value {
        match self.registry.get(&call.name) {
            Some(tool) => {
                export::normalize_arguments(tool, self.model.provider(), call.arguments.clone())
            }
            None => call.arguments.clone(),
        }
    }
}

impl<M> std::fmt::Debug for Agent<'_, M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent")
            .field("tools", &self.registry.len())
            .field("max_rounds", &self.max_rounds)
            .field("budget", &self.budget.is_some())
            .finish_non_exhaustive()
    }
}

/// `cx` carrying the run's exposure for gate 9; `cx` as it is while the
/// run has read nothing.
fn exposed(cx: &ToolContext, exposure: &Arc<Exposure>) -> ToolContext {
    if exposure.is_empty() {
        cx.clone()
    } else {
        cx.clone().with_exposure(Arc::clone(exposure))
    }
}

/// Tells `events` of a step, building the event only for a sink that
/// listens.
fn emit<'e>(events: &mut impl EventSink, event: impl FnOnce() -> Event<'e>) {
    if events.is_listening() {
        events.event(&event());
    }
}
