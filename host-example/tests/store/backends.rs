//! Fresh databases for one test each.

use std::sync::atomic::{AtomicU32, Ordering};

use sqlx::{AnyConnection, Connection};
use tempfile::TempDir;

pub struct TestDb {
    pub url: String,
    _dir: Option<TempDir>,
    /// For PostgreSQL: the server's URL and the test's database, dropped
    /// with the `TestDb`.
    postgres: Option<(String, String)>,
}

impl TestDb {
    /// A SQLite file in a fresh temporary folder.
    pub fn sqlite() -> TestDb {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}?mode=rwc", dir.path().join("host.db").display());
        TestDb {
            url,
            _dir: Some(dir),
            postgres: None,
        }
    }

    /// A fresh database on the server `HOST_TEST_POSTGRES_URL` names, or
    /// `None` (skip) when it is unset, unless `CI` is set.
    pub async fn postgres() -> Option<TestDb> {
        let Ok(base) = std::env::var("HOST_TEST_POSTGRES_URL") else {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI is set but HOST_TEST_POSTGRES_URL is not: the PostgreSQL tests must run in CI"
            );
            eprintln!("skipped: set HOST_TEST_POSTGRES_URL to run the PostgreSQL tests");
            return None;
        };
        static COUNT: AtomicU32 = AtomicU32::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .subsec_nanos();
        let name = format!(
            "host_test_{}_{}_{nanos}",
            std::process::id(),
            COUNT.fetch_add(1, Ordering::Relaxed)
        );
        sqlx::any::install_default_drivers();
        let mut admin = AnyConnection::connect(&base).await.unwrap();
        sqlx::raw_sql(&format!("CREATE DATABASE {name}"))
            .execute(&mut admin)
            .await
            .unwrap();
        let (server, _) = base.rsplit_once('/').unwrap();
        Some(TestDb {
            url: format!("{server}/{name}"),
            _dir: None,
            postgres: Some((base, name)),
        })
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        let Some((base, name)) = self.postgres.take() else {
            return;
        };
        // Drop runs inside the test's runtime, which cannot be blocked on:
        // a thread with its own runtime drops the database.
        let _ = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async {
                if let Ok(mut admin) = AnyConnection::connect(&base).await {
                    let drop = format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)");
                    let _ = sqlx::raw_sql(&drop).execute(&mut admin).await;
                }
            });
        })
        .join();
    }
}
