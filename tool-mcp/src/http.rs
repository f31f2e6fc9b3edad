//! Streamable HTTP at `/mcp`: rmcp's service behind an `Origin` check and a
//! bearer-token check, and, where the host names an authorization server,
//! the protected-resource metadata (RFC 9728) that tells clients where to
//! get a token.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use crate::hangup;
use crate::host::McpHost;
use crate::origin::{OriginVerdict, RequestOrigin};
use crate::server::{Authenticated, McpServer};

/// The path the MCP endpoint is served at.
pub const PATH: &str = "/mcp";

/// Where the protected-resource metadata is served (RFC 9728 §3), also
/// with [`PATH`] appended, the form a client derives from the endpoint.
pub const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

type Host = Arc<dyn McpHost>;

impl McpServer {
    /// An axum router serving this server at [`PATH`]. Every request
    /// must carry `Authorization: Bearer TOKEN` that the host's
    /// [`Authenticate`](crate::Authenticate) knows (a host that hands over
    /// none refuses every request); otherwise the answer is `401` with
    /// `WWW-Authenticate: Bearer` (and the metadata's URL as
    /// `resource_metadata` where the host names an authorization server)
    /// and an empty body. The handler is built once here and shared by
    /// every session.
    ///
    /// A request whose `Origin` the host refuses
    /// ([`McpHost::judge_origin`]) is answered `403` before its token is
    /// looked at.
    ///
    /// A request whose client goes away before its answer is complete
    /// cancels the call it made (the tool is told through its context's
    /// token).
    ///
    /// A session's `DELETE` is answered `204`, not rmcp's `202`.
    ///
    /// A 2025-11-25 session (`Mcp-Session-Id`) is kept in the host's
    /// session store where it hands one over
    /// ([`McpHost::sessions`]): another process sharing it takes the
    /// session over when the client's next request reaches it, so several
    /// processes can serve behind a round-robin proxy.
    ///
    /// rmcp accepts only loopback `Host` headers by default (against DNS
    /// rebinding); serve it on a loopback address.
    ///
    /// Cancelling `stop` ends every open session and stream, so a server
    /// shutting down gracefully is not held open by a client's stream.
    pub fn router(self, stop: CancellationToken) -> Router {
        let host = Arc::clone(&self.host);
        let local = Arc::clone(&self.local_sessions);
        let mut config = StreamableHttpServerConfig::default().with_cancellation_token(stop);
        config.session_store = host.sessions();
        let server = self;
        let service = StreamableHttpService::new(move || Ok(server.clone()), local, config);
        let metadata = get(metadata).with_state(Arc::clone(&host));
        Router::new()
            .route_service(PATH, service)
            .layer(middleware::from_fn(session_closed))
            .layer(middleware::from_fn_with_state(Arc::clone(&host), bearer))
            .layer(middleware::from_fn_with_state(Arc::clone(&host), origin))
            .route(METADATA_PATH, metadata.clone())
            .route(&format!("{METADATA_PATH}{PATH}"), metadata)
    }
}

/// The protected-resource metadata where the host names an authorization
/// server; `404` where it names none.
async fn metadata(State(host): State<Host>) -> Response {
    let Some(authenticate) = host.authenticate() else {
        return StatusCode::NOT_FOUND.into_response();
    };
    match authenticate.resource_metadata().await {
        Ok(Some(metadata)) => Json(metadata.document).into_response(),
        Ok(None) => StatusCode::NOT_FOUND.into_response(),
        Err(error) => {
            tracing::error!(target: "tool_mcp", %error, "could not read the metadata");
            StatusCode::SERVICE_UNAVAILABLE.into_response()
        }
    }
}

/// Refuses, with `403`, a request from a browser origin the host does
/// not admit.
async fn origin(State(host): State<Host>, request: Request, next: Next) -> Response {
    let verdict = host
        .judge_origin(RequestOrigin::of(request.headers()))
        .await;
    match verdict {
        Ok(OriginVerdict::Admitted) => next.run(request).await,
        Ok(OriginVerdict::Refused) => (
            StatusCode::FORBIDDEN,
            "Forbidden: this Origin may not use this server",
        )
            .into_response(),
        Err(error) => {
            tracing::error!(target: "tool_mcp", %error, "could not judge an Origin");
            StatusCode::SERVICE_UNAVAILABLE.into_response()
        }
    }
}

/// rmcp answers a session's `DELETE` with `202 Accepted`, but the session
/// is closed by then, and the official Python client logs "Session
/// termination failed: 202" for anything but `200` or `204`.
async fn session_closed(request: Request, next: Next) -> Response {
    let delete = request.method() == Method::DELETE;
    let response = next.run(request).await;
    if delete && response.status() == StatusCode::ACCEPTED {
        let (mut parts, _) = response.into_parts();
        parts.status = StatusCode::NO_CONTENT;
        parts.headers.remove(header::CONTENT_TYPE);
        parts.headers.remove(header::CONTENT_LENGTH);
        return Response::from_parts(parts, Body::empty());
    }
    response
}

/// Resolves the bearer token to a user, or answers 401 revealing nothing
/// (not whether the token was missing, malformed, unknown, expired, for
/// another audience or badly signed).
async fn bearer(State(host): State<Host>, mut request: Request, next: Next) -> Response {
    let token = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "));
    let actor = match (token, host.authenticate()) {
        (Some(token), Some(authenticate)) => match authenticate.authenticate(token).await {
            Ok(actor) => actor,
            Err(error) => {
                tracing::error!(target: "tool_mcp", %error, "could not check a token");
                return StatusCode::SERVICE_UNAVAILABLE.into_response();
            }
        },
        _ => None,
    };
    match actor {
        Some(actor) => {
            request.extensions_mut().insert(Authenticated(actor));
            hangup::on_drop(request, next).await
        }
        None => unauthorized(&*host).await,
    }
}

/// `401` with the challenge: `Bearer`, and where the host names an
/// authorization server, the metadata's URL (the MCP authorization spec's
/// discovery).
async fn unauthorized(host: &dyn McpHost) -> Response {
    let metadata = match host.authenticate() {
        Some(authenticate) => authenticate.resource_metadata().await,
        None => Ok(None),
    };
    let challenge = match metadata {
        Ok(Some(metadata)) => format!("Bearer resource_metadata=\"{}\"", metadata.url),
        Ok(None) => "Bearer".to_owned(),
        Err(error) => {
            tracing::error!(target: "tool_mcp", %error, "could not read the metadata");
            return StatusCode::SERVICE_UNAVAILABLE.into_response();
        }
    };
    let challenge = HeaderValue::from_str(&challenge).unwrap_or(HeaderValue::from_static("Bearer"));
    (
        StatusCode::UNAUTHORIZED,
        [(header::WWW_AUTHENTICATE, challenge)],
    )
        .into_response()
}
