//! MCP sessions (2025-11-25 clients' `Mcp-Session-Id`), kept in the
//! database so any host process sharing it can take over a session
//! another began. Only the id's SHA-256 is stored, as for bearer tokens;
//! the state is what rmcp replays to restore the session, as JSON. How
//! long a session is kept is the app layer's rule.

use crate::store::People;
use sqlx::Row;

use super::StoreError;
use super::users::token_hash;

impl People<'_> {
    /// Stores session `id`'s `state`, begun at `now` (replacing what a
    /// session of that id had).
    pub async fn keep_mcp_session(
        &self,
        id: &str,
        state: &str,
        now: i64,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO mcp_sessions (id_hash, state, created_at) VALUES ($1, $2, $3)
             ON CONFLICT (id_hash) DO UPDATE SET state = excluded.state, created_at = excluded.created_at",
        )
        .bind(token_hash(id))
        .bind(state)
        .bind(now)
        .execute(self.store.pool())
        .await?;
        Ok(())
    }

    /// Session `id`'s state, if it was begun at or after `since`.
    pub async fn mcp_session(&self, id: &str, since: i64) -> Result<Option<String>, StoreError> {
        let row =
            sqlx::query("SELECT state FROM mcp_sessions WHERE id_hash = $1 AND created_at >= $2")
                .bind(token_hash(id))
                .bind(since)
                .fetch_optional(self.store.pool())
                .await?;
        Ok(row.map(|row| row.try_get("state")).transpose()?)
    }

    /// Removes session `id`.
    pub async fn end_mcp_session(&self, id: &str) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM mcp_sessions WHERE id_hash = $1")
            .bind(token_hash(id))
            .execute(self.store.pool())
            .await?;
        Ok(())
    }

    /// Removes every session begun before `before`.
    pub async fn remove_mcp_sessions_before(&self, before: i64) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM mcp_sessions WHERE created_at < $1")
            .bind(before)
            .execute(self.store.pool())
            .await?;
        Ok(())
    }
}
