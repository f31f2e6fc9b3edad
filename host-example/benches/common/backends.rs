//! The databases a host bench runs on: a SQLite file in a temporary
//! folder, and, when `HOST_TEST_POSTGRES_URL` names a server, a fresh
//! PostgreSQL database that [`Backends::finish`] drops again.

use sqlx::{AnyConnection, Connection};
use tokio::runtime::Runtime;

pub struct Backends {
    /// Each backend's name and database URL, SQLite first.
    pub urls: Vec<(&'static str, String)>,
    /// The server's URL and the database made on it.
    postgres: Option<(String, String)>,
    _dir: tempfile::TempDir,
}

impl Backends {
    /// Makes the databases for the bench `label` (a file `label.db`, a
    /// PostgreSQL database `host_label_PID`).
    pub fn new(runtime: &Runtime, label: &str) -> Backends {
        let dir = tempfile::tempdir().unwrap();
        let sqlite = format!(
            "sqlite://{}?mode=rwc",
            dir.path().join(format!("{label}.db")).display()
        );
        let mut urls = vec![("sqlite", sqlite)];
        let postgres = std::env::var("HOST_TEST_POSTGRES_URL").ok().map(|base| {
            let name = format!("host_{label}_{}", std::process::id());
            runtime.block_on(async {
                sqlx::any::install_default_drivers();
                let mut admin = AnyConnection::connect(&base).await.unwrap();
                sqlx::raw_sql(&format!("CREATE DATABASE {name}"))
                    .execute(&mut admin)
                    .await
                    .unwrap();
            });
            let (server, _) = base.rsplit_once('/').unwrap();
            urls.push(("postgres", format!("{server}/{name}")));
            (base, name)
        });
        Backends {
            urls,
            postgres,
            _dir: dir,
        }
    }

    /// Drops the PostgreSQL database, if one was made.
    pub fn finish(self, runtime: &Runtime) {
        if let Some((base, name)) = self.postgres {
            runtime.block_on(async {
                let mut admin = AnyConnection::connect(&base).await.unwrap();
                let drop = format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)");
                let _ = sqlx::raw_sql(&drop).execute(&mut admin).await;
            });
        }
    }
}
