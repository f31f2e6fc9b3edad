//! How SQLite is run by a server: the WAL journal (readers never wait for
//! the writer, a commit appends to the log instead of rewriting the
//! database through a rollback journal) and the `durability` setting,
//! which chooses when a commit is flushed to the disk.
//!
//! The journal mode is stored in the database file, so it is set once, on
//! a connection of its own before the pool opens. `synchronous` is a
//! property of each connection (a URL cannot carry it), so every
//! connection the pool makes sets it as it connects.
//!
//! PostgreSQL is not touched: its durability is the server's own
//! (`synchronous_commit`, `fsync`), configured by whoever runs it, and a
//! commit there already survives a crash of the host whatever this setting
//! says.

use std::time::Duration;

use sqlx::{AnyConnection, Connection, Row};

use super::{Durability, SettingKey};
use super::{StoreError, one_line};

impl Durability {
    /// The statement each new SQLite connection runs.
    pub(crate) fn pragma(self) -> &'static str {
        match self {
            Durability::Normal => "PRAGMA synchronous = NORMAL",
            Durability::Full => "PRAGMA synchronous = FULL",
        }
    }
}

/// How often switching the journal mode is tried while another process
/// holds the lock it needs (a busy timeout does not cover this switch).
const JOURNAL_MODE_ATTEMPTS: u32 = 50;

/// Puts the SQLite database at `url` in WAL mode and reads its durability
/// setting, on a connection of its own that is closed again.
pub(super) async fn prepare_sqlite(url: &str) -> Result<Durability, StoreError> {
    let connect = |error: sqlx::Error| StoreError::Connect {
        reason: one_line(&error.to_string()),
    };
    let mut connection = AnyConnection::connect(url).await.map_err(connect)?;
    let mut attempt = 1;
    loop {
        match sqlx::query("PRAGMA journal_mode = WAL")
            .execute(&mut connection)
            .await
        {
            Ok(_) => break,
            Err(_) if attempt < JOURNAL_MODE_ATTEMPTS => {
                attempt += 1;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(error) => return Err(connect(error)),
        }
    }
    let durability = stored_durability(&mut connection).await;
    let _ = connection.close().await;
    durability
}

/// The `durability` setting as stored, the default when none is (or the
/// settings table does not exist yet: a database never migrated).
async fn stored_durability(connection: &mut AnyConnection) -> Result<Durability, StoreError> {
    let table =
        sqlx::query("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'settings'")
            .fetch_optional(&mut *connection)
            .await?;
    if table.is_none() {
        return Ok(Durability::default());
    }
    let row = sqlx::query("SELECT value FROM settings WHERE key = $1")
        .bind(SettingKey::Durability.name())
        .fetch_optional(&mut *connection)
        .await?;
    let Some(row) = row else {
        return Ok(Durability::default());
    };
    let text: String = row.try_get("value")?;
    serde_json::from_str(&text).map_err(|error| StoreError::Corrupt {
        what: format!("setting `{}` (set it again)", SettingKey::Durability.name()),
        reason: error.to_string(),
    })
}
