//! The MCP door: the host's tools, as each user's grant allows them, to
//! MCP clients over stdio and Streamable HTTP (docs/mcp.md). It parses
//! what rmcp hands it, asks the app layer ([`Host`]), and answers in
//! JSON-RPC's shape; no rule lives here.
//!
//! | file | concern |
//! | --- | --- |
//! | `server.rs` | [`McpServer`], rmcp's `ServerHandler`: `tools/list`, `tools/call` (with progress), `prompts/list` and `prompts/get`, `list_changed` |
//! | `listing.rs` | `Listings`: each user's `tools/list` pages, built once per grant and dropped when the grant changes |
//! | `results.rs` | an outcome as a `tools/call` result |
//! | `http.rs` | [`http::router`]: `/mcp` behind an `Origin` check and a bearer-token check, a session's `DELETE` answered `204`, the protected-resource metadata |
//! | `sessions.rs` | rmcp's session store over the database, so any process takes over a 2025-11-25 session another began |
//! | `hangup.rs` | noticing a client went away (an HTTP answer dropped, stdin ended), to cancel its call |
//! | `stdio.rs` | stdin and stdout: a pipe read and written through the runtime's poller, anything else through tokio's threads |

mod hangup;
pub mod http;
mod listing;
mod results;
mod server;
mod sessions;
mod skills;
mod stdio;
mod tasks;

use std::sync::Arc;

pub use server::{DEFAULT_PAGE_SIZE, McpServer};

use rmcp::ServiceExt as _;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::sync::CancellationToken;
use tool_core::Actor;

use crate::app::Host;

/// Serves MCP on this process's stdin and stdout, acting for `actor`, until
/// the client closes the connection.
pub async fn serve_stdio(host: Arc<Host>, actor: Actor) -> Result<(), std::io::Error> {
    serve_io(host, actor, stdio::input(), stdio::output()).await
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
    let hangup = CancellationToken::new();
    let server = McpServer::for_user(host, actor, hangup.clone()).with_page_size(page_size);
    let input = hangup::HangupOnEof::new(input, hangup);
    let running = server
        .clone()
        .serve((input, output))
        .await
        .map_err(std::io::Error::other)?;
    running.waiting().await.map_err(std::io::Error::other)?;
    server.finish_calls().await;
    Ok(())
}
