//! Connections the store keeps out of its pool, on SQLite, for the
//! statements every call makes: the settings generation and the caller's
//! exposure before it, its audit row after.
//!
//! sqlx pings a pooled connection each time it goes back to the pool (a
//! `PoolConnection`'s drop spawns a task that does, to flush what a
//! dropped statement may have left). On SQLite that is a second trip to
//! the connection's worker thread for every statement, and on a small
//! machine a thread's wake-up costs more than the statement itself: a
//! lone `SELECT` is a few microseconds of SQLite, each wake-up tens
//! (BENCHMARKS.md, "The stdio round trip without the pool's pings"). A
//! kept connection is taken from the pool once, detached from it (the
//! pool may open another in its place), and never goes back: a statement
//! on it is one trip.
//!
//! At most [`KEPT`] are kept. A statement finding every kept one in use
//! goes through the pool as before: nothing waits for a kept connection.
//! Only single statements run on them, never a transaction, so none is
//! left open on one; a kept connection whose statement failed, or whose
//! statement's future was dropped half way, is closed, not kept.
//!
//! PostgreSQL keeps none: its connections count against the server's
//! `max_connections`, shared by every process on the database, and a
//! server may restart under a connection the pool would have tested.

use std::ops::{Deref, DerefMut};
use std::sync::Mutex;

use sqlx::AnyConnection;
use sqlx::pool::PoolConnection;
use sqlx::{Any, AnyPool};

/// How many connections are kept: one for the call before the tool, one
/// for the audit writer after it, so a call's statements and the one
/// before's audit row do not take turns.
const KEPT: usize = 2;

/// The kept connections not in use, and how many there are in all.
#[derive(Default)]
pub(super) struct Kept {
    state: Mutex<State>,
}

impl std::fmt::Debug for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = self.state();
        f.debug_struct("Kept")
            .field("idle", &state.idle.len())
            .field("open", &state.open)
            .finish()
    }
}

#[derive(Default)]
struct State {
    idle: Vec<AnyConnection>,
    /// Idle and in use.
    open: usize,
}

impl Kept {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A connection for one statement: a kept one if one is idle, a new
    /// kept one while fewer than [`KEPT`] are open, else one of `pool`'s.
    pub(super) async fn connection<'k>(
        &'k self,
        pool: &AnyPool,
    ) -> Result<StatementConnection<'k>, sqlx::Error> {
        let opening = {
            let mut state = self.state();
            if let Some(connection) = state.idle.pop() {
                return Ok(StatementConnection::Kept {
                    connection: Some(connection),
                    kept: self,
                });
            }
            if state.open == KEPT {
                None
            } else {
                state.open += 1;
                Some(Opening(Some(self)))
            }
        };
        let Some(mut opening) = opening else {
            return Ok(StatementConnection::Pooled(pool.acquire().await?));
        };
        let connection = pool.acquire().await?.detach();
        opening.0 = None;
        Ok(StatementConnection::Kept {
            connection: Some(connection),
            kept: self,
        })
    }
}

/// A kept connection counted as open while the pool is asked for it:
/// uncounted again if that fails or is given up.
struct Opening<'k>(Option<&'k Kept>);

impl Drop for Opening<'_> {
    fn drop(&mut self) {
        if let Some(kept) = self.0 {
            kept.state().open -= 1;
        }
    }
}

/// A connection one statement runs on (it dereferences to the connection,
/// an executor); [`StatementConnection::finish`] gives a kept one back.
pub(super) enum StatementConnection<'k> {
    /// A kept connection, `Some` until [`StatementConnection::finish`]
    /// keeps it again.
    Kept {
        connection: Option<AnyConnection>,
        kept: &'k Kept,
    },
    /// One of the pool's, pinged and released on drop as sqlx does.
    Pooled(PoolConnection<Any>),
}

impl StatementConnection<'_> {
    /// What the statement came to, passed on: a kept connection is kept
    /// again if it succeeded, and closed if it failed.
    pub(super) fn finish<T>(mut self, result: Result<T, sqlx::Error>) -> Result<T, sqlx::Error> {
        if result.is_ok()
            && let StatementConnection::Kept { connection, kept } = &mut self
            && let Some(connection) = connection.take()
        {
            kept.state().idle.push(connection);
        }
        result
    }
}

