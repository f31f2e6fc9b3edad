//! [`McpServer`]: rmcp's [`ServerHandler`] over a [`Backend`], built once
//! per process and shared by every session and request.

use std::sync::Arc;
use std::time::Instant;

use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, ErrorData, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, SubscriptionFilter,
    Tool,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{RoleServer, ServerHandler};
use serde_json::Value;
use tool_core::export::Provider;
use tool_core::{Actor, RunId};

use super::backend::{
    AuditEntry, Backend, CallDecision, CallError, Caller, SETTINGS_POLL_INTERVAL, Store,
};
use super::results;

/// How many tools one `tools/list` page holds unless set otherwise.
pub const DEFAULT_PAGE_SIZE: usize = 50;

/// The user the HTTP layer authenticated for this request. Only
/// [`super::http`] creates it, so no client-supplied value can pose as one.
#[derive(Debug, Clone)]
pub(crate) struct Authenticated(pub(crate) Actor);

/// Who a request acts for.
#[derive(Debug, Clone)]
enum Identity {
    /// stdio: the local user the process was started for.
    Fixed(Actor),
    /// HTTP: each request's bearer token, checked before rmcp sees it.
    PerRequest,
}

/// The MCP server: `tools/list` and `tools/call` over a [`Backend`].
/// Cloning shares it (two reference counts).
pub struct McpServer<S> {
    backend: Arc<Backend<S>>,
    identity: Identity,
    page_size: usize,
}

impl<S> Clone for McpServer<S> {
    fn clone(&self) -> Self {
        McpServer {
            backend: Arc::clone(&self.backend),
            identity: self.identity.clone(),
            page_size: self.page_size,
        }
    }
}

impl<S: Store> McpServer<S> {
    /// A server acting for `actor` on every request (stdio).
    pub fn for_user(backend: Arc<Backend<S>>, actor: Actor) -> Self {
        McpServer {
            backend,
            identity: Identity::Fixed(actor),
            page_size: DEFAULT_PAGE_SIZE,
        }
    }

    /// A server acting for each request's authenticated user (HTTP,
    /// behind [`super::http::router`]'s bearer check).
    pub(crate) fn per_request(backend: Arc<Backend<S>>) -> Self {
        McpServer {
            backend,
            identity: Identity::PerRequest,
            page_size: DEFAULT_PAGE_SIZE,
        }
    }

    /// Sets how many tools a `tools/list` page holds (at least 1).
    pub fn with_page_size(mut self, page_size: usize) -> Self {
        self.page_size = page_size.max(1);
        self
    }

    fn actor(&self, cx: &RequestContext<RoleServer>) -> Result<Actor, ErrorData> {
        match &self.identity {
            Identity::Fixed(actor) => Ok(actor.clone()),
            Identity::PerRequest => cx
                .extensions
                .get::<axum::http::request::Parts>()
                .and_then(|parts| parts.extensions.get::<Authenticated>())
                .map(|authenticated| authenticated.0.clone())
                // Unreachable behind the bearer layer; fails closed without it.
                .ok_or_else(|| ErrorData::invalid_request("not authenticated", None)),
        }
    }

    /// Forwards every settings change to `send` until it fails (the
    /// client went away) or `stop` resolves. While it runs, the store is
    /// polled for changes another process made.
    async fn forward_changes<F, Fut>(&self, send: F, stop: impl Future<Output = ()>)
    where
        F: Fn() -> Fut,
        Fut: Future<Output = bool>,
    {
        let mut changes = self.backend.changes();
        // The generation this stream starts from, if no request read it yet.
        if let Err(error) = self.backend.poll_settings().await {
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
                    if let Err(error) = self.backend.poll_settings().await {
                        tracing::error!(target: "host_example::mcp", %error, "could not read the settings");
                    }
                }
                () = &mut stop => return,
            }
        }
    }
}

fn store_failed(error: impl std::fmt::Display) -> ErrorData {
    tracing::error!(target: "host_example::mcp", %error, "the host's store failed");
    ErrorData::internal_error("the host could not answer; try again later", None)
}

impl<S: Store> ServerHandler for McpServer<S> {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
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
        let grant = self.backend.grant(&actor).await.map_err(store_failed)?;
        // The cursor is the last name of the previous page: the grant is in
        // name order, so a page never repeats or skips a tool that stays.
        let after = request.and_then(|r| r.cursor);
        let mut names = grant
            .tool_names()
            .filter(|name| after.as_deref().is_none_or(|after| *name > after));
        let mut tools = Vec::new();
        for name in names.by_ref().take(self.page_size) {
            let Some(tool) = self.backend.registry().get(name) else {
                continue;
            };
            let tool: Tool =
                serde_json::from_value(tool.export(Provider::Mcp).clone()).map_err(store_failed)?;
            tools.push(tool);
        }
        let mut result = ListToolsResult::with_all_items(Vec::new())
            // Per user, and changed by any settings change.
            .with_ttl_ms(0)
            .with_cache_scope(CacheScope::Private);
        if names.next().is_some() {
            result.next_cursor = tools.last().map(|tool| tool.name.to_string());
        }
        result.tools = tools;
        Ok(result)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let started = Instant::now();
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
        let call = self.backend.call(&caller.actor, &tool, arguments, run);
        // A client that cancels, or whose connection drops, cancels the
        // token: the call's future is dropped where it stands.
        let outcome = tokio::select! {
            outcome = call => Some(outcome),
            () = cx.ct.cancelled() => None,
        };
        let (answer, decision) = match outcome {
            Some(Ok(outcome)) => {
                let (result, decision) = results::answer(Ok(outcome));
                (Ok(result), decision)
            }
            Some(Err(CallError::Tool(error))) => {
                let (result, decision) = results::answer(Err(error));
                (Ok(result), decision)
            }
            Some(Err(CallError::Store(error))) => (Err(store_failed(error)), CallDecision::Failed),
            None => (
                Err(ErrorData::internal_error("the call was cancelled", None)),
                CallDecision::Cancelled,
            ),
        };
        self.backend
            .record(AuditEntry {
                caller,
                tool,
                decision,
                duration: started.elapsed(),
            })
            .await;
        answer.map(CallToolResponse::from)
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

impl<S> std::fmt::Debug for McpServer<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("identity", &self.identity)
            .field("page_size", &self.page_size)
            .finish_non_exhaustive()
    }
}
