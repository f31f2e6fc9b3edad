//! [`McpServer`]: rmcp's [`ServerHandler`] over an [`McpHost`], built once
//! per process and shared by every session and request. It parses what
//! rmcp hands it, asks the host, and answers in MCP's form.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, CompleteRequestMethod,
    CompleteRequestParams, CompleteResult, CreateTaskResult, ErrorData, GetPromptRequestParams,
    GetPromptResponse, GetSkillRequestParams, GetSkillResult, GetTaskParams, GetTaskResult,
    Implementation, InputResponses, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListSkillsResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ServerCapabilities,
    ServerConfig, SubscribeRequestMethod, SubscribeRequestParams, SubscriptionFilter,
    UnsubscribeRequestParams, UpdateTaskParams,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::transport::streamable_http_server::session::SessionManager as _;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::{RoleServer, ServerHandler};
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tool_core::calls::CancelToken;
use tool_core::client::ClientChannel;
use tool_core::{Actor, Outcome, Registry, RunId, TaskSupport};

use crate::asking::{ASK_TIMEOUT, LogLevels, McpClient};
use crate::changes::{ListChanged, forward_changes};
use crate::gated::Gated;
use crate::hangup::Hangup;
use crate::host::host_failed;
use crate::host::{Call, CallControl, CallError, CallScope, Caller, McpHost, OfferedSkill};
use crate::input::{Bound, InputRounds, Replay, undeclared};
use crate::listing::Listings;
use crate::progress::{self, progress_channel};
use crate::subscriptions::Subscriptions;
use crate::task_runs::{self, TaskRuns};
use crate::{catalog, results, skills, tasks};

/// How many tools one `tools/list` page holds unless set otherwise.
pub const DEFAULT_PAGE_SIZE: usize = 50;

/// The user the HTTP layer authenticated for this request. Only
/// [`crate::http`] creates it, so no client-supplied value can pose as one.
#[derive(Debug, Clone)]
pub(crate) struct Authenticated(pub(crate) Actor);

/// Who a request acts for.
#[derive(Debug, Clone)]
pub(crate) enum Identity {
    /// stdio: the local user the process was started for, the token
    /// cancelled when the client closes the connection, and the
    /// connection's own id: one connection is one session.
    Fixed(Actor, CancellationToken, String),
    /// HTTP: each request's bearer token, checked before rmcp sees it.
    PerRequest,
}

/// An MCP server over a host's registry: `tools/list` as each caller's
/// grant allows it, `tools/call` through the host's gated call, and what
/// else the host hands over (tasks, prompts and skills, tokens, sessions).
/// Served with [`serve_stdio`](Self::serve_stdio),
/// [`serve_io`](Self::serve_io) or [`router`](Self::router). Cloning
/// shares it.
#[derive(Clone)]
pub struct McpServer {
    pub(crate) host: Arc<dyn McpHost>,
    pub(crate) identity: Identity,
    /// The HTTP sessions this process holds.
    pub(crate) local_sessions: Arc<LocalSessionManager>,
    /// Each user's `tools/list` pages, built once per grant.
    pub(crate) listings: Arc<Listings>,
    /// The log level each session asked for.
    pub(crate) log_levels: Arc<LogLevels>,
    /// How long a tool's question waits for the client's answer.
    pub(crate) ask_timeout: Duration,
    /// Each session's resource subscriptions.
    pub(crate) subscriptions: Arc<Subscriptions>,
    /// The calls under way, so a closing connection waits for their audit.
    pub(crate) calls: TaskTracker,
    /// The key `requestState` is sealed with (2026-07-28's input-required
    /// results).
    pub(crate) inputs: Arc<InputRounds>,
    /// The calls running as tasks the client polls.
    pub(crate) task_runs: Arc<TaskRuns>,
}

/// A request's client, and on 2026-07-28 the round of its questions.
type Asking = (Option<Arc<Replay>>, Arc<dyn ClientChannel>);

impl McpServer {
    /// A server over `registry` on the default settings (write tools off
    /// until switched on, gate 8's default trust zone): [`Gated`], for a
    /// server that needs nothing else.
    pub fn new(registry: Registry) -> Self {
        McpServer::from_host(Gated::new(registry))
    }