impl Drop for StatementConnection<'_> {
    /// A kept connection [`StatementConnection::finish`] did not keep (its
    /// statement failed, or was dropped half way) is no longer counted,
    /// and closed by its own drop, after this.
    fn drop(&mut self) {
        if let StatementConnection::Kept {
            connection: Some(_),
            kept,
        } = self
        {
            kept.state().open -= 1;
        }
    }
}

impl Deref for StatementConnection<'_> {
    type Target = AnyConnection;

    fn deref(&self) -> &AnyConnection {
        match self {
            StatementConnection::Kept { connection, .. } => connection
                .as_ref()
                .expect("a kept connection is there until finish takes it"),
            StatementConnection::Pooled(connection) => connection,
        }
    }
}

impl DerefMut for StatementConnection<'_> {
    fn deref_mut(&mut self) -> &mut AnyConnection {
        match self {
            StatementConnection::Kept { connection, .. } => connection
                .as_mut()
                .expect("a kept connection is there until finish takes it"),
            StatementConnection::Pooled(connection) => connection,
        }
    }
}

#[cfg(test)]
mod tests {
    use sqlx::any::AnyPoolOptions;

    use super::*;

    async fn pool() -> AnyPool {
        sqlx::any::install_default_drivers();
        AnyPoolOptions::new()
            .max_connections(4)
            .connect("sqlite::memory:")
            .await
            .unwrap()
    }

    fn counts(kept: &Kept) -> (usize, usize) {
        let state = kept.state();
        (state.idle.len(), state.open)
    }

    async fn select_one(connection: &mut StatementConnection<'_>) -> Result<i64, sqlx::Error> {
        sqlx::query_scalar("SELECT 1")
            .fetch_one(&mut **connection)
            .await
    }

    #[tokio::test]
    async fn a_connection_that_served_is_kept_and_used_again() {
        let pool = pool().await;
        let kept = Kept::default();
        for _ in 0..3 {
            let mut connection = kept.connection(&pool).await.unwrap();
            assert!(matches!(connection, StatementConnection::Kept { .. }));
            let one = select_one(&mut connection).await;
            assert_eq!(connection.finish(one).unwrap(), 1);
            assert_eq!(counts(&kept), (1, 1));
        }
    }

    #[tokio::test]
    async fn a_connection_whose_statement_failed_is_closed_not_kept() {
        let pool = pool().await;
        let kept = Kept::default();
        let mut connection = kept.connection(&pool).await.unwrap();
        let failed = sqlx::query("SELECT * FROM no_such_table")
            .execute(&mut *connection)
            .await;
        assert!(connection.finish(failed).is_err());
        assert_eq!(counts(&kept), (0, 0));
        // The next statement opens a fresh one.
        let mut connection = kept.connection(&pool).await.unwrap();
        let one = select_one(&mut connection).await;
        connection.finish(one).unwrap();
        assert_eq!(counts(&kept), (1, 1));
    }

    #[tokio::test]
    async fn a_connection_dropped_unfinished_is_not_counted() {
        let pool = pool().await;
        let kept = Kept::default();
        let connection = kept.connection(&pool).await.unwrap();
        assert_eq!(counts(&kept), (0, 1));
        drop(connection);
        assert_eq!(counts(&kept), (0, 0));
    }

    #[tokio::test]
    async fn with_every_kept_one_in_use_the_pool_serves() {
        let pool = pool().await;
        let kept = Kept::default();
        let mut busy = Vec::new();
        for _ in 0..KEPT {
            let connection = kept.connection(&pool).await.unwrap();
            assert!(matches!(connection, StatementConnection::Kept { .. }));
            busy.push(connection);
        }
        let mut pooled = kept.connection(&pool).await.unwrap();
        assert!(matches!(pooled, StatementConnection::Pooled(_)));
        let one = select_one(&mut pooled).await;
        assert_eq!(pooled.finish(one).unwrap(), 1);
        assert_eq!(counts(&kept), (0, KEPT));
        for mut connection in busy {
            let one = select_one(&mut connection).await;
            connection.finish(one).unwrap();
        }
        assert_eq!(counts(&kept), (KEPT, KEPT));
    }
}
