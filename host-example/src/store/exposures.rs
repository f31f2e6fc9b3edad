//! What single calls have read (gate 9): one [`Exposure`] per MCP session
//! or per session-less caller, kept where every host process sharing the
//! database finds it.

use crate::store::RunLog;
use std::time::Duration;

use sqlx::Row;
use tool_core::exposure::Exposure;

use super::{StoreError, from_json, now, to_json};

/// How often a caller's last call is written when nothing rose: the
/// window is minutes long, so its end moving by up to a minute is
/// nothing, and a call that only reads writes nothing most of the time.
const SEEN_RESOLUTION_SECS: i64 = 60;

/// What the store holds for one key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StoredExposure {
    /// What was read, forgotten ones left out.
    pub exposure: Exposure,
    /// When its last call was recorded, in seconds since the epoch; 0 for
    /// a key never seen.
    pub seen_at: i64,
}

/// What a call reads before it runs, in one statement
/// ([`RunLog::call_state`](crate::store::RunLog::call_state)): the settings generation, which says whether
/// the settings it holds are still the settings, and its caller's
/// exposure row.
#[derive(Debug)]
pub struct CallState {
    /// The settings generation.
    pub generation: u64,
    key: String,
    /// The exposure's JSON and its last call, if the key has a row.
    row: Option<(String, i64)>,
    /// The same of the session key, when one was asked for.
    session: Option<(String, Option<(String, i64)>)>,
}

impl CallState {
    /// What the key has read, unless its last call is more than `window`
    /// ago (then nothing: forgotten).
    pub fn exposure(&self, window: Duration) -> Result<StoredExposure, StoreError> {
        stored(&self.key, self.row.as_ref(), window)
    }

    /// What the session key read along has read, over `window` the same
    /// way; nothing when none was asked for.
    pub fn session_exposure(&self, window: Duration) -> Result<StoredExposure, StoreError> {
        match &self.session {
            Some((key, row)) => stored(key, row.as_ref(), window),
            None => Ok(StoredExposure::default()),
        }
    }
}

fn stored(
    key: &str,
    row: Option<&(String, i64)>,
    window: Duration,
) -> Result<StoredExposure, StoreError> {
    let Some((text, seen_at)) = row else {
        return Ok(StoredExposure::default());
    };
    if !within(*seen_at, window) {
        // Forgotten: nothing to keep alive either.
        return Ok(StoredExposure::default());
    }
    let exposure = serde_json::from_str(text).map_err(|error| StoreError::Corrupt {
        what: format!("the exposure of `{key}`"),
        reason: error.to_string(),
    })?;
    Ok(StoredExposure {
        exposure,
        seen_at: *seen_at,
    })
}

pub(super) const CALL_STATE: &str = "SELECT g.generation, e.exposure, e.seen_at
     FROM settings_generation g LEFT JOIN exposures e ON e.key = $1
     WHERE g.id = 1";

/// [`CALL_STATE`] with a session's row too: a call in a session reads
/// both in the one statement.
const CALL_STATE_WITH_SESSION: &str = "SELECT g.generation, e.exposure, e.seen_at,
         s.exposure AS session_exposure, s.seen_at AS session_seen_at
     FROM settings_generation g LEFT JOIN exposures e ON e.key = $1
         LEFT JOIN exposures s ON s.key = $2
     WHERE g.id = 1";

/// A call's state as [`CALL_STATE`] reads it: the settings generation,
/// and the caller's stored exposure and last call, if any (and the
/// session's, with [`CALL_STATE_WITH_SESSION`]).
pub(super) type CallStateRow = (i64, Option<(String, i64)>, Option<(String, i64)>);

/// [`CALL_STATE`]'s row as the direct connection reads it.
fn call_state_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<CallStateRow> {
    let caller = row.get::<_, Option<String>>(1)?.zip(row.get(2)?);
    let session = match row.as_ref().column_count() {
        5 => row.get::<_, Option<String>>(3)?.zip(row.get(4)?),
        _ => None,
    };
    Ok((row.get(0)?, caller, session))
}

