//! The MCP server: the host's tools, as each user's grant allows them, to
//! MCP clients over stdio and Streamable HTTP (docs/mcp.md).
//!
//! | file | concern |
//! | --- | --- |
//! | `backend.rs` | [`Store`], the host's storage, and [`Backend`], the rules over it: grants cached per settings generation, the gated call, approval, audit |
//! | `sql.rs` | [`SqlStore`] and [`SqlBackend`]: the host's database, as `host-example mcp` and `host-example serve` use it |
//! | `memory.rs` | [`MemoryStore`] and [`MemoryBackend`], a host without a database (tests) |
//! | `server.rs` | [`McpServer`], rmcp's `ServerHandler`: `tools/list`, `tools/call`, `list_changed` |
//! | `results.rs` | an outcome as a `tools/call` result |
//! | `http.rs` | [`http::router`]: `/mcp` behind a bearer-token check |
//!
//! Every transport calls the same [`Backend`]; none re-checks a rule.

mod backend;
pub mod http;
mod memory;
mod results;
mod server;
mod sql;

use std::sync::Arc;

pub use backend::{
    ApproveError, AuditEntry, Backend, CallDecision, CallError, Caller, SETTINGS_POLL_INTERVAL,
    Settings, Store, StoreError, StoredProposal,
};
pub use memory::{MemoryBackend, MemoryStore};
pub use server::{DEFAULT_PAGE_SIZE, McpServer};
pub use sql::{SqlBackend, SqlStore};

use rmcp::ServiceExt as _;
use tool_core::Actor;

/// Serves MCP on this process's stdin and stdout, acting for `actor`, until
/// the client closes the connection.
pub async fn serve_stdio<S: Store>(
    backend: Arc<Backend<S>>,
    actor: Actor,
) -> Result<(), std::io::Error> {
    let running = McpServer::for_user(backend, actor)
        .serve(rmcp::transport::stdio())
        .await
        .map_err(std::io::Error::other)?;
    running.waiting().await.map_err(std::io::Error::other)?;
    Ok(())
}
