//! One SQLite connection used on the calling task's own thread, for the
//! two statements every call makes (its state before the tool, its audit
//! row after), whenever it can answer without waiting.
//!
//! Every other statement goes to a sqlx connection, whose worker thread
//! runs it: a trip there and back, two thread wake-ups, which on a small
//! machine cost more than the statement (BENCHMARKS.md, "The stdio round
//! trip with a call's two statements on its own thread"). These two are
//! a few microseconds of SQLite, so they run here, under three rules that
//! keep the runtime's thread from ever waiting on them:
//!
//! - **Never wait for a lock.** The connection's busy timeout is zero: a
//!   statement that would wait (another connection or process writing)
//!   fails at once with `SQLITE_BUSY`, and the store runs it through sqlx
//!   as before, where the waiting is a worker thread's.
//! - **Never flush.** It is opened only with `durability = "normal"` in
//!   WAL mode, where a commit writes the log and flushes nothing; with
//!   `full` every commit is an `fsync`, and this connection is not made.
//! - **Never checkpoint.** Its automatic checkpoint is off (a checkpoint
//!   copies the log into the database file and flushes it). Every
//!   [`CHECKPOINT_EVERY`] writes here, it has sqlx run a passive
//!   checkpoint in the background instead.
//!
//! One task at a time uses it; a task finding it in use goes through sqlx.
//! A statement that fails for any reason but `SQLITE_BUSY` closes it for
//! good, and the sqlx path then reports its own error. Each statement is
//! its own transaction, committed whole or rolled back by SQLite: a
//! statement given up here has changed nothing.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use rusqlite::{Connection, ErrorCode, OpenFlags, OptionalExtension as _, Params, Row};
use sqlx::AnyPool;

/// Rows written here between two checkpoints: at about three pages a row,
/// near the thousand pages at which SQLite's own automatic checkpoint
/// runs.
pub(super) const CHECKPOINT_EVERY: u32 = 300;

/// The connection, `None` once closed after a failure.
pub(super) struct Direct {
    connection: Mutex<Option<Connection>>,
    /// Statements that wrote here: every [`CHECKPOINT_EVERY`]th asks for
    /// a checkpoint.
    writes: AtomicU32,
    /// The store's pool, which runs the checkpoints.
    pool: AnyPool,
}

impl std::fmt::Debug for Direct {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Direct")
            .field("writes", &self.writes)
            .finish_non_exhaustive()
    }
}

impl Direct {
    /// A connection to the SQLite file `file` (the path SQLite itself
    /// reports for the database of `pool`, which runs its checkpoints), or
    /// `None` where one must not be used: the file is not in WAL mode, or
    /// cannot be opened.
    pub(super) fn open(file: &str, pool: &AnyPool) -> Option<Direct> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let opened = Connection::open_with_flags(file, flags).and_then(|connection| {
            connection.busy_timeout(Duration::ZERO)?;
            connection.pragma_update(None, "synchronous", "NORMAL")?;
            connection.pragma_update(None, "wal_autocheckpoint", 0)?;
            connection.pragma_update(None, "foreign_keys", "ON")?;
            let mode: String = connection.pragma_query_value(None, "journal_mode", |r| r.get(0))?;
            Ok((connection, mode))
        });
        match opened {
            Ok((connection, mode)) if mode.eq_ignore_ascii_case("wal") => Some(Direct {
                connection: Mutex::new(Some(connection)),
                writes: AtomicU32::new(0),
                pool: pool.clone(),
            }),
            Ok((_, mode)) => {
                tracing::warn!(
                    "{file} is in journal mode {mode}, not WAL: every statement goes through sqlx"
                );
                None
            }
            Err(error) => {
                tracing::warn!(
                    "cannot open {file} directly ({error}): every statement goes through sqlx"
                );
                None
            }
        }
    }

    /// The first row `sql` selects with `params`, made a value by `row`;
    /// `None` if there is none or it has to be read through sqlx.
    pub(super) fn query_row<T>(
        &self,
        sql: &str,
        params: impl Params,
        row: impl FnOnce(&Row<'_>) -> rusqlite::Result<T>,
    ) -> Option<T> {
        self.run(|connection| {
            connection
                .prepare_cached(sql)?
                .query_row(params, row)
                .optional()
        })
        .flatten()
    }

    /// Runs the one statement `sql` that writes, with `params`, committed
    /// on return; `None` if it has to be run through sqlx (nothing was
    /// written).
    pub(super) fn execute(&self, sql: &str, params: impl Params) -> Option<()> {
        self.run(|connection| connection.prepare_cached(sql)?.execute(params))?;
        let writes = self.writes.fetch_add(1, Ordering::Relaxed).wrapping_add(1);
        if writes.is_multiple_of(CHECKPOINT_EVERY) {
            self.checkpoint_in_background();
        }
        Some(())
    }

    /// A passive checkpoint of the log, run by sqlx in the background
    /// (this connection's own automatic checkpoint is off).
    fn checkpoint_in_background(&self) {
        let pool = self.pool.clone();
        tokio::spawn(async move {
            if let Err(error) = sqlx::query("PRAGMA wal_checkpoint(PASSIVE)")
                .execute(&pool)
                .await
            {
                tracing::warn!("the background checkpoint failed: {error}");
            }
        });
    }

    /// `statement` on the connection if it is free and open; `None` if it
    /// is in use, closed, busy, or failed (then closed).
    fn run<T>(&self, statement: impl FnOnce(&Connection) -> rusqlite::Result<T>) -> Option<T> {
        let mut guard = self.connection.try_lock().ok()?;
        let connection = guard.as_ref()?;
        match statement(connection) {
            Ok(value) => Some(value),
            Err(error) if is_busy(&error) => None,
            Err(error) => {
                tracing::warn!(
                    "a statement on the direct SQLite connection failed ({error}): closed, sqlx serves from now on"
                );
                *guard = None;
                None
            }
        }
    }
}

