//! `host-example mcp`: the host's tools over MCP on stdio, acting for one
//! user (the form desktop MCP clients start).

use std::sync::Arc;

use host_example::mcp;

use super::{Context, Failure};

pub async fn run(context: &Context) -> Result<(), Failure> {
    let name = context.user("mcp")?;
    let host = context.host().await?;
    let actor = host.actor(name).await?;
    mcp::serve_stdio(Arc::new(host), actor)
        .await
        .map_err(|error| Failure::new(format!("the MCP connection failed: {error}")))
}
