//! The audit trail proves itself: chains written by several stores at
//! once verify; a row edited by hand, a chain recomputed by hand from that
//! row on with another key, a row removed in the middle, two rows swapped
//! and a cut tail are each named; a missing or readable key is refused.

use std::path::Path;

use hmac::{Hmac, Mac};
use host_example::store::{
    AuditEntry, AuditFiles, AuditKind, AuditVerification, CallRows, McpClient, Store,
};
use sha2::Sha256;
use sqlx::Row;

/// A store on `url` whose key and heads files live in `dir`.
async fn open(url: &str, dir: &Path) -> Store {
    Store::open_with_audit(url, &files(dir)).await.unwrap()
}

fn files(dir: &Path) -> AuditFiles {
    AuditFiles::at(dir.join("audit.key"), None)
}

fn entry(n: usize) -> AuditEntry {
    let mut entry = AuditEntry::new(AuditKind::Call, format!("user{}", n % 3), "done");
    entry.tool = Some("get_page".into());
    entry.detail = Some(format!("row {n}"));
    entry.client = Some(McpClient {
        name: Some("chain-test".into()),
        version: Some(n.to_string()),
        protocol: Some("2026-07-28".into()),
    });
    entry.duration = Some(std::time::Duration::from_millis(n as u64));
    entry
}

/// Forty rows in one chain: lone rows and group commits alike.
async fn forty_rows(store: &Store) {
    for n in 0..20 {
        store.audit_log().audit(&entry(n)).await.unwrap();
    }
    let calls: Vec<CallRows> = (20..40)
        .map(|n| CallRows {
            audit: entry(n),
            proposal: None,
        })
        .collect();
    store.decisions().record_calls(&calls[..10]).await.unwrap();
    store.decisions().record_calls(&calls[10..]).await.unwrap();
}

async fn verified(store: &Store) -> AuditVerification {
    store.audit_log().verify_audit().await.unwrap()
}

/// `(seq, position, hash)` of every row of the only chain, in order.
async fn chain_rows(store: &Store) -> Vec<(i64, i64, String)> {
    sqlx::query("SELECT seq, chain_pos, hash FROM audit WHERE chain IS NOT NULL ORDER BY chain_pos")
        .fetch_all(store.pool())
        .await
        .unwrap()
        .iter()
        .map(|row| {
            (
                row.get::<i64, _>("seq"),
                row.get::<i64, _>("chain_pos"),
                row.get::<String, _>("hash"),
            )
        })
        .collect()
}

async fn execute(store: &Store, sql: &str, seq: i64) {
    sqlx::query(sql)
        .bind(seq)
        .execute(store.pool())
        .await
        .unwrap();
}

pub async fn concurrent_writers_in_two_stores_keep_every_chain_valid(url: &str) {
    let dir = tempfile::tempdir().unwrap();
    let first = open(url, dir.path()).await;
    let second = open(url, dir.path()).await;
    let mut writers = tokio::task::JoinSet::new();
    for (w, store) in [&first, &second, &first, &second].into_iter().enumerate() {
        let store = store.clone();
        writers.spawn(async move {
            for n in 0..25 {
                if n % 5 == 0 {
                    let calls = vec![
                        CallRows {
                            audit: entry(w * 100 + n),
                            proposal: None,
                        };
                        3
                    ];
                    store.decisions().record_calls(&calls).await.unwrap();
                } else {
                    store.audit_log().audit(&entry(w * 100 + n)).await.unwrap();
                }
            }
        });
    }
    while let Some(done) = writers.join_next().await {
        done.unwrap();
    }
    let report = verified(&first).await;
    assert!(report.is_sound(), "{:?}", report.problems);
    assert_eq!(report.chains, 2);
    assert_eq!(report.heads, 2);
    assert_eq!(report.rows, 4 * (20 + 5 * 3));
    // A store opened later (another process) verifies the same.
    let later = open(url, dir.path()).await;
    assert!(verified(&later).await.is_sound());
}

pub async fn a_row_edited_by_hand_is_named(url: &str) {
    let dir = tempfile::tempdir().unwrap();
    let store = open(url, dir.path()).await;
    forty_rows(&store).await;
    assert!(verified(&store).await.is_sound());
    let rows = chain_rows(&store).await;
    let edited = rows[17].0;
    execute(
        &store,
        "UPDATE audit SET decision = 'denied' WHERE seq = $1",
        edited,
    )
    .await;
    let report = verified(&store).await;
    let first = &report.problems[0];
    assert_eq!(
        (first.seq, first.position),
        (Some(edited), Some(18)),
        "{first}"
    );
    assert!(first.what.contains("was changed"), "{first}");
}

