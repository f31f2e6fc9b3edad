//! A minimal MCP server on tool-mcp alone: the built-in read tools over a
//! demo site, gated per caller.
//!
//! - `cargo run -p tool-mcp --example mcp_server` serves stdio;
//! - `cargo run -p tool-mcp --example mcp_server -- http 127.0.0.1:8080 TOKEN`
//!   serves Streamable HTTP at `/mcp` to `Authorization: Bearer TOKEN`.
//!
//! tool-mcp's tests run it under the official Python client (tests/clients.rs).

use std::sync::Arc;

use site_model::{MemorySite, Site};
use tokio_util::sync::CancellationToken;
use tool_core::{Actor, Registry, ToolContext};
use tool_mcp::{Gated, McpServer};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tools_builtin::link();
    let site: Arc<dyn Site> = Arc::new(MemorySite::demo());
    let host = Gated::new(Registry::linked()?).context(move |run, actor| {
        let cx = ToolContext::new(run.clone()).with_actor(actor.clone());
        cx.with_service(Arc::clone(&site))
    });
    let actor = Actor::user("petra"); // an editor of the demo site
    match std::env::args().skip(1).collect::<Vec<_>>().as_slice() {
        [mode, addr, token] if mode == "http" => {
            let server = McpServer::from_host(host.token(token, actor));
            let listener = tokio::net::TcpListener::bind(addr).await?;
            println!("listening on http://{}", listener.local_addr()?);
            axum::serve(listener, server.router(CancellationToken::new())).await?;
        }
        _ => McpServer::from_host(host).serve_stdio(actor).await?,
    }
    Ok(())
}