    /// A server over `host`.
    pub fn from_host(host: impl McpHost) -> Self {
        McpServer::from_shared(Arc::new(host))
    }

    /// A server over a host shared with the rest of the process.
    pub fn from_shared(host: Arc<dyn McpHost>) -> Self {
        McpServer {
            host,
            identity: Identity::PerRequest,
            local_sessions: Arc::new(LocalSessionManager::default()),
            listings: Arc::new(Listings::new(DEFAULT_PAGE_SIZE)),
            log_levels: Arc::new(LogLevels::default()),
            ask_timeout: ASK_TIMEOUT,
            subscriptions: Arc::new(Subscriptions::default()),
            calls: TaskTracker::new(),
            inputs: Arc::new(InputRounds::random()),
            task_runs: Arc::new(TaskRuns::default()),
        }
    }

    /// Sets how many tools a `tools/list` page holds (at least 1).
    pub fn with_page_size(mut self, page_size: usize) -> Self {
        self.listings = Arc::new(Listings::new(page_size));
        self
    }

    /// Sets how long a tool's question to the client (a form, a
    /// question for its model) waits for the answer ([`ASK_TIMEOUT`]
    /// unless set).
    pub fn with_ask_timeout(mut self, timeout: Duration) -> Self {
        self.ask_timeout = timeout;
        self
    }

    /// Seals 2026-07-28's `requestState` (a call's answers so far, sent
    /// back to the client with its questions) under `key` rather than a
    /// random key of this process: kept secret, and the same in every
    /// process that serves one URL, so that the next round may reach any
    /// of them. A state sealed under another key is refused (-32602) and
    /// the client starts the call over.
    pub fn with_request_state_key(mut self, key: [u8; 32]) -> Self {
        self.inputs = Arc::new(InputRounds::keyed(key));
        self
    }

    /// This server acting for `actor` on every request of one connection
    /// (stdio). Cancelling `hangup` (the client went away) cancels the
    /// calls under way.
    pub(crate) fn for_user(&self, actor: Actor, hangup: CancellationToken) -> Self {
        McpServer {
            identity: Identity::Fixed(actor, hangup, stdio_session_id()),
            ..self.clone()
        }
    }

    /// The client a request of `cx` asks (in `session`, if any), and on
    /// 2026-07-28 the round it is of `bound`: the state and answers it came
    /// with (`round`), checked.
    fn asking(
        &self,
        cx: &RequestContext<RoleServer>,
        bound: &Bound,
        round: (Option<String>, Option<InputResponses>),
        session: Option<&str>,
    ) -> Result<Asking, ErrorData> {
        let (state, responses) = round;
        let replay = self.inputs.round(cx, bound, state.as_deref(), responses)?;
        let client = McpClient::of(
            cx,
            session,
            &self.log_levels,
            self.ask_timeout,
            replay.clone(),
        );
        Ok((replay, client))
    }

    fn actor(&self, cx: &RequestContext<RoleServer>) -> Result<Actor, ErrorData> {
        match &self.identity {
            Identity::Fixed(actor, ..) => Ok(actor.clone()),
            Identity::PerRequest => http_extension::<Authenticated>(cx)
                .map(|authenticated| authenticated.0.clone())
                // Unreachable behind the bearer layer; fails closed without it.
                .ok_or_else(|| ErrorData::invalid_request("not authenticated", None)),
        }
    }

    /// Ready once the client of this request went away: rmcp's token for
    /// the request, or the connection's own signal ([`crate::hangup`]).
    async fn gone(&self, cx: &RequestContext<RoleServer>) {
        let hangup = match &self.identity {
            Identity::Fixed(_, hangup, _) => Some(hangup.clone()),
            Identity::PerRequest => http_extension::<Hangup>(cx).map(|hangup| hangup.0.clone()),
        };
        match hangup {
            Some(hangup) => tokio::select! {
                () = cx.ct.cancelled() => {}
                () = hangup.cancelled() => {}
            },
            None => cx.ct.cancelled().await,
        }
    }

