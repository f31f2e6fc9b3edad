//! [`McpServer`]: rmcp's [`ServerHandler`] over the app layer ([`Host`]),
//! built once per process and shared by every session and request. It
//! parses what rmcp hands it, asks [`Host`], and answers in MCP's form.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, ErrorData, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, GetSkillRequestParams, GetSkillResult, GetTaskParams,
    GetTaskResult, Implementation, ListPromptsResult, ListResourcesResult, ListSkillsResult,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ProgressToken, Prompt,
    PromptMessage, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Role,
    ServerCapabilities, ServerConfig, SubscriptionFilter, UpdateTaskParams,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{RoleServer, ServerHandler};
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tool_core::calls::CancelToken;
use tool_core::{Actor, Outcome, RunId};

use super::hangup::Hangup;
use super::listing::Listings;
use super::{results, skills, tasks};
use crate::app::calls::tasks::CallTask;
use crate::app::calls::{
    CallControl, CallError, CallScope, Caller, ProgressReport, ProgressWatch,
    SETTINGS_POLL_INTERVAL, progress_channel,
};
use crate::app::skills::prompts::SkillPrompt;
use crate::app::{Host, HostError};

/// How many tools one `tools/list` page holds unless set otherwise.
pub const DEFAULT_PAGE_SIZE: usize = 50;

/// The user the HTTP layer authenticated for this request. Only
/// [`super::http`] creates it, so no client-supplied value can pose as one.
#[derive(Debug, Clone)]
pub(crate) struct Authenticated(pub(crate) Actor);

/// Who a request acts for.
#[derive(Debug, Clone)]
enum Identity {
    /// stdio: the local user the process was started for, the token
    /// cancelled when the client closes the connection, and the
    /// connection's own id: one connection is one session.
    Fixed(Actor, CancellationToken, String),
    /// HTTP: each request's bearer token, checked before rmcp sees it.
    PerRequest,
}

/// The MCP server: `tools/list` and `tools/call` over [`Host`].
/// Cloning shares it (two reference counts).
pub struct McpServer {
    host: Arc<Host>,
    identity: Identity,
    /// Each user's `tools/list` pages, built once per grant.
    listings: Arc<Listings>,
    /// The calls under way, so a closing connection waits for their audit.
    calls: TaskTracker,
}

impl Clone for McpServer {
    fn clone(&self) -> Self {
        McpServer {
            host: Arc::clone(&self.host),
            identity: self.identity.clone(),
            listings: Arc::clone(&self.listings),
            calls: self.calls.clone(),
        }
    }
}

impl McpServer {
    /// A server acting for `actor` on every request (stdio). Cancelling
    /// `hangup` (the client went away) cancels the calls under way.
    pub fn for_user(host: Arc<Host>, actor: Actor, hangup: CancellationToken) -> Self {
        McpServer {
            host,
            identity: Identity::Fixed(actor, hangup, stdio_session_id()),
            listings: Arc::new(Listings::new(DEFAULT_PAGE_SIZE)),
            calls: TaskTracker::new(),
        }
    }

    /// A server acting for each request's authenticated user (HTTP,
    /// behind [`super::http::router`]'s bearer check).
    pub(crate) fn per_request(host: Arc<Host>) -> Self {
        McpServer {
            host,
            identity: Identity::PerRequest,
            listings: Arc::new(Listings::new(DEFAULT_PAGE_SIZE)),
            calls: TaskTracker::new(),
        }
    }