pub async fn a_chain_recomputed_without_the_key_is_named_at_the_edit(url: &str) {
    let dir = tempfile::tempdir().unwrap();
    let store = open(url, dir.path()).await;
    forty_rows(&store).await;
    let rows = chain_rows(&store).await;
    let edited = rows[9].0;
    execute(
        &store,
        "UPDATE audit SET actor = 'mallory' WHERE seq = $1",
        edited,
    )
    .await;
    // Every hash from the edited row on computed again exactly as the
    // host does, with the one thing the person editing lacks: the key.
    let mut previous = rows[8].2.clone();
    for (seq, position, _) in &rows[9..] {
        let row = sqlx::query(
            "SELECT chain, at, actor, run_id, tool, kind, decision, gate, detail, client_name,
             client_version, protocol, duration_ms FROM audit WHERE seq = $1",
        )
        .bind(seq)
        .fetch_one(store.pool())
        .await
        .unwrap();
        let message = serde_json::json!([
            "host-example audit 1",
            row.get::<String, _>("chain"),
            position,
            row.get::<i64, _>("at"),
            row.get::<String, _>("actor"),
            row.get::<Option<String>, _>("run_id"),
            row.get::<Option<String>, _>("tool"),
            row.get::<String, _>("kind"),
            row.get::<String, _>("decision"),
            row.get::<Option<String>, _>("gate"),
            row.get::<Option<String>, _>("detail"),
            row.get::<Option<String>, _>("client_name"),
            row.get::<Option<String>, _>("client_version"),
            row.get::<Option<String>, _>("protocol"),
            row.get::<Option<i64>, _>("duration_ms"),
            previous,
        ])
        .to_string();
        let mut mac = Hmac::<Sha256>::new_from_slice(b"a guessed key").unwrap();
        mac.update(message.as_bytes());
        let hash: String = mac
            .finalize()
            .into_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        sqlx::query("UPDATE audit SET hash = $1 WHERE seq = $2")
            .bind(&hash)
            .bind(seq)
            .execute(store.pool())
            .await
            .unwrap();
        previous = hash;
    }
    let report = verified(&store).await;
    let first = &report.problems[0];
    assert_eq!(
        (first.seq, first.position),
        (Some(edited), Some(10)),
        "{first}"
    );
    assert!(first.what.contains("without the key"), "{first}");
}

pub async fn a_row_removed_in_the_middle_is_named(url: &str) {
    let dir = tempfile::tempdir().unwrap();
    let store = open(url, dir.path()).await;
    forty_rows(&store).await;
    let rows = chain_rows(&store).await;
    execute(&store, "DELETE FROM audit WHERE seq = $1", rows[24].0).await;
    let report = verified(&store).await;
    assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
    let first = &report.problems[0];
    assert_eq!(
        (first.seq, first.position),
        (Some(rows[25].0), Some(26)),
        "{first}"
    );
    assert!(
        first
            .what
            .contains("the row at position 25 before it is missing"),
        "{first}"
    );
}

pub async fn two_rows_swapped_are_named(url: &str) {
    let dir = tempfile::tempdir().unwrap();
    let store = open(url, dir.path()).await;
    forty_rows(&store).await;
    let rows = chain_rows(&store).await;
    let (a, b) = (rows[4].0, rows[5].0);
    // Every column but the sequence number trades places.
    let columns = "chain, chain_pos, hash, at, actor, run_id, tool, kind, decision, gate, \
                   detail, client_name, client_version, protocol, duration_ms";
    let assignments = columns
        .split(", ")
        .map(|c| format!("{c} = other.{c}"))
        .collect::<Vec<_>>()
        .join(", ");
    sqlx::query("CREATE TABLE swapped AS SELECT * FROM audit WHERE seq IN ($1, $2)")
        .bind(a)
        .bind(b)
        .execute(store.pool())
        .await
        .unwrap();
    // Portable: park one row's position out of the unique index's way.
    let mut tx = store.pool().begin().await.unwrap();
    sqlx::query("UPDATE audit SET chain_pos = -1 WHERE seq = $1")
        .bind(a)
        .execute(&mut *tx)
        .await
        .unwrap();
    for (target, source) in [(b, a), (a, b)] {
        sqlx::query(&format!(
            "UPDATE audit SET {assignments} FROM (SELECT {columns} FROM swapped WHERE seq = $2) AS other WHERE audit.seq = $1"
        ))
        .bind(target)
        .bind(source)
        .execute(&mut *tx)
        .await
        .unwrap();
    }
    tx.commit().await.unwrap();
    let report = verified(&store).await;
    let first = &report.problems[0];
    assert_eq!((first.seq, first.position), (Some(a), Some(6)), "{first}");
    assert!(first.what.contains("out of order"), "{first}");
}

pub async fn a_cut_tail_is_caught_by_the_heads_file(url: &str) {
    let dir = tempfile::tempdir().unwrap();
    let store = open(url, dir.path()).await;
    forty_rows(&store).await;
    let rows = chain_rows(&store).await;
    sqlx::query(
        "DELETE FROM audit WHERE seq IN (SELECT seq FROM audit ORDER BY seq DESC LIMIT 10)",
    )
    .execute(store.pool())
    .await
    .unwrap();
    let report = verified(&store).await;
    assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
    let first = &report.problems[0];
    assert_eq!(
        (first.seq, first.position),
        (Some(rows[29].0), Some(30)),
        "{first}"
    );
    assert!(
        first
            .what
            .contains("the heads file records position 40 but the chain ends at position 30"),
        "{first}"
    );
}

pub async fn a_missing_or_readable_key_is_refused(url: &str) {
    let dir = tempfile::tempdir().unwrap();
    let store = open(url, dir.path()).await;
    store.audit_log().audit(&entry(1)).await.unwrap();
    let key = dir.path().join("audit.key");
    let text = std::fs::read_to_string(&key).unwrap();
    assert_eq!(text.trim().len(), 64);
    // Others may read it: refused.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        assert_eq!(
            std::fs::metadata(&key).unwrap().permissions().mode() & 0o777,
            0o600
        );
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).unwrap();
        let error = Store::open_with_audit(url, &files(dir.path()))
            .await
            .unwrap_err();
        assert!(error.to_string().contains("chmod 600"), "{error}");
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    // Missing while the database holds chained rows: refused, no new key.
    std::fs::rename(&key, dir.path().join("kept")).unwrap();
    let error = Store::open_with_audit(url, &files(dir.path()))
        .await
        .unwrap_err();
    assert!(error.to_string().contains("is missing"), "{error}");
    assert!(!key.exists());
    // Another key: every row fails.
    std::fs::write(&key, format!("{}\n", "ab".repeat(32))).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let other = open(url, dir.path()).await;
    assert!(!verified(&other).await.is_sound());
}
