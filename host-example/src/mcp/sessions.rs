//! rmcp's session store over the app layer ([`Sessions::keep_mcp_session`](crate::app::Sessions::keep_mcp_session)
//! and its kin): a 2025-11-25 session begun on one host process is
//! stored in the database, and another process sharing it restores the
//! session when a request carrying its `Mcp-Session-Id` reaches it
//! (rmcp replays the client's `initialize` there). Every request is still
//! authenticated on its own; the session only carries the handshake.

use std::sync::Arc;

use rmcp::transport::streamable_http_server::session::store::{
    SessionState, SessionStore, SessionStoreError,
};

use crate::app::Host;

/// The sessions every process sharing the database can restore.
pub(crate) struct StoredSessions(pub(crate) Arc<Host>);

#[async_trait::async_trait]
impl SessionStore for StoredSessions {
    async fn load(&self, session_id: &str) -> Result<Option<SessionState>, SessionStoreError> {
        let Some(state) = self.0.sessions().mcp_session(session_id).await? else {
            return Ok(None);
        };
        Ok(Some(serde_json::from_str(&state)?))
    }

    async fn store(&self, session_id: &str, state: &SessionState) -> Result<(), SessionStoreError> {
        let state = serde_json::to_string(state)?;
        Ok(self
            .0
            .sessions()
            .keep_mcp_session(session_id, &state)
            .await?)
    }

    async fn delete(&self, session_id: &str) -> Result<(), SessionStoreError> {
        Ok(self.0.sessions().end_mcp_session(session_id).await?)
    }
}