/// Whether `error` says the statement would have had to wait for a lock.
fn is_busy(error: &rusqlite::Error) -> bool {
    matches!(
        error.sqlite_error_code(),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
    )
}

#[cfg(test)]
mod tests {
    use sqlx::{Connection as _, Row as _};

    use super::*;
    use crate::store::{AuditEntry, AuditKind, Store};

    /// A store on a SQLite file in a folder of its own.
    async fn store(dir: &tempfile::TempDir) -> (Store, String) {
        let url = format!("sqlite://{}?mode=rwc", dir.path().join("t.db").display());
        (Store::open(&url).await.unwrap(), url)
    }

    fn entry(decision: &str) -> AuditEntry {
        AuditEntry::new(AuditKind::Call, "admin", decision)
    }

    async fn audit_rows(store: &Store, decision: &str) -> i64 {
        sqlx::query("SELECT COUNT(*) AS n FROM audit WHERE decision = $1")
            .bind(decision)
            .fetch_one(store.pool())
            .await
            .unwrap()
            .get("n")
    }

    fn written_here(store: &Store) -> u32 {
        let direct = store.direct.as_ref().expect("a direct connection");
        direct.writes.load(Ordering::Relaxed)
    }

    #[tokio::test]
    async fn an_audit_row_is_written_and_read_back_on_the_calling_thread() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _) = store(&dir).await;
        store.audit_log().audit(&entry("direct")).await.unwrap();
        assert_eq!(written_here(&store), 1);
        assert_eq!(audit_rows(&store, "direct").await, 1);
        let direct = store.direct.as_ref().unwrap();
        let count = |r: &Row<'_>| r.get::<_, i64>(0);
        let sql = "SELECT COUNT(*) FROM audit WHERE decision = $1";
        assert_eq!(direct.query_row(sql, ["direct"], count), Some(1));
        // The call's read (direct here) sees the generation sqlx reads.
        let state = store.run_log().call_state("caller:admin").await.unwrap();
        assert_eq!(
            state.generation,
            store.config().settings_generation().await.unwrap()
        );
    }

    #[tokio::test]
    async fn a_write_lock_held_elsewhere_is_not_waited_for() {
        let dir = tempfile::tempdir().unwrap();
        let (store, url) = store(&dir).await;
        let mut other = sqlx::AnyConnection::connect(&url).await.unwrap();
        sqlx::query("BEGIN IMMEDIATE")
            .execute(&mut other)
            .await
            .unwrap();
        // A write cannot be made here without waiting: it is not.
        let direct = store.direct.as_ref().unwrap();
        let insert =
            "INSERT INTO audit (at, actor, kind, decision) VALUES (0, 'x', 'call', 'held')";
        assert!(direct.execute(insert, []).is_none());
        // A read does not wait for a writer in WAL mode, and the busy
        // statement left the connection open.
        let count = |r: &Row<'_>| r.get::<_, i64>(0);
        assert!(
            direct
                .query_row("SELECT COUNT(*) FROM audit", [], count)
                .is_some()
        );
        // The store writes the row through sqlx, waiting there for the lock.
        let held = entry("held");
        let writing = tokio::spawn({
            let store = store.clone();
            async move { store.audit_log().audit(&held).await }
        });
        tokio::task::yield_now().await;
        sqlx::query("COMMIT").execute(&mut other).await.unwrap();
        writing.await.unwrap().unwrap();
        assert_eq!(audit_rows(&store, "held").await, 1);
        // The next row goes direct again.
        let written = written_here(&store);
        store.audit_log().audit(&entry("after")).await.unwrap();
        assert_eq!(written_here(&store), written + 1);
        let verified = store.audit_log().verify_audit().await.unwrap();
        assert!(verified.is_sound(), "{verified:?}");
    }

    #[tokio::test]
    async fn none_with_durability_full_or_in_memory() {
        let dir = tempfile::tempdir().unwrap();
        let (store, url) = store(&dir).await;
        assert!(store.direct.is_some());
        store
            .config()
            .set_setting("durability", r#""full""#)
            .await
            .unwrap();
        drop(store);
        assert!(Store::open(&url).await.unwrap().direct.is_none());
        let memory = Store::open("sqlite::memory:").await.unwrap();
        assert!(memory.direct.is_none());
    }

    #[tokio::test]
    async fn the_log_is_checkpointed_every_so_many_rows() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _) = store(&dir).await;
        sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
            .execute(store.pool())
            .await
            .unwrap();
        let file = dir.path().join("t.db");
        let size = || std::fs::metadata(&file).unwrap().len();
        let before = size();
        for _ in 0..CHECKPOINT_EVERY - 1 {
            store.audit_log().audit(&entry("row")).await.unwrap();
        }
        // Every row is in the log: nothing copied it into the file.
        assert_eq!(size(), before);
        store.audit_log().audit(&entry("row")).await.unwrap();
        // The checkpoint runs in the background: wait for it (at most 10 s).
        for _ in 0..200 {
            if size() > before {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert!(size() > before, "the log was not checkpointed");
    }
}
