//! The migrations this build embeds, one file per backend for each
//! version, applied at start in a transaction each and recorded in
//! `schema_migrations`.
//!
//! A migration is a file `migrations/{sqlite,postgres}/NNNN_name.sql`
//! beside `src/`; add the version, with both files, to the list below. A
//! database whose recorded version is newer than [`LATEST_VERSION`] is
//! refused before anything is written: an older build cannot know what the
//! newer schema means.

use crate::store::AuditLog;
use sqlx::Row;

use super::{Backend, Store, StoreError, now, one_line};

/// One schema version, written once per backend.
struct Migration {
    version: i64,
    name: &'static str,
    sqlite: &'static str,
    postgres: &'static str,
}

impl Migration {
    fn sql(&self, backend: Backend) -> &'static str {
        match backend {
            Backend::Sqlite => self.sqlite,
            Backend::Postgres => self.postgres,
        }
    }
}

/// `migration!(4, "skill_approvals", "0004_skill_approvals")`: one version
/// and both of its files, so the two backends cannot drift apart.
macro_rules! migration {
    ($version:literal, $name:literal, $file:literal) => {
        Migration {
            version: $version,
            name: $name,
            sqlite: include_str!(concat!("../../migrations/sqlite/", $file, ".sql")),
            postgres: include_str!(concat!("../../migrations/postgres/", $file, ".sql")),
        }
    };
}

const MIGRATIONS: &[Migration] = &[
    migration!(1, "initial", "0001_initial"),
    migration!(2, "mcp", "0002_mcp"),
    migration!(3, "run_requests", "0003_run_requests"),
    migration!(4, "skill_approvals", "0004_skill_approvals"),
    migration!(5, "exposures", "0005_exposures"),
    migration!(6, "public_search", "0006_public_search"),
    migration!(7, "call_outcomes", "0007_call_outcomes"),
    migration!(8, "approval_votes", "0008_approval_votes"),
    migration!(9, "standing_approvals", "0009_standing_approvals"),
    migration!(10, "signin_throttle", "0010_signin_throttle"),
    migration!(11, "run_cost", "0011_run_cost"),
    migration!(12, "skill_text", "0012_skill_text"),
    migration!(13, "browser_sessions", "0013_browser_sessions"),
    migration!(14, "jobs", "0014_jobs"),
    migration!(15, "webhooks", "0015_webhooks"),
    migration!(16, "mcp_sessions", "0016_mcp_sessions"),
    migration!(17, "audit_chain", "0017_audit_chain"),
    migration!(18, "webhook_data_class", "0018_webhook_data_class"),
];

/// The newest schema version this build knows.
pub const LATEST_VERSION: i64 = MIGRATIONS[MIGRATIONS.len() - 1].version;

const CURRENT_VERSION: &str = "SELECT COALESCE(MAX(version), 0) AS version FROM schema_migrations";

const TRACKING: &str = "CREATE TABLE IF NOT EXISTS schema_migrations (
    version BIGINT PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at BIGINT NOT NULL
)";

/// Applies every migration the database lacks, each in its own
/// transaction under the exclusive lock; returns the version reached.
pub(super) async fn run(store: &Store) -> Result<i64, StoreError> {
    loop {
        let mut tx = store.begin_exclusive().await?;
        sqlx::query(TRACKING).execute(&mut *tx).await?;
        let current: i64 = sqlx::query(CURRENT_VERSION)
            .fetch_one(&mut *tx)
            .await?
            .try_get("version")?;
        if current > LATEST_VERSION {
            return Err(StoreError::NewerSchema {
                found: current,
                known: LATEST_VERSION,
            });
        }
        let Some(next) = MIGRATIONS.iter().find(|m| m.version > current) else {
            tx.commit().await?;
            return Ok(current);
        };
        let failed = |error: sqlx::Error| StoreError::Migration {
            version: next.version,
            name: next.name,
            reason: one_line(&error.to_string()),
        };
        sqlx::raw_sql(next.sql(store.backend()))
            .execute(&mut *tx)
            .await
            .map_err(failed)?;
        sqlx::query(
            "INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)",
        )
        .bind(next.version)
        .bind(next.name)
        .bind(now())
        .execute(&mut *tx)
        .await
        .map_err(failed)?;
        tx.commit().await?;
    }
}

impl AuditLog<'_> {
    /// The schema version recorded in the database.
    pub async fn schema_version(&self) -> Result<i64, StoreError> {
        Ok(sqlx::query(CURRENT_VERSION)
            .fetch_one(&self.store.pool)
            .await?
            .try_get("version")?)
    }
}
