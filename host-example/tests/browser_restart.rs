//! A batch survives a restart of the host, in a real browser: the real
//! binary (`host-example serve`) over a SQLite file, killed with SIGKILL in
//! the middle of a batch of 20 and started again, driven by Playwright
//! (`tests/browser/test_batch_restart.py`, which starts and kills the
//! binary itself). The model is the scripted fake Chat Completions server
//! of the other browser tests, in this process, so it outlives the kill.
//!
//! Afterwards the database must hold each record's run exactly once: 20
//! items done, 20 distinct runs, no run started twice.
//!
//! Without the browser or the virtualenv the test prints a note and passes,
//! unless `CI` is set: then it fails.

#[path = "support/scripted_model.rs"]
mod scripted_model;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use host_example::store::Store;
use scripted_model::ScriptedModel;
use sqlx::Row;

fn venv_python() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"));
    target.join("browser/bin/python")
}

#[test]
fn a_batch_of_20_survives_a_restart_of_serve() {
    let python = venv_python();
    if !python.exists() || !Path::new("/usr/bin/chromium").exists() {
        let note = format!(
            "browser tests skipped: run host-example/tests/browser/install.sh (missing {} or /usr/bin/chromium)",
            python.display()
        );
        assert!(std::env::var_os("CI").is_none(), "{note}");
        eprintln!("{note}");
        return;
    }
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let folder = tempfile::tempdir().unwrap();
    let url = format!(
        "sqlite://{}?mode=rwc",
        folder.path().join("host.db").display()
    );
    let model = runtime.block_on(async {
        let store = Store::open(&url).await.unwrap();
        let model = ScriptedModel::start().await;
        store
            .config()
            .set_setting("model", &model.setting())
            .await
            .unwrap();
        store
            .config()
            .set_setting(
                "tools",
                r#"{"create_translation_draft": {"state": "enabled"}}"#,
            )
            .await
            .unwrap();
        // Short leases: the restarted process takes the batch over two
        // seconds after the kill.
        store
            .config()
            .set_setting("worker", r#"{"concurrency": 2, "lease_seconds": 2}"#)
            .await
            .unwrap();
        store.pool().close().await;
        model
    });
    // A free address for both processes, one after the other.
    let address = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let test = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser/test_batch_restart.py");
    let status = Command::new(&python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(&test)
        .env("BASE_URL", format!("http://{address}"))
        .env("SERVE_ADDR", address.to_string())
        .env("SERVE_BIN", env!("CARGO_BIN_EXE_host-example"))
        .env("HOST_DATABASE_URL", &url)
        .env("HOST_INDEX_DIR", folder.path().join("index"))
        .env("MODEL_URL", &model.base_url)
        .status()
        .unwrap();
    if !status.success() {
        let kept = folder.keep();
        panic!(
            "the browser test failed (pytest's output is above); the database is kept in {}",
            kept.display()
        );
    }
    runtime.block_on(async {
        let store = Store::open(&url).await.unwrap();
        let items = sqlx::query("SELECT state, run_id FROM batch_items")
            .fetch_all(store.pool())
            .await
            .unwrap();
        assert_eq!(items.len(), 20);
        let mut runs = BTreeSet::new();
        for item in &items {
            assert_eq!(item.try_get::<String, _>("state").unwrap(), "done");
            runs.insert(item.try_get::<String, _>("run_id").unwrap());
        }
        assert_eq!(runs.len(), 20, "one run per record");
        let stored: Vec<String> = sqlx::query("SELECT id FROM runs WHERE user_name = 'petra'")
            .fetch_all(store.pool())
            .await
            .unwrap()
            .iter()
            .map(|row| row.try_get("id").unwrap())
            .collect();
        assert_eq!(stored.len(), 20, "no record's run started twice");
        let recovered = sqlx::query("SELECT COUNT(*) AS n FROM audit WHERE tool = 'recovery'")
            .fetch_one(store.pool())
            .await
            .unwrap()
            .try_get::<i64, _>("n")
            .unwrap();
        eprintln!("runs recovered after the kill: {recovered}");
        assert!(stored.iter().all(|id| runs.contains(id)));
        let job = sqlx::query("SELECT status, attempts FROM jobs")
            .fetch_one(store.pool())
            .await
            .unwrap();
        assert_eq!(job.try_get::<String, _>("status").unwrap(), "done");
        assert!(
            job.try_get::<i64, _>("attempts").unwrap() >= 2,
            "the restarted process took the batch over"
        );
    });
}
