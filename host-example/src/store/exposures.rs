//! What single calls have read (gate 9): one [`Exposure`] per MCP session
//! or per session-less caller, kept where every host process sharing the
//! database finds it.

use std::time::Duration;

use sqlx::Row;
use tool_core::exposure::Exposure;

use super::{Store, StoreError, from_json, now, to_json};

/// How often a caller's last call is written when nothing rose: the
/// window is minutes long, so its end moving by up to a minute is
/// nothing, and a call that only reads writes nothing most of the time.
const SEEN_RESOLUTION_SECS: i64 = 60;

/// What the store holds for one key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredExposure {
    /// What was read, forgotten ones left out.
    pub exposure: Exposure,
    /// When its last call was recorded, in seconds since the epoch; 0 for
    /// a key never seen.
    pub seen_at: i64,
}

impl Store {
    /// What `key` has read, unless its last call is more than `window`
    /// ago: then nothing (a caller idle for a whole window starts over).
    pub async fn exposure(
        &self,
        key: &str,
        window: Duration,
    ) -> Result<StoredExposure, StoreError> {
        let row = sqlx::query("SELECT exposure, seen_at FROM exposures WHERE key = $1")
            .bind(key)
            .fetch_optional(self.pool())
            .await?;
        let Some(row) = row else {
            return Ok(StoredExposure {
                exposure: Exposure::default(),
                seen_at: 0,
            });
        };
        let seen_at: i64 = row.try_get("seen_at")?;
        if !within(seen_at, window) {
            // Forgotten: nothing to keep alive either.
            return Ok(StoredExposure {
                exposure: Exposure::default(),
                seen_at: 0,
            });
        }
        Ok(StoredExposure {
            exposure: from_json(&row, "exposure", || format!("the exposure of `{key}`"))?,
            seen_at,
        })
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
        let mut tx = self.begin_write().await?;
        let query = format!(
            "SELECT exposure, seen_at FROM exposures WHERE key = $1{}",
            self.for_update()
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
            .execute(self.pool())
            .await?;
        Ok(())
    }
}

/// Whether a last call at `seen_at` is at most `window` ago.
fn within(seen_at: i64, window: Duration) -> bool {
    let window = i64::try_from(window.as_secs()).unwrap_or(i64::MAX);
    now().saturating_sub(seen_at) <= window
}
