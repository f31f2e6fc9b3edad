//! The MCP server: the host's tools, as each user's grant allows them, to
//! MCP clients over stdio and Streamable HTTP (docs/mcp.md).
//!
//! | file | concern |
//! | --- | --- |
//! | `backend.rs` | [`Store`], the host's storage, and [`Backend`], the rules over it: grants cached per settings generation, the gated call, approval, audit |
//! | `sql.rs` | [`SqlStore`] and [`SqlBackend`]: the host's database, as `host-example mcp` and `host-example serve` use it |
//! | `audit_writer.rs` | group commit: calls finishing together share one audit transaction |
//! | `memory.rs` | [`MemoryStore`] and [`MemoryBackend`], a host without a database (tests) |
//! | `listing.rs` | `Listings`: each user's `tools/list` pages, built once per grant and dropped when the grant changes |
//! | `line_transport.rs` | stdio's transport: writes a `tools/list` page from its pre-serialized JSON |
//! | `list_reader.rs` | stdio's input before rmcp: answers a plain `tools/list` of an initialized session from the cached page |
//! | `list_request.rs` | what a plain `tools/list` request is, read without copying |
//! | `server.rs` | [`McpServer`], rmcp's `ServerHandler`: `tools/list`, `tools/call`, `list_changed` |
//! | `results.rs` | an outcome as a `tools/call` result |
//! | `http.rs` | [`http::router`]: `/mcp` behind a bearer-token check, the protected-resource metadata |
//! | `oauth.rs` | [`OAuthSettings`] and the verifier of an issuer's access tokens (JWT, keys from its JWKS) |
//! | `hangup.rs` | noticing a client went away (an HTTP answer dropped, stdin ended), to cancel its call |
//!
//! Every transport calls the same [`Backend`]; none re-checks a rule.

mod audit_writer;
mod backend;
mod hangup;
pub mod http;
mod line_transport;
mod list_reader;
mod list_request;
mod listing;
mod memory;
mod oauth;
mod results;
mod server;
mod sql;

use std::sync::Arc;

pub use backend::{
    ApproveError, AuditEntry, Backend, CallDecision, CallError, Caller, SETTINGS_POLL_INTERVAL,
    Settings, Store, StoreError, StoredProposal,
};
pub use memory::{MemoryBackend, MemoryStore};
pub use oauth::{JWKS_REFETCH_INTERVAL, OAuthSettings};
pub use server::{DEFAULT_PAGE_SIZE, McpServer};
pub use sql::{SqlBackend, SqlStore};

use line_transport::{LineTransport, Prepared};
use rmcp::ServiceExt as _;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::sync::CancellationToken;
use tool_core::Actor;

/// Serves MCP on this process's stdin and stdout, acting for `actor`, until
/// the client closes the connection.
pub async fn serve_stdio<S: Store>(
    backend: Arc<Backend<S>>,
    actor: Actor,
) -> Result<(), std::io::Error> {
    let (stdin, stdout) = rmcp::transport::stdio();
    serve_io(backend, actor, stdin, stdout).await
}

/// Serves MCP as stdio does, on any reader and writer: one JSON-RPC
/// message a line, acting for `actor`, until `input` ends. The end of
/// `input` cancels the calls under way (their tools are told); this returns
/// once they have ended and are audited.
pub async fn serve_io<S: Store>(
    backend: Arc<Backend<S>>,
    actor: Actor,
    input: impl AsyncRead + Send + Unpin + 'static,
    output: impl AsyncWrite + Send + Unpin + 'static,
) -> Result<(), std::io::Error> {
    serve_io_with_page_size(backend, actor, DEFAULT_PAGE_SIZE, input, output).await
}

/// [`serve_io`] with `page_size` tools a `tools/list` page (at least 1).
/// Each page is written from JSON made once per grant.
pub async fn serve_io_with_page_size<S: Store>(
    backend: Arc<Backend<S>>,
    actor: Actor,
    page_size: usize,
    input: impl AsyncRead + Send + Unpin + 'static,
    output: impl AsyncWrite + Send + Unpin + 'static,
) -> Result<(), std::io::Error> {
    let hangup = CancellationToken::new();
    let prepared = Arc::new(Prepared::default());
    let server = McpServer::for_user(backend, actor, hangup.clone())
        .with_page_size(page_size)
        .with_prepared(Arc::clone(&prepared));
    let input = hangup::HangupOnEof::new(input, hangup);
    let running = server
        .clone()
        .serve(LineTransport::new(
            input,
            output,
            prepared,
            Arc::new(server.clone()),
        ))
        .await
        .map_err(std::io::Error::other)?;
    running.waiting().await.map_err(std::io::Error::other)?;
    server.finish_calls().await;
    Ok(())
}
