//! [`McpServer`]: rmcp's [`ServerHandler`] over the app layer ([`Host`]),
//! built once per process and shared by every session and request. It
//! parses what rmcp hands it, asks [`Host`], and answers in MCP's form.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ErrorData, GetPromptRequestParams, GetPromptResponse,
    GetPromptResult, Implementation, ListPromptsResult, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ProgressToken, Prompt, PromptMessage, Role, ServerCapabilities,
    ServerConfig, SubscriptionFilter,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{RoleServer, ServerHandler};
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tool_core::calls::CancelToken;
use tool_core::{Actor, RunId};

use super::hangup::Hangup;
use super::listing::Listings;
use super::results;
use crate::app::Host;
use crate::app::calls::{
    CallControl, CallError, CallScope, Caller, ProgressReport, ProgressWatch,
    SETTINGS_POLL_INTERVAL, progress_channel,
};

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

    /// Where this request's reads are kept: the stdio connection, the HTTP
    /// session rmcp checked (`Mcp-Session-Id`), or, with no session
    /// (2026-07-28), the caller over a window.
    fn scope(&self, cx: &RequestContext<RoleServer>) -> CallScope {
        match &self.identity {
            Identity::Fixed(_, _, session) => CallScope::Session(session.clone()),
            Identity::PerRequest => cx
                .extensions
                .get::<axum::http::request::Parts>()
                .and_then(|parts| parts.headers.get("mcp-session-id"))
                .and_then(|id| id.to_str().ok())
                .map_or(CallScope::Stateless, |id| CallScope::Session(id.to_owned())),
        }
    }

    /// Stops taking calls and waits for those under way (each ends with
    /// its audit entry written).
    pub async fn finish_calls(&self) {
        self.calls.close();
        self.calls.wait().await;
    }

    /// Forwards every settings change to `send` until it fails (the
    /// client went away) or `stop` resolves. While it runs, the store is
    /// polled for changes another process made.
    async fn forward_changes<F, Fut>(&self, send: F, stop: impl Future<Output = ()>)
    where
        F: Fn() -> Fut,
        Fut: Future<Output = bool>,
    {
        let mut changes = self.host.changes();
        // The generation this stream starts from, if no request read it yet.
        if let Err(error) = self.host.poll_settings().await {
            tracing::error!(target: "host_example::mcp", %error, "could not read the settings");
        }
        let mut poll = tokio::time::interval(SETTINGS_POLL_INTERVAL);
        poll.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        tokio::pin!(stop);
        loop {
            tokio::select! {
                changed = changes.changed() => {
                    if changed.is_err() || !send().await {
                        return;
                    }
                }
                _ = poll.tick() => {
                    if let Err(error) = self.host.poll_settings().await {
                        tracing::error!(target: "host_example::mcp", %error, "could not read the settings");
                    }
                }
                () = &mut stop => return,
            }
        }
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
    cx.extensions
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
        let scope = self.scope(&cx);
        let call = self.host.call_watched(
            &caller,
            &tool,
            arguments,
            run,
            &scope,
            CallControl {
                cancel: cancel.clone(),
                progress: feed,
            },
        );
        // A client that cancels, or whose connection drops, cancels the
        // call: the tool is told through its context's token and the call
        // path stops waiting for it. The call still ends here, so a
        // proposal already made is stored whole and the audit is written.
        let call = self.calls.track_future(async {
            tokio::pin!(call);
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
        let answer = match outcome {
            Ok(outcome) => Ok(results::answer(Ok(outcome))),
            Err(CallError::Tool(error)) => Ok(results::answer(Err(error))),
            Err(CallError::Host(error)) => Err(host_failed(error)),
        };
        answer.map(CallToolResponse::from)
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

    /// Sessions of 2025-11-25 and older: announce every settings change on
    /// the session's stream until the client goes away.
    async fn on_initialized(&self, cx: NotificationContext<RoleServer>) {
        let server = self.clone();
        tokio::spawn(async move {
            let peer = cx.peer;
            server
                .forward_changes(
                    || async { peer.notify_tool_list_changed().await.is_ok() },
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
        (requested.tools_list_changed == Some(true))
            .then(|| SubscriptionFilter::builder().tools_list_changed().build())
    }

    async fn listen(&self, subscription: SubscriptionContext) -> Result<(), ErrorData> {
        let sink = subscription.sink().clone();
        self.forward_changes(
            || async { sink.notify_tool_list_changed().await.is_ok() },
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
