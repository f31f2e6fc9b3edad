//! The migrations this build embeds, one set per backend, applied at start
//! in a transaction each and recorded in `schema_migrations`.
//!
//! A migration is a file `migrations/{sqlite,postgres}/NNNN_name.sql`
//! beside `src/`; add the same version to both sets and to the lists
//! below. A database whose recorded version is newer than
//! [`LATEST_VERSION`] is refused before anything is written: an older
//! build cannot know what the newer schema means.

use sqlx::Row;

use super::{Backend, Store, StoreError, now, one_line};

struct Migration {
    version: i64,
    name: &'static str,
    sql: &'static str,
}

const SQLITE: &[Migration] = &[
    Migration {
        version: 1,
        name: "initial",
        sql: include_str!("../../migrations/sqlite/0001_initial.sql"),
    },
    Migration {
        version: 2,
        name: "mcp",
        sql: include_str!("../../migrations/sqlite/0002_mcp.sql"),
    },
    Migration {
        version: 3,
        name: "run_requests",
        sql: include_str!("../../migrations/sqlite/0003_run_requests.sql"),
    },
    Migration {
        version: 4,
        name: "skill_approvals",
        sql: include_str!("../../migrations/sqlite/0004_skill_approvals.sql"),
    },
];

const POSTGRES: &[Migration] = &[
    Migration {
        version: 1,
        name: "initial",
        sql: include_str!("../../migrations/postgres/0001_initial.sql"),
    },
    Migration {
        version: 2,
        name: "mcp",
        sql: include_str!("../../migrations/postgres/0002_mcp.sql"),
    },
    Migration {
        version: 3,
        name: "run_requests",
        sql: include_str!("../../migrations/postgres/0003_run_requests.sql"),
    },
    Migration {
        version: 4,
        name: "skill_approvals",
        sql: include_str!("../../migrations/postgres/0004_skill_approvals.sql"),
    },
];

/// The newest schema version this build knows.
pub const LATEST_VERSION: i64 = 4;

const TRACKING: &str = "CREATE TABLE IF NOT EXISTS schema_migrations (
    version BIGINT PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at BIGINT NOT NULL
)";

/// Applies every migration the database lacks, each in its own
/// transaction under the exclusive lock; returns the version reached.
pub(super) async fn run(store: &Store) -> Result<i64, StoreError> {
    let migrations = match store.backend() {
        Backend::Sqlite => SQLITE,
        Backend::Postgres => POSTGRES,
    };
    loop {
        let mut tx = store.begin_exclusive().await?;
        sqlx::query(TRACKING).execute(&mut *tx).await?;
        let current: i64 =
            sqlx::query("SELECT COALESCE(MAX(version), 0) AS version FROM schema_migrations")
                .fetch_one(&mut *tx)
                .await?
                .try_get("version")?;
        if current > LATEST_VERSION {
            return Err(StoreError::NewerSchema {
                found: current,
                known: LATEST_VERSION,
            });
        }
        let Some(next) = migrations.iter().find(|m| m.version > current) else {
            tx.commit().await?;
            return Ok(current);
        };
        let failed = |error: sqlx::Error| StoreError::Migration {
            version: next.version,
            name: next.name,
            reason: one_line(&error.to_string()),
        };
        sqlx::raw_sql(next.sql)
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

impl Store {
    /// The schema version recorded in the database.
    pub async fn schema_version(&self) -> Result<i64, StoreError> {
        Ok(
            sqlx::query("SELECT COALESCE(MAX(version), 0) AS version FROM schema_migrations")
                .fetch_one(&self.pool)
                .await?
                .try_get("version")?,
        )
    }
}
