//! Looking after the database file: a consistent copy while the host runs
//! (SQLite's `VACUUM INTO`), and a check of its pages, schema and rows.

use crate::store::AuditLog;
use std::path::Path;

use sqlx::Row;

use super::{Backend, StoreError, one_line};

/// The tables `db check` counts, in the order it prints them.
const COUNTED: [&str; 7] = [
    "users",
    "runs",
    "run_events",
    "proposals",
    "decisions",
    "audit",
    "site_pages",
];

/// What `db check` found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DatabaseCheck {
    /// The backend checked.
    pub backend: Backend,
    /// SQLite's `integrity_check` lines (`["ok"]` when sound); `None` on
    /// PostgreSQL, which checks its own pages as it reads them.
    pub integrity: Option<Vec<String>>,
    /// The schema version recorded.
    pub schema_version: i64,
    /// Rows per table: users, runs, run events, proposals, decisions,
    /// audit entries and pages.
    pub counts: Vec<(&'static str, i64)>,
}

impl DatabaseCheck {
    /// Whether nothing is wrong.
    pub fn is_sound(&self) -> bool {
        self.integrity
            .as_ref()
            .is_none_or(|lines| lines.len() == 1 && lines[0] == "ok")
    }
}

impl AuditLog<'_> {
    /// Writes a consistent copy of a SQLite database to `file`, which must
    /// not exist yet; safe while other connections and processes write
    /// (one read transaction sees one state). On PostgreSQL, a refusal
    /// saying what to run instead.
    pub async fn backup(&self, file: &Path) -> Result<(), StoreError> {
        if self.store.backend == Backend::Postgres {
            return Err(StoreError::Refused(
                "a PostgreSQL database is backed up with its own tools: pg_dump --format=custom --file FILE DATABASE_URL (restore with pg_restore)".into(),
            ));
        }
        if file.exists() {
            return Err(StoreError::Refused(format!(
                "{} exists already: a backup never overwrites a file",
                file.display()
            )));
        }
        let target = file.to_str().ok_or_else(|| {
            StoreError::Refused(format!("{} is not a UTF-8 path", file.display()))
        })?;
        sqlx::query("VACUUM INTO $1")
            .bind(target)
            .execute(&self.store.pool)
            .await
            .map_err(|error| {
                StoreError::Refused(format!(
                    "the backup failed: {}",
                    one_line(&error.to_string())
                ))
            })?;
        Ok(())
    }

    /// Checks the database: SQLite's integrity check, the schema version,
    /// and the rows of the main tables.
    pub async fn check(&self) -> Result<DatabaseCheck, StoreError> {
        let integrity = match self.store.backend {
            Backend::Sqlite => Some(
                sqlx::query("PRAGMA integrity_check")
                    .fetch_all(&self.store.pool)
                    .await?
                    .iter()
                    .map(|row| row.try_get::<String, _>(0))
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            Backend::Postgres => None,
        };
        let mut counts = Vec::with_capacity(COUNTED.len());
        for table in COUNTED {
            let row = sqlx::query(&format!("SELECT COUNT(*) AS n FROM {table}"))
                .fetch_one(&self.store.pool)
                .await?;
            counts.push((table, row.try_get::<i64, _>("n")?));
        }
        Ok(DatabaseCheck {
            backend: self.store.backend,
            integrity,
            schema_version: self.schema_version().await?,
            counts,
        })
    }
}
