//! SQLite as a server runs it: the WAL journal, and `synchronous` on every
//! connection as the `durability` setting says (SQLite only: PostgreSQL's
//! durability is the server's own).

use host_example::store::{Durability, Store};
use sqlx::Row;

use crate::backends::TestDb;

/// `synchronous` of `n` connections held at once, so each is a different
/// connection of the pool.
async fn synchronous_of_connections(store: &Store, n: usize) -> Vec<i64> {
    let mut held = Vec::new();
    for _ in 0..n {
        held.push(store.pool().acquire().await.unwrap());
    }
    let mut levels = Vec::new();
    for connection in &mut held {
        let row = sqlx::query("PRAGMA synchronous")
            .fetch_one(&mut **connection)
            .await
            .unwrap();
        levels.push(row.try_get::<i64, _>(0).unwrap());
    }
    levels
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sqlite_runs_in_wal_with_normal_sync_on_every_connection() {
    let db = TestDb::sqlite();
    let store = Store::open(&db.url).await.unwrap();
    let mode: String = sqlx::query("PRAGMA journal_mode")
        .fetch_one(store.pool())
        .await
        .unwrap()
        .try_get(0)
        .unwrap();
    assert_eq!(mode, "wal");
    assert_eq!(store.durability(), Durability::Normal);
    // NORMAL is 1.
    assert_eq!(synchronous_of_connections(&store, 4).await, vec![1; 4]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn durability_full_is_read_at_the_next_open() {
    let db = TestDb::sqlite();
    let store = Store::open(&db.url).await.unwrap();
    store
        .config()
        .set_setting("durability", r#""full""#)
        .await
        .unwrap();
    store.pool().close().await;
    let store = Store::open(&db.url).await.unwrap();
    assert_eq!(store.durability(), Durability::Full);
    // FULL is 2.
    assert_eq!(synchronous_of_connections(&store, 4).await, vec![2; 4]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_durability_that_is_neither_is_refused() {
    let db = TestDb::sqlite();
    let store = Store::open(&db.url).await.unwrap();
    let error = store
        .config()
        .set_setting("durability", r#""sometimes""#)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("setting `durability`: does not fit"),
        "{error}"
    );
    let setting = store.config().settings().await.unwrap();
    let durability = setting
        .iter()
        .find(|s| s.key.name() == "durability")
        .unwrap();
    assert!(durability.is_default);
}