    /// Where this request's reads are kept, as the server decides it: the
    /// stdio connection, or an HTTP session (`Mcp-Session-Id`) only when
    /// this server issued it and keeps it still (in the host's session
    /// store, or in this process); a header it did not issue (rmcp's
    /// stateless path checks none) changes nothing. The caller's own
    /// exposure applies in every case ([`CallScope`]).
    async fn scope(&self, cx: &RequestContext<RoleServer>) -> CallScope {
        match &self.identity {
            Identity::Fixed(_, _, session) => CallScope::Session(session.clone()),
            Identity::PerRequest => {
                let claimed = cx
                    .extensions
                    .get::<axum::http::request::Parts>()
                    .and_then(|parts| parts.headers.get("mcp-session-id"))
                    .and_then(|id| id.to_str().ok());
                let Some(id) = claimed else {
                    return CallScope::Stateless;
                };
                let kept = match self.host.sessions() {
                    Some(store) => matches!(store.load(id).await, Ok(Some(_))),
                    None => matches!(
                        self.local_sessions.has_session(&Arc::from(id)).await,
                        Ok(true)
                    ),
                };
                if kept {
                    CallScope::Session(id.to_owned())
                } else {
                    CallScope::Stateless
                }
            }
        }
    }

    /// The skills offered to this request's caller (none when the host
    /// offers no skills).
    async fn offered_skills(
        &self,
        cx: &RequestContext<RoleServer>,
    ) -> Result<Vec<OfferedSkill>, ErrorData> {
        let actor = self.actor(cx)?;
        match self.host.skills() {
            Some(skills) => skills.offered(&actor).await.map_err(host_failed),
            None => Ok(Vec::new()),
        }
    }

    /// Stops taking calls and waits for those under way (each ends with
    /// its audit entry written).
    pub async fn finish_calls(&self) {
        self.calls.close();
        self.calls.wait().await;
    }

    /// The task of a proposal just made, when the host follows proposals.
    fn waiting_task(&self, actor: &Actor, outcome: &Outcome) -> Option<CallToolResponse> {
        let Outcome::Proposed(proposal) = outcome else {
            return None;
        };
        let proposals = self.host.proposals()?;
        Some(CallToolResponse::Task(tasks::created(
            &proposals.waiting(actor, proposal),
        )))
    }
}

/// A value the HTTP layer put in the request's extensions; none on stdio.
fn http_extension<T: Send + Sync + 'static>(cx: &RequestContext<RoleServer>) -> Option<&T> {
    extension(&cx.extensions)
}

/// A value the HTTP layer put in the extensions of the message rmcp
/// hands on (a request's or a notification's).
fn extension<T: Send + Sync + 'static>(extensions: &rmcp::model::Extensions) -> Option<&T> {
    extensions
        .get::<axum::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<T>())
}

/// A stdio connection's id: the process and the moment it started, so two
/// connections (two processes) never share what they read.
fn stdio_session_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("stdio-{}-{nanos}", std::process::id())
}

impl ServerHandler for McpServer {
    /// The tool `name`'s declaration as listed, for rmcp to check a
    /// request's `Mcp-Param-*` headers against the arguments they copy
    /// (SEP-2243) before the call; only for a tool with such parameters
    /// (the call itself is gated as always).
    fn get_tool(&self, name: &str) -> Option<rmcp::model::Tool> {
        crate::listing::with_header_parameters(self.host.registry(), name)
    }