impl RunLog<'_> {
    /// The settings generation and `key`'s exposure row, in one statement:
    /// a call makes this read before every tool it runs. On SQLite it runs
    /// on the calling thread when it can (store/direct.rs), else on a
    /// connection kept for it (store/kept.rs).
    pub async fn call_state(&self, key: &str) -> Result<CallState, StoreError> {
        self.call_state_in(key, None).await
    }

    /// [`RunLog::call_state`](crate::store::RunLog::call_state) with the row of `session` (a session's key)
    /// read in the same statement, when given.
    pub async fn call_state_in(
        &self,
        key: &str,
        session: Option<&str>,
    ) -> Result<CallState, StoreError> {
        let direct = self.store.direct.as_ref().and_then(|direct| match session {
            None => direct.query_row(CALL_STATE, [key], call_state_row),
            Some(session) => {
                direct.query_row(CALL_STATE_WITH_SESSION, [key, session], call_state_row)
            }
        });
        let (generation, row, session_row) = match direct {
            Some(row) => row,
            None => self.call_state_through_sqlx(key, session).await?,
        };
        Ok(CallState {
            generation: u64::try_from(generation).unwrap_or(0),
            key: key.to_owned(),
            row,
            session: session.map(|session| (session.to_owned(), session_row)),
        })
    }

    /// [`RunLog::call_state_in`](crate::store::RunLog::call_state_in)'s statement on one of sqlx's connections:
    /// a kept one on SQLite, where the direct one could not serve.
    pub(super) async fn call_state_through_sqlx(
        &self,
        key: &str,
        session: Option<&str>,
    ) -> Result<CallStateRow, StoreError> {
        let mut connection = self.store.statement_connection().await?;
        let query = match session {
            None => sqlx::query(CALL_STATE).bind(key),
            Some(session) => sqlx::query(CALL_STATE_WITH_SESSION).bind(key).bind(session),
        };
        let row = query.fetch_one(&mut *connection).await;
        let row = connection.finish(row)?;
        let pair = |exposure: &str, seen_at: &str| -> Result<Option<(String, i64)>, StoreError> {
            let exposure: Option<String> = row.try_get(exposure)?;
            let seen_at: Option<i64> = row.try_get(seen_at)?;
            Ok(exposure.zip(seen_at))
        };
        let session_row = match session {
            Some(_) => pair("session_exposure", "session_seen_at")?,
            None => None,
        };
        Ok((
            row.try_get("generation")?,
            pair("exposure", "seen_at")?,
            session_row,
        ))
    }

    /// What `key` has read, unless its last call is more than `window`
    /// ago ([`CallState::exposure`]).
    pub async fn exposure(
        &self,
        key: &str,
        window: Duration,
    ) -> Result<StoredExposure, StoreError> {
        self.call_state(key).await?.exposure(window)
    }

    /// Records a call of `key` that raised its exposure to `raised`: merged
    /// with what another call stored meanwhile (in this or another
    /// process), in one write transaction, so a rise is never lost.
    pub async fn raise_exposure(
        &self,
        key: &str,
        raised: &Exposure,
        window: Duration,
    ) -> Result<Exposure, StoreError> {
        let mut tx = self.store.begin_write().await?;
        let query = format!(
            "SELECT exposure, seen_at FROM exposures WHERE key = $1{}",
            self.store.for_update()
        );
        let row = sqlx::query(&query)
            .bind(key)
            .fetch_optional(&mut *tx)
            .await?;
        let mut merged = raised.clone();
        if let Some(row) = row
            && within(row.try_get("seen_at")?, window)
        {
            let stored: Exposure =
                from_json(&row, "exposure", || format!("the exposure of `{key}`"))?;
            let _ = merged.absorb(&stored);
        }
        sqlx::query(
            "INSERT INTO exposures (key, exposure, seen_at) VALUES ($1, $2, $3)
             ON CONFLICT (key) DO UPDATE SET exposure = excluded.exposure, seen_at = excluded.seen_at",
        )
        .bind(key)
        .bind(to_json(&merged))
        .bind(now())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(merged)
    }

    /// Moves `key`'s last call to now when the stored time is older than
    /// a minute, so a caller that keeps calling keeps what
    /// it read.
    pub async fn touch_exposure(&self, key: &str, seen_at: i64) -> Result<(), StoreError> {
        let at = now();
        if seen_at == 0 || at.saturating_sub(seen_at) < SEEN_RESOLUTION_SECS {
            return Ok(());
        }
        sqlx::query("UPDATE exposures SET seen_at = $1 WHERE key = $2 AND seen_at < $1")
            .bind(at)
            .bind(key)
            .execute(self.store.pool())
            .await?;
        Ok(())
    }
}

/// Whether a last call at `seen_at` is at most `window` ago.
fn within(seen_at: i64, window: Duration) -> bool {
    let window = i64::try_from(window.as_secs()).unwrap_or(i64::MAX);
    now().saturating_sub(seen_at) <= window
}
