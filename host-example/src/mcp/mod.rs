//! The MCP door: tool-mcp's server over the app layer. tool-mcp owns what
//! is MCP's (the revisions, the transports, the lists, the results, the
//! tasks' wire form, where a caller's reads are kept); this door hands it
//! the host (`door::HostDoor`: each of tool-mcp's questions answered by
//! one [`Host`] method) and nothing else. No rule lives here.
//!
//! | file | concern |
//! | --- | --- |
//! | `door.rs` | `HostDoor`: tool-mcp's `McpHost`, `Authenticate`, `Proposals` and `Skills` over [`Host`] |
//! | `sessions.rs` | rmcp's session store over the database, so any process takes over a 2025-11-25 session another began |

mod door;
mod sessions;

use std::sync::Arc;

use tokio::io::{AsyncRead, AsyncWrite};
use tool_core::Actor;
pub use tool_mcp::DEFAULT_PAGE_SIZE;
use tool_mcp::McpServer;

use crate::app::Host;

/// The server over `host`, `page_size` tools a `tools/list` page.
fn server(host: Arc<Host>, page_size: usize) -> McpServer {
    let key = host.request_state_key();
    let server = McpServer::from_host(door::HostDoor(host)).with_page_size(page_size);
    match key {
        Some(key) => server.with_request_state_key(key),
        None => server,
    }
}

/// Serves MCP on this process's stdin and stdout, acting for `actor`, until
/// the client closes the connection.
pub async fn serve_stdio(host: Arc<Host>, actor: Actor) -> Result<(), std::io::Error> {
    server(host, DEFAULT_PAGE_SIZE).serve_stdio(actor).await
}

/// Serves MCP as stdio does, on any reader and writer: one JSON-RPC
/// message a line, acting for `actor`, until `input` ends. The end of
/// `input` cancels the calls under way (their tools are told); this returns
/// once they have ended and are audited.
pub async fn serve_io(
    host: Arc<Host>,
    actor: Actor,
    input: impl AsyncRead + Send + Unpin + 'static,
    output: impl AsyncWrite + Send + Unpin + 'static,
) -> Result<(), std::io::Error> {
    serve_io_with_page_size(host, actor, DEFAULT_PAGE_SIZE, input, output).await
}

/// [`serve_io`] with `page_size` tools a `tools/list` page (at least 1).
/// Each page is built once per grant.
pub async fn serve_io_with_page_size(
    host: Arc<Host>,
    actor: Actor,
    page_size: usize,
    input: impl AsyncRead + Send + Unpin + 'static,
    output: impl AsyncWrite + Send + Unpin + 'static,
) -> Result<(), std::io::Error> {
    server(host, page_size).serve_io(actor, input, output).await
}

/// Streamable HTTP at [`http::PATH`].
pub mod http {
    use std::sync::Arc;

    use axum::Router;
    use tokio_util::sync::CancellationToken;
    pub use tool_mcp::http::{METADATA_PATH, PATH};

    use crate::app::Host;

    /// An axum router serving the host at [`PATH`] (tool-mcp's
    /// [`McpServer::router`](tool_mcp::McpServer::router)): every request
    /// carries a bearer token of a known user (a host token, or an OAuth
    /// access token where the settings name an issuer); a browser `Origin`
    /// the app layer refuses ([`crate::app::origin`]) is answered `403`;
    /// a 2025-11-25 session is stored in the database, so another process
    /// sharing it takes it over. rmcp accepts only loopback `Host`
    /// headers: serve it on a loopback address. Cancelling `stop` ends
    /// every open session and stream.
    pub fn router(host: Arc<Host>, page_size: usize, stop: CancellationToken) -> Router {
        super::server(host, page_size).router(stop)
    }
}