    /// Tools, prompts and resources always (the lists are empty when the
    /// host offers none); completion, the Skills extension and tasks only
    /// when the host hands over what serves them.
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_prompts()
            .enable_prompts_list_changed()
            .enable_resources();
        // Logging is in every revision this server speaks (rmcp marks it
        // deprecated for the revisions after).
        #[allow(deprecated)]
        let capabilities = capabilities.enable_logging();
        let tasks = self.host.proposals().is_some()
            || self
                .host
                .registry()
                .tools()
                .iter()
                .any(|tool| tool.declaration().task != TaskSupport::Forbidden);
        let mut capabilities = match (self.host.skills().is_some(), tasks) {
            (true, true) => capabilities.enable_skills().enable_tasks().build(),
            (true, false) => capabilities.enable_skills().build(),
            (false, true) => capabilities.enable_tasks().build(),
            (false, false) => capabilities.build(),
        };
        if self.host.completions().is_some() {
            capabilities.completions = Some(Default::default());
        }
        if let Some(resources) = capabilities.resources.as_mut() {
            resources.subscribe = self
                .host
                .resources()
                .is_some_and(|r| r.updates().is_some())
                .then_some(true);
        }
        ServerConfig::new(capabilities).with_server_info(Implementation::new(
            env!("CARGO_PKG_NAME"),
            env!("CARGO_PKG_VERSION"),
        ))
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        cx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let actor = self.actor(&cx)?;
        let grant = self.host.grant(&actor).await.map_err(host_failed)?;
        // The cursor is the last name of the previous page: the grant is in
        // name order, so a page never repeats or skips a tool that stays.
        let cursor = request.and_then(|r| r.cursor);
        let page = self
            .listings
            .page(self.host.registry(), &actor, &grant, cursor.as_deref())
            .map_err(host_failed)?;
        Ok(page.result().clone())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let actor = self.actor(&cx)?;
        let client = cx.client_info();
        let caller = Caller {
            actor: actor.clone(),
            client_name: client.as_ref().map(|c| c.name.clone()),
            client_version: client.map(|c| c.version),
            protocol: cx.protocol_version().map(|v| v.to_string()),
        };
        // A client that speaks the tasks extension follows a write call's
        // proposal to its end (`crate::tasks`); the others are told it waits.
        let as_task = cx
            .client_capabilities()
            .is_some_and(|capabilities| capabilities.supports_tasks());
        let run = RunId(format!("mcp-{}-{}", caller.actor.id, cx.id));
        let cancel = CancelToken::new();
        // A client that sent a progress token hears the tool's progress.
        let token = cx.meta.get_progress_token();
        let (feed, watch) = match token {
            Some(_) => {
                let (feed, watch) = progress_channel();
                (Some(feed), Some(watch))
            }
            None => (None, None),
        };
        let scope = self.scope(&cx).await;
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let bound = Bound::new("tools/call", &request.name, &arguments, &actor);
        let mut call = Call {
            caller,
            tool: request.name.to_string(),
            arguments,
            run,
            scope,
            control: CallControl {
                cancel: cancel.clone(),
                progress: None,
                client: None,
            },
        };
        // A tool that runs as a task, for a client that polls tasks.
        if task_runs::runs_as_task(&*self.host, &call.tool, as_task)? {
            let task = task_runs::start(&self.task_runs, Arc::clone(&self.host), &actor, call);
            return Ok(CallToolResponse::Task(CreateTaskResult::new(task)));
        }
        let session = match &call.scope {
            CallScope::Session(id) => Some(id.as_str()),
            CallScope::Stateless => None,
        };
        let round = (request.request_state, request.input_responses);
        let (replay, client) = self.asking(&cx, &bound, round, session)?;
        call.control.progress = feed;
        call.control.client = Some(client);
        let call = self.host.call(call);
        // A client that cancels, or whose connection drops, cancels the
        // call: the tool is told through its context's token and the call
        // path stops waiting for it. The call still ends here, so a
        // proposal already made is stored whole and the audit is written.
        let call = self.calls.track_future(async {
            let mut call = call;
            tokio::select! {
                outcome = &mut call => outcome,
                () = self.gone(&cx) => {
                    cancel.cancel();
                    call.await
                }
            }
        });
        // The watch ends when the call's context is dropped, after its last
        // report is sent: every notification precedes the answer.
        let (outcome, ()) = tokio::join!(call, progress::notify(&cx, token, watch));
        match outcome {
            Ok(outcome) => Ok(as_task
                .then(|| self.waiting_task(&actor, &outcome))
                .flatten()
                .unwrap_or_else(|| results::answer(Ok(outcome)).into())),
            // A call that stopped at questions for the client (2026-07-28)
            // sends them; it comes again with the answers.
            // A call that failed without a capability the request did not
            // declare is refused as such (-32021, 2026-07-28).
            Err(CallError::Tool(error)) => {
                match self
                    .inputs
                    .required(&bound, replay.as_deref(), self.ask_timeout)?
                {
                    Some(required) => Ok(CallToolResponse::InputRequired(required)),
                    None => match undeclared(replay.as_deref()) {
                        Some(missing) => Err(missing),
                        None => Ok(results::answer(Err(error)).into()),
                    },
                }
            }
            Err(CallError::Host(error)) => Err(host_failed(error)),
        }
    }

    /// Where a task stands, for the caller who started it: a call run as
    /// a task, or a write call's proposal.
    async fn get_task(
        &self,
        request: GetTaskParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        let actor = self.actor(&cx)?;
        tasks::get(
            &self.task_runs,
            self.host.proposals(),
            &actor,
            &request.task_id,
        )
        .await
    }

    /// The caller cancels their call, or withdraws their proposal (a
    /// rejection by them, through the host's approval path).
    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let actor = self.actor(&cx)?;
        tasks::cancel(
            &self.task_runs,
            self.host.proposals(),
            &actor,
            &request.task_id,
        )
        .await
    }

    /// The answers to the questions a call run as a task asked.
    async fn update_task(
        &self,
        request: UpdateTaskParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let actor = self.actor(&cx)?;
        tasks::update(&self.task_runs, &actor, request)
    }

    /// The session's log level: its calls' log messages of this level and
    /// above are sent to it. A request outside a session (2026-07-28) has
    /// no level to keep.
    #[allow(deprecated)] // Logging is in every revision this server speaks.
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        match self.scope(&cx).await {
            CallScope::Session(session) => {
                self.log_levels.set(session, request.level);
                Ok(())
            }
            CallScope::Stateless => Err(ErrorData::invalid_request(
                "a log level is kept per session, and this request has none",
                None,
            )),
        }
    }

    /// The skills offered to the caller, then the host's own prompts.
    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        cx: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let actor = self.actor(&cx)?;
        let offered = self.offered_skills(&cx).await?;
        let prompts = catalog::prompts(&*self.host, &actor, &offered).await?;
        Ok(ListPromptsResult::with_all_items(prompts))
    }

    /// One of [`list_prompts`](Self::list_prompts)' prompts: a skill's
    /// instructions as one user message, or the host's prompt. A prompt
    /// not offered to the caller is answered like one that does not exist.
    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let actor = self.actor(&cx)?;
        let offered = self.offered_skills(&cx).await?;
        let arguments = request.arguments.unwrap_or_default();
        let bound = Bound::new(
            "prompts/get",
            &request.name,
            &Value::Object(arguments.clone()),
            &actor,
        );
        let round = (request.request_state, request.input_responses);
        let (replay, client) = self.asking(&cx, &bound, round, None)?;
        let asked = catalog::Asked {
            name: &request.name,
            arguments,
            client: &*client,
        };
        let result = catalog::prompt(&*self.host, &actor, offered, asked).await;
        if result.is_err() {
            if let Some(required) =
                self.inputs
                    .required(&bound, replay.as_deref(), self.ask_timeout)?
            {
                return Ok(GetPromptResponse::InputRequired(required));
            }
            if let Some(missing) = undeclared(replay.as_deref()) {
                return Err(missing);
            }
        }
        Ok(result?.into())
    }

    /// Values for a prompt's or a resource template's argument, where the
    /// host completes them.
    async fn complete(
        &self,
        request: CompleteRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let actor = self.actor(&cx)?;
        let Some(completions) = self.host.completions() else {
            return Err(ErrorData::method_not_found::<CompleteRequestMethod>());
        };
        let completion = completions
            .complete(&actor, &request.r#ref, &request.argument)
            .await
            .map_err(host_failed)?;
        Ok(CompleteResult::new(completion))
    }

    /// The offered skills, in the Skills extension's form.
    async fn list_skills(
        &self,
        _request: Option<PaginatedRequestParams>,
        cx: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        let offered = self.offered_skills(&cx).await?;
        Ok(ListSkillsResult::with_all_items(skills::skills(&offered)))
    }

    /// One offered skill by the URI of its `SKILL.md`; a skill not offered
    /// is answered like one that does not exist.
    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        let offered = self.offered_skills(&cx).await?;
        skills::skill_at(&offered, &request.uri).map(GetSkillResult::new)
    }

    /// The `SKILL.md` of each offered skill, then the host's resources.
    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        cx: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let actor = self.actor(&cx)?;
        let offered = self.offered_skills(&cx).await?;
        let resources = catalog::resources(&*self.host, &actor, &offered).await?;
        Ok(ListResourcesResult::with_all_items(resources))
    }

    /// The host's resource templates.
    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        cx: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let actor = self.actor(&cx)?;
        let templates = catalog::templates(&*self.host, &actor).await?;
        Ok(ListResourceTemplatesResult::with_all_items(templates))
    }

    /// A file of an offered skill, with the bytes that were approved, or
    /// one of the host's resources.
    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let actor = self.actor(&cx)?;
        let offered = self.offered_skills(&cx).await?;
        let contents = catalog::read(&*self.host, &actor, &offered, &request.uri).await?;
        Ok(ReadResourceResult::new(contents).into())
    }

    /// The session hears of each update of a resource it may read, where
    /// the host announces updates; a resource nobody serves is not found.
    #[allow(deprecated)] // resources/subscribe: 2025-11-25 and older.
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let actor = self.actor(&cx)?;
        let Some(updates) = self.host.resources().and_then(|r| r.updates()) else {
            return Err(ErrorData::method_not_found::<SubscribeRequestMethod>());
        };
        let CallScope::Session(session) = self.scope(&cx).await else {
            return Err(ErrorData::invalid_request(
                "a subscription is kept per session, and this request has none",
                None,
            ));
        };
        let offered = self.offered_skills(&cx).await?;
        catalog::read(&*self.host, &actor, &offered, &request.uri).await?;
        self.subscriptions
            .subscribe(&session, &request.uri, updates, cx.peer.clone());
        Ok(())
    }

    /// The session no longer hears of the resource.
    #[allow(deprecated)] // resources/unsubscribe: 2025-11-25 and older.
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if let CallScope::Session(session) = self.scope(&cx).await {
            self.subscriptions.unsubscribe(&session, &request.uri);
        }
        Ok(())
    }

    /// Sessions of 2025-11-25 and older: announce every change on the
    /// session's stream until the client goes away.
    async fn on_initialized(&self, cx: NotificationContext<RoleServer>) {
        if self.host.changes().is_none() {
            // Nothing ever changes: no task to hold the session's stream.
            return;
        }
        let server = self.clone();
        let actor = match &self.identity {
            Identity::Fixed(actor, ..) => Some(actor.clone()),
            Identity::PerRequest => extension::<Authenticated>(&cx.extensions).map(|a| a.0.clone()),
        };
        tokio::spawn(async move {
            let peer = cx.peer;
            forward_changes(
                &*server.host,
                actor,
                |change| {
                    let peer = peer.clone();
                    async move {
                        match change {
                            ListChanged::Tools => peer.notify_tool_list_changed().await,
                            ListChanged::Prompts => peer.notify_prompt_list_changed().await,
                        }
                        .is_ok()
                    }
                },
                std::future::pending(),
            )
            .await;
        });
    }

    /// 2026-07-28 has no sessions: a client opens `subscriptions/listen`
    /// for `tools/list_changed` instead.
    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        let mut accepted = SubscriptionFilter::builder();
        if requested.tools_list_changed == Some(true) {
            accepted = accepted.tools_list_changed();
        }
        // Accepted whatever the host serves: the capability is announced,
        // and a host whose prompts never change keeps the stream quiet.
        if requested.prompts_list_changed == Some(true) {
            accepted = accepted.prompts_list_changed();
        }
        let accepted = accepted.build();
        (accepted != SubscriptionFilter::default()).then_some(accepted)
    }

    async fn listen(&self, subscription: SubscriptionContext) -> Result<(), ErrorData> {
        let sink = subscription.sink().clone();
        let accepted = subscription.accepted().clone();
        // Only a listener for prompts needs its user's prompts looked at.
        let actor = match accepted.prompts_list_changed {
            Some(true) => Some(self.actor(subscription.request_context())?),
            _ => None,
        };
        forward_changes(
            &*self.host,
            actor,
            |change| {
                let sink = sink.clone();
                let wanted = match change {
                    ListChanged::Tools => accepted.tools_list_changed == Some(true),
                    ListChanged::Prompts => accepted.prompts_list_changed == Some(true),
                };
                async move {
                    if !wanted {
                        return true;
                    }
                    match change {
                        ListChanged::Tools => sink.notify_tool_list_changed().await,
                        ListChanged::Prompts => sink.notify_prompt_list_changed().await,
                    }
                    .is_ok()
                }
            },
            subscription.cancelled(),
        )
        .await;
        Ok(())
    }
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("identity", &self.identity)
            .field("page_size", &self.listings.page_size())
            .finish_non_exhaustive()
    }
}
