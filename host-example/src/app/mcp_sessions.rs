//! MCP sessions (2025-11-25 clients' `Mcp-Session-Id`) in the database:
//! any host process sharing it can take over a session another process
//! began, so a client behind a round-robin proxy keeps its session
//! whichever process its next request reaches (docs/decisions.md, "MCP
//! sessions across processes"). The MCP door hands rmcp's session store
//! to these; what is stored is rmcp's (the client's `initialize`
//! parameters), opaque here.
//!
//! A session is kept for [`MCP_SESSION_LIFETIME`] after it began; after
//! that another process no longer takes it over (its client is told the
//! session is unknown and begins a new one, as MCP prescribes). Expired
//! sessions are removed whenever a new one is stored. A session ended by
//! its client (`DELETE`) is removed at once.

use std::time::Duration;

use crate::app::{HostError, Sessions};
use crate::store::now;

/// How long after it began a session can be taken over by another
/// process.
pub const MCP_SESSION_LIFETIME: Duration = Duration::from_secs(24 * 60 * 60);

fn lifetime_seconds() -> i64 {
    i64::try_from(MCP_SESSION_LIFETIME.as_secs()).unwrap_or(i64::MAX)
}

impl Sessions<'_> {
    /// Stores session `id`'s `state` for other processes; expired
    /// sessions are removed first.
    pub async fn keep_mcp_session(&self, id: &str, state: &str) -> Result<(), HostError> {
        let at = now();
        self.host
            .store()
            .people()
            .remove_mcp_sessions_before(at.saturating_sub(lifetime_seconds()))
            .await?;
        self.host
            .store()
            .people()
            .keep_mcp_session(id, state, at)
            .await?;
        Ok(())
    }

    /// Session `id`'s state, unless it is unknown or expired.
    pub async fn mcp_session(&self, id: &str) -> Result<Option<String>, HostError> {
        let since = now().saturating_sub(lifetime_seconds());
        Ok(self.host.store().people().mcp_session(id, since).await?)
    }

    /// Forgets session `id` (its client ended it).
    pub async fn end_mcp_session(&self, id: &str) -> Result<(), HostError> {
        Ok(self.host.store().people().end_mcp_session(id).await?)
    }
}
