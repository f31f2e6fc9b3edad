//! Failed sign-ins, counted per key (a user name or an address) in the
//! database, so every host process sharing it holds back the same
//! guesser. The policy (how long to hold back after how many failures)
//! is the app layer's; this keeps the counts and the times.

use crate::store::People;
use sqlx::Row;

use super::StoreError;

/// Where one key stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThrottleState {
    /// Failures since the last quiet spell.
    pub failures: i64,
    /// The next attempt is not checked before this time (seconds since the
    /// Unix epoch).
    pub not_before: i64,
    /// Locked until this time; 0 when not locked.
    pub locked_until: i64,
}

impl People<'_> {
    /// Where `key` stands, `None` when it has no failures kept.
    pub async fn throttle(&self, key: &str) -> Result<Option<ThrottleState>, StoreError> {
        let row = sqlx::query(
            "SELECT failures, not_before, locked_until FROM signin_throttle WHERE key = $1",
        )
        .bind(key)
        .fetch_optional(&self.store.pool)
        .await?;
        row.map(|row| state(&row)).transpose()
    }

    /// Counts one failure of `key` at `now`, starting the count afresh when
    /// the last failure is `quiet` seconds old or more, and stores the
    /// times `hold` gives for the new count (`(not_before, locked_until)`).
    /// Returns the new state. One transaction: two processes counting at
    /// once both count.
    pub async fn count_failure(
        &self,
        key: &str,
        now: i64,
        quiet: i64,
        hold: impl Fn(i64) -> (i64, i64),
    ) -> Result<ThrottleState, StoreError> {
        let mut tx = self.store.begin_write().await?;
        let row = sqlx::query(
            "INSERT INTO signin_throttle (key, failures, last_failure_at, not_before, locked_until)
             VALUES ($1, 1, $2, 0, 0)
             ON CONFLICT (key) DO UPDATE SET
                 failures = CASE WHEN signin_throttle.last_failure_at <= $3 THEN 1
                                 ELSE signin_throttle.failures + 1 END,
                 last_failure_at = excluded.last_failure_at
             RETURNING failures",
        )
        .bind(key)
        .bind(now)
        .bind(now - quiet)
        .fetch_one(&mut *tx)
        .await?;
        let failures: i64 = row.try_get("failures")?;
        let (not_before, locked_until) = hold(failures);
        sqlx::query("UPDATE signin_throttle SET not_before = $1, locked_until = $2 WHERE key = $3")
            .bind(not_before)
            .bind(locked_until)
            .bind(key)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(ThrottleState {
            failures,
            not_before,
            locked_until,
        })
    }

    /// Forgets `key`'s failures; whether it had any.
    pub async fn clear_throttle(&self, key: &str) -> Result<bool, StoreError> {
        let done = sqlx::query("DELETE FROM signin_throttle WHERE key = $1")
            .bind(key)
            .execute(&self.store.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    /// Every key starting with `prefix` locked at `now`, by key.
    pub async fn locked(
        &self,
        prefix: &str,
        now: i64,
    ) -> Result<Vec<(String, ThrottleState)>, StoreError> {
        let rows = sqlx::query(
            "SELECT key, failures, not_before, locked_until FROM signin_throttle
             WHERE locked_until > $1 ORDER BY key",
        )
        .bind(now)
        .fetch_all(&self.store.pool)
        .await?;
        let mut found = Vec::new();
        for row in &rows {
            let key: String = row.try_get("key")?;
            if key.starts_with(prefix) {
                found.push((key, state(row)?));
            }
        }
        Ok(found)
    }
}

fn state(row: &sqlx::any::AnyRow) -> Result<ThrottleState, StoreError> {
    Ok(ThrottleState {
        failures: row.try_get("failures")?,
        not_before: row.try_get("not_before")?,
        locked_until: row.try_get("locked_until")?,
    })
}
