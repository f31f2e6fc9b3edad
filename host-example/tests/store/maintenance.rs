//! `db backup` and `db check` beneath the command line: a SQLite copy
//! made while another handle writes opens and checks like the original;
//! PostgreSQL's backup is refused with what to run instead.

use host_example::store::{AuditEntry, AuditFiles, AuditKind, Backend, Store, StoreError};

pub async fn a_backup_opens_and_checks_like_the_original(url: &str) {
    let store = Store::open(url).await.unwrap();
    let check = store.audit_log().check().await.unwrap();
    assert!(check.is_sound(), "{check:?}");
    assert_eq!(check.schema_version, host_example::store::LATEST_VERSION);
    let users = check.counts.iter().find(|(t, _)| *t == "users").unwrap().1;
    assert_eq!(users, 5);

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("copy.db");
    if store.backend() == Backend::Postgres {
        let error = store.audit_log().backup(&file).await.unwrap_err();
        assert!(matches!(error, StoreError::Refused(_)), "{error}");
        assert!(error.to_string().contains("pg_dump"), "{error}");
        assert!(!file.exists());
        return;
    }
    // Written to while the copy is taken: the copy holds one state.
    let writer = {
        let store = store.clone();
        tokio::spawn(async move {
            for n in 0..50 {
                let entry = AuditEntry::new(AuditKind::Write, "admin", format!("w{n}"));
                store.audit_log().audit(&entry).await.unwrap();
            }
        })
    };
    store.audit_log().backup(&file).await.unwrap();
    writer.await.unwrap();
    // The copy's audit rows are chained under the original's key: it opens
    // with that key (a backup goes with its key file), and without it only
    // while it holds no chained row.
    let copy_url = format!("sqlite://{}", file.display());
    let copy = Store::open_with_audit(&copy_url, &AuditFiles::for_database(url))
        .await
        .unwrap();
    let chained = copy.audit_log().verify_audit().await.unwrap().rows;
    assert_eq!(Store::open(&copy_url).await.is_ok(), chained == 0);
    let copied = copy.audit_log().check().await.unwrap();
    assert!(copied.is_sound(), "{copied:?}");
    assert_eq!(copied.schema_version, check.schema_version);
    let audit = |c: &host_example::store::DatabaseCheck| {
        c.counts.iter().find(|(t, _)| *t == "audit").unwrap().1
    };
    assert!((0..=50).contains(&audit(&copied)), "{copied:?}");
    assert_eq!(
        copied
            .counts
            .iter()
            .filter(|(t, _)| *t != "audit")
            .collect::<Vec<_>>(),
        check
            .counts
            .iter()
            .filter(|(t, _)| *t != "audit")
            .collect::<Vec<_>>()
    );

    // Never over an existing file.
    let error = store.audit_log().backup(&file).await.unwrap_err();
    assert!(error.to_string().contains("exists already"), "{error}");
}
