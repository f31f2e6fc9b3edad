//! Sessions of signed-in browsers, kept in the database so every host
//! process sharing it knows them. A session is named by a random id the
//! browser's cookie carries; only the id's SHA-256 is stored, as for bearer
//! tokens, so a copy of the database signs no one in. When a session
//! expires is the app layer's rule; this keeps the rows and their times.

use crate::store::People;
use argon2::password_hash::rand_core::{OsRng, RngCore};
use sqlx::Row;
use sqlx::any::AnyRow;

use super::StoreError;
use super::users::{hex, token_hash};

/// One session as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredBrowserSession {
    /// Who signed in; `None` for the sign-in form's own session.
    pub user: Option<String>,
    /// The token every form of the session carries.
    pub csrf: String,
    /// When it began (seconds since the Unix epoch).
    pub created_at: i64,
    /// When it was last seen in use, as recorded (seconds since the Unix
    /// epoch).
    pub last_seen_at: i64,
    /// A one-time message for the session's next page.
    pub notice: Option<String>,
}

impl StoredBrowserSession {
    fn from_row(row: &AnyRow) -> Result<StoredBrowserSession, StoreError> {
        Ok(StoredBrowserSession {
            user: row.try_get("user_name")?,
            csrf: row.try_get("csrf")?,
            created_at: row.try_get("created_at")?,
            last_seen_at: row.try_get("last_seen_at")?,
            notice: row.try_get("notice")?,
        })
    }
}

/// 32 random bytes in hex.
fn random_hex() -> String {
    let mut bytes = [0u8; 32];
    OsRng.fill_bytes(&mut bytes);
    hex(&bytes)
}

impl People<'_> {
    /// Stores a new session for `user` (`None`: the sign-in form's) begun
    /// at `now`; returns its id and CSRF token, each 32 random bytes in
    /// hex. The id is not stored: this is the one time it can be seen.
    pub async fn begin_browser_session(
        &self,
        user: Option<&str>,
        now: i64,
    ) -> Result<(String, String), StoreError> {
        let id = random_hex();
        let csrf = random_hex();
        sqlx::query(
            "INSERT INTO browser_sessions (id_hash, user_name, csrf, created_at, last_seen_at)
             VALUES ($1, $2, $3, $4, $4)",
        )
        .bind(token_hash(&id))
        .bind(user)
        .bind(&csrf)
        .bind(now)
        .execute(&self.store.pool)
        .await?;
        Ok((id, csrf))
    }

    /// The session `id` names, if one is stored (expired or not).
    pub async fn browser_session(
        &self,
        id: &str,
    ) -> Result<Option<StoredBrowserSession>, StoreError> {
        sqlx::query(
            "SELECT user_name, csrf, created_at, last_seen_at, notice
             FROM browser_sessions WHERE id_hash = $1",
        )
        .bind(token_hash(id))
        .fetch_optional(&self.store.pool)
        .await?
        .as_ref()
        .map(StoredBrowserSession::from_row)
        .transpose()
    }

    /// Records that session `id` was in use at `now` and that `shown`, its
    /// notice, was shown: the notice is removed only if it is still that
    /// one (a newer one, left meanwhile, waits for the next page).
    pub async fn touch_browser_session(
        &self,
        id: &str,
        now: i64,
        shown: Option<&str>,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE browser_sessions SET last_seen_at = $1,
                 notice = CASE WHEN notice = $2 THEN NULL ELSE notice END
             WHERE id_hash = $3",
        )
        .bind(now)
        .bind(shown)
        .bind(token_hash(id))
        .execute(&self.store.pool)
        .await?;
        Ok(())
    }

    /// Leaves `notice` for session `id`'s next page.
    pub async fn set_browser_session_notice(
        &self,
        id: &str,
        notice: &str,
    ) -> Result<(), StoreError> {
        sqlx::query("UPDATE browser_sessions SET notice = $1 WHERE id_hash = $2")
            .bind(notice)
            .bind(token_hash(id))
            .execute(&self.store.pool)
            .await?;
        Ok(())
    }

    /// Removes session `id`; whether there was one.
    pub async fn end_browser_session(&self, id: &str) -> Result<bool, StoreError> {
        let done = sqlx::query("DELETE FROM browser_sessions WHERE id_hash = $1")
            .bind(token_hash(id))
            .execute(&self.store.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    /// Removes every session last seen at `idle_before` or earlier, or
    /// begun at `begun_before` or earlier; how many.
    pub async fn remove_browser_sessions_older_than(
        &self,
        idle_before: i64,
        begun_before: i64,
    ) -> Result<u64, StoreError> {
        let done = sqlx::query(
            "DELETE FROM browser_sessions WHERE last_seen_at <= $1 OR created_at <= $2",
        )
        .bind(idle_before)
        .bind(begun_before)
        .execute(&self.store.pool)
        .await?;
        Ok(done.rows_affected())
    }

    /// How many sessions `user` has stored (expired or not).
    pub async fn browser_sessions_of(&self, user: &str) -> Result<i64, StoreError> {
        Ok(
            sqlx::query("SELECT COUNT(*) AS n FROM browser_sessions WHERE user_name = $1")
                .bind(user)
                .fetch_one(&self.store.pool)
                .await?
                .try_get("n")?,
        )
    }
}