    /// Sets how many tools a `tools/list` page holds (at least 1).
    pub fn with_page_size(mut self, page_size: usize) -> Self {
        self.listings = Arc::new(Listings::new(page_size));
        self
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
    /// the request, or the connection's own signal ([`super::hangup`]).
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
    /// this server issued it and keeps it still; a header it did not issue
    /// (rmcp's stateless path checks none) changes nothing. The caller's
    /// own exposure applies in every case ([`CallScope`]).
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
                match self.host.mcp_session(id).await {
                    Ok(Some(_)) => CallScope::Session(id.to_owned()),
                    _ => CallScope::Stateless,
                }
            }
        }
    }

    /// The skills offered to this request's caller.
    async fn offered_skills(
        &self,
        cx: &RequestContext<RoleServer>,
    ) -> Result<Vec<SkillPrompt>, ErrorData> {
        let actor = self.actor(cx)?;
        self.host.skill_prompts(&actor).await.map_err(host_failed)
    }

    /// Stops taking calls and waits for those under way (each ends with
    /// its audit entry written).
    pub async fn finish_calls(&self) {
        self.calls.close();
        self.calls.wait().await;
    }

    /// Announces each change of what this stream's client may list to
    /// `send`, until it fails (the client went away) or `stop` resolves:
    /// every settings change as [`ListChanged::Tools`], and a change of the
    /// prompts `actor` is offered (a skill approved, edited, removed, or a
    /// grant that changed) as [`ListChanged::Prompts`]. While it runs, the
    /// store and the skills folders are polled for changes another process
    /// or an editor made.
    async fn forward_changes<F, Fut>(
        &self,
        actor: Option<Actor>,
        send: F,
        stop: impl Future<Output = ()>,
    ) where
        F: Fn(ListChanged) -> Fut,
        Fut: Future<Output = bool>,
    {
        let mut changes = self.host.changes();
        // The generation this stream starts from, if no request read it yet.
        if let Err(error) = self.host.poll_settings().await {
            tracing::error!(target: "host_example::mcp", %error, "could not read the settings");
        }
        let mut prompts = Prompts::new(actor);
        prompts.changed(&self.host).await;
        let mut poll = tokio::time::interval(SETTINGS_POLL_INTERVAL);
        poll.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        tokio::pin!(stop);
        loop {
            let mut announce = Vec::new();
            tokio::select! {
                changed = changes.changed() => {
                    if changed.is_err() {
                        return;
                    }
                    announce.push(ListChanged::Tools);
                }
                _ = poll.tick() => {
                    if let Err(error) = self.host.poll_settings().await {
                        tracing::error!(target: "host_example::mcp", %error, "could not read the settings");
                    }
                }
                () = &mut stop => return,
            }
            if prompts.changed(&self.host).await {
                announce.push(ListChanged::Prompts);
            }
            for change in announce {
                if !send(change).await {
                    return;
                }
            }
        }
    }
}

/// A list a client is told has changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ListChanged {
    /// `notifications/tools/list_changed`.
    Tools,
    /// `notifications/prompts/list_changed`.
    Prompts,
}

/// The prompts one stream's user was last offered, to notice a change.
struct Prompts {
    actor: Option<Actor>,
    offered: Option<Vec<SkillPrompt>>,
}

impl Prompts {
    fn new(actor: Option<Actor>) -> Prompts {
        Prompts {
            actor,
            offered: None,
        }
    }

    /// Whether the prompts offered now differ from those offered at the
    /// last look (the first look only remembers them). A look that fails
    /// changes nothing: the next one tries again.
    async fn changed(&mut self, host: &Host) -> bool {
        let Some(actor) = &self.actor else {
            return false;
        };
        let offered = match host.skill_prompts(actor).await {
            Ok(offered) => offered,
            Err(error) => {
                tracing::error!(target: "host_example::mcp", %error, "could not read the skills");
                return false;
            }
        };
        let before = self.offered.replace(offered);
        before.is_some_and(|before| Some(&before) != self.offered.as_ref())
    }
}

