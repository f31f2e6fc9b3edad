//! `host-example mcp`: the host's tools over MCP on stdio, acting for one
//! user (the form desktop MCP clients start).

use std::sync::Arc;

use host_example::mcp::{self, SqlBackend, SqlStore};

use super::{Context, Failure};

pub async fn run(context: &Context) -> Result<(), Failure> {
    let name = context.user("mcp")?;
    let store = context.store().await?;
    let registry = host_example::registry().map_err(|error| Failure::new(error.to_string()))?;
    let backend = Arc::new(SqlBackend::new(registry, SqlStore::new(store)));
    let actor = backend
        .user(name)
        .await
        .map_err(|error| Failure::new(error.to_string()))?
        .ok_or_else(|| Failure::new(format!("no user `{name}`; see `host-example users list`")))?;
    mcp::serve_stdio(backend, actor)
        .await
        .map_err(|error| Failure::new(format!("the MCP connection failed: {error}")))
}
