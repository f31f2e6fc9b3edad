//! Streamable HTTP at `/mcp`: rmcp's service behind a bearer-token check.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use super::backend::{Backend, Store};
use super::server::{Authenticated, McpServer};

/// The path the MCP endpoint is served at.
pub const PATH: &str = "/mcp";

/// An axum router serving `server`'s backend at [`PATH`]. Every request
/// must carry `Authorization: Bearer TOKEN` of a known user; otherwise the
/// answer is `401` with `WWW-Authenticate: Bearer` and an empty body. The
/// handler is built once here and shared by every session.
///
/// rmcp accepts only loopback `Host` headers by default (against DNS
/// rebinding); serve it on a loopback address.
///
/// Cancelling `stop` ends every open session and stream, so a server
/// shutting down gracefully is not held open by a client's stream.
pub fn router<S: Store>(
    backend: Arc<Backend<S>>,
    page_size: usize,
    stop: CancellationToken,
) -> Router {
    let server = McpServer::per_request(Arc::clone(&backend)).with_page_size(page_size);
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default().with_cancellation_token(stop),
    );
    Router::new()
        .route_service(PATH, service)
        .layer(middleware::from_fn_with_state(backend, bearer::<S>))
}

/// Resolves the bearer token to a user, or answers 401 revealing nothing
/// (not whether the token was missing, malformed or unknown).
async fn bearer<S: Store>(
    State(backend): State<Arc<Backend<S>>>,
    mut request: Request,
    next: Next,
) -> Response {
    let token = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "));
    let actor = match token {
        Some(token) => match backend.authenticate(token).await {
            Ok(actor) => actor,
            Err(error) => {
                tracing::error!(target: "host_example::mcp", %error, "could not check a token");
                return StatusCode::SERVICE_UNAVAILABLE.into_response();
            }
        },
        None => None,
    };
    match actor {
        Some(actor) => {
            request.extensions_mut().insert(Authenticated(actor));
            next.run(request).await
        }
        None => (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer")],
        )
            .into_response(),
    }
}