/// Sends the call's progress reports to the client as
/// `notifications/progress` with its `token`, rate-limited by the watch.
async fn notify_progress(
    cx: &RequestContext<RoleServer>,
    token: Option<ProgressToken>,
    watch: Option<ProgressWatch>,
) {
    let (Some(token), Some(watch)) = (token, watch) else {
        return;
    };
    watch
        .forward(|report: ProgressReport| {
            let mut param = ProgressNotificationParam::new(token.clone(), report.done as f64);
            if let Some(total) = report.total {
                param = param.with_total(total as f64);
            }
            if !report.message.is_empty() {
                param = param.with_message(report.message);
            }
            let peer = cx.peer.clone();
            async move {
                // A client gone away misses its progress; the call goes on.
                let _ = peer.notify_progress(param).await;
            }
        })
        .await;
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

fn host_failed(error: impl std::fmt::Display) -> ErrorData {
    tracing::error!(target: "host_example::mcp", %error, "the host failed");
    ErrorData::internal_error("the host could not answer; try again later", None)
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .enable_prompts()
                .enable_prompts_list_changed()
                .enable_resources()
                .enable_skills()
                .enable_tasks()
                .build(),
        )
        .with_server_info(Implementation::new(
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
            actor,
            client_name: client.as_ref().map(|c| c.name.clone()),
            client_version: client.map(|c| c.version),
            protocol: cx.protocol_version().map(|v| v.to_string()),
        };
        // A client that speaks the tasks extension follows a write call's
        // proposal to its end (`super::tasks`); the others are told it waits.
        let as_task = cx
            .client_capabilities()
            .is_some_and(|capabilities| capabilities.supports_tasks());
        let tool = request.name.to_string();
        let arguments = Value::Object(request.arguments.unwrap_or_default());
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
        // Boxed: the call's future is kilobytes, and the handler's future
        // (the largest of every method's, as rmcp spawns it for each
        // request) is copied whole into its task and again as it runs.
        let call = Box::pin(self.host.call_watched(
            &caller,
            &tool,
            arguments,
            run,
            &scope,
            CallControl {
                cancel: cancel.clone(),
                progress: feed,
            },
        ));
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
        let (outcome, ()) = tokio::join!(call, notify_progress(&cx, token, watch));
        match outcome {
            Ok(Outcome::Proposed(proposal)) if as_task => Ok(CallToolResponse::Task(
                tasks::created(&CallTask::waiting(proposal)),
            )),
            Ok(outcome) => Ok(results::answer(Ok(outcome)).into()),
            Err(CallError::Tool(error)) => Ok(results::answer(Err(error)).into()),
            Err(CallError::Host(error)) => Err(host_failed(error)),
        }
    }

    /// Where a write call's proposal stands, for the caller who made it.
    async fn get_task(
        &self,
        request: GetTaskParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        let actor = self.actor(&cx)?;
        match Box::pin(self.host.call_task(&actor, &request.task_id)).await {
            Ok(task) => Ok(tasks::detailed(&task)),
            Err(HostError::UnknownProposal(_)) => Err(tasks::unknown(&request.task_id)),
            Err(error) => Err(host_failed(error)),
        }
    }

    /// The caller withdraws their proposal (a rejection by them, through
    /// the one approval path); a decided one stays as decided.
    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let actor = self.actor(&cx)?;
        // Boxed: deciding is the largest future of any method here (see
        // `call_tool`), and rmcp copies the largest into every request's
        // task.
        match Box::pin(self.host.withdraw_call(&actor, &request.task_id)).await {
            Ok(()) => Ok(()),
            Err(HostError::UnknownProposal(_)) => Err(tasks::unknown(&request.task_id)),
            Err(error @ HostError::MayNotDecide) => {
                Err(ErrorData::invalid_request(error.to_string(), None))
            }
            Err(error) => Err(host_failed(error)),
        }
    }

    /// No task of this server ever asks the client for input.
    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _cx: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        Err(ErrorData::invalid_params(
            format!(
                "task `{}` asks for no input: a person decides it in the host",
                request.task_id
            ),
            None,
        ))
    }

    /// The approved skills the caller is granted every tool of, as prompts
    /// (the app layer's rule: `app::skills::prompts`).
    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        cx: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let actor = self.actor(&cx)?;
        let skills = self.host.skill_prompts(&actor).await.map_err(host_failed)?;
        let prompts = skills
            .into_iter()
            .map(|skill| Prompt::new(skill.name, Some(skill.description), None))
            .collect();
        Ok(ListPromptsResult::with_all_items(prompts))
    }

    /// One of [`list_prompts`](Self::list_prompts)' skills, its
    /// instructions as one user message. A skill not offered to the caller
    /// is answered like one that does not exist.
    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let actor = self.actor(&cx)?;
        let skills = self.host.skill_prompts(&actor).await.map_err(host_failed)?;
        let Some(skill) = skills.into_iter().find(|s| s.name == request.name) else {
            return Err(ErrorData::invalid_params(
                format!("no prompt `{}`", request.name),
                None,
            ));
        };
        let message = PromptMessage::new_text(Role::User, skill.text);
        Ok(GetPromptResult::new(vec![message])
            .with_description(skill.description)
            .into())
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

    /// The `SKILL.md` of each offered skill: the only resources served.
    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        cx: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let offered = self.offered_skills(&cx).await?;
        Ok(ListResourcesResult::with_all_items(skills::resources(
            &offered,
        )))
    }

    /// A file of an offered skill, with the bytes that were approved.
    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let actor = self.actor(&cx)?;
        let offered = self.host.skill_prompts(&actor).await.map_err(host_failed)?;
        let (skill, file) = skills::file_at(&offered, &request.uri)?;
        let bytes = skill
            .read_file(file)
            .ok_or_else(|| skills::not_found(&request.uri))?;
        let contents = skills::contents(&request.uri, &file.path, bytes);
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    /// Sessions of 2025-11-25 and older: announce every settings change on
    /// the session's stream until the client goes away.
    async fn on_initialized(&self, cx: NotificationContext<RoleServer>) {
        let server = self.clone();
        let actor = match &self.identity {
            Identity::Fixed(actor, ..) => Some(actor.clone()),
            Identity::PerRequest => extension::<Authenticated>(&cx.extensions).map(|a| a.0.clone()),
        };
        tokio::spawn(async move {
            let peer = cx.peer;
            server
                .forward_changes(
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
        self.forward_changes(
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
