//! Seeding a fresh database: site-model's demo site ([`site_model::demo`])
//! and its users as host users, once, marked by a `seeded` row in
//! `host_meta` written in the same transaction.

use site_model::SiteData;
use sqlx::AnyConnection;

use super::site::rows;
use super::{Store, StoreError, hash_password, now};

/// The password of every demo user (`admin`, `ops`, `petra`, `nils`,
/// `clara`) in a freshly seeded database. Change it (or remove the users)
/// before the host is reachable by anyone else.
pub const DEMO_PASSWORD: &str = "demo";

/// Seeds the database unless it was seeded; returns whether it did.
pub(super) async fn run(store: &Store) -> Result<bool, StoreError> {
    let mut tx = store.begin_exclusive().await?;
    let seeded = sqlx::query("SELECT value FROM host_meta WHERE key = 'seeded'")
        .fetch_optional(&mut *tx)
        .await?
        .is_some();
    if seeded {
        tx.commit().await?;
        return Ok(false);
    }
    let data =
        SiteData::from_json(site_model::demo::DATA).map_err(|error| StoreError::Corrupt {
            what: "the demo site".into(),
            reason: error.to_string(),
        })?;
    insert_site(&mut tx, &data).await?;
    for user in &data.users {
        sqlx::query(
            "INSERT INTO users (name, admin, password_hash, created_at) VALUES ($1, $2, $3, $4)",
        )
        .bind(user.name.for_host())
        .bind(i64::from(user.admin))
        .bind(hash_password(DEMO_PASSWORD)?)
        .bind(now())
        .execute(&mut *tx)
        .await?;
    }
    sqlx::query("INSERT INTO host_meta (key, value) VALUES ('seeded', $1)")
        .bind(now().to_string())
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(true)
}

/// Inserts every entity of `data`.
async fn insert_site(conn: &mut AnyConnection, data: &SiteData) -> Result<(), StoreError> {
    for column in &data.columns {
        rows::insert_column(conn, column).await?;
    }
    for page in &data.pages {
        rows::insert_page(conn, page).await?;
    }
    for element in &data.elements {
        rows::insert_element(conn, element).await?;
    }
    for table in &data.tables {
        rows::insert_table(conn, table).await?;
    }
    for record in &data.records {
        rows::insert_record(conn, record).await?;
    }
    for entry in &data.history {
        rows::insert_history(conn, entry).await?;
    }
    for storage in &data.storages {
        rows::insert_storage(conn, storage).await?;
    }
    for file in &data.files {
        rows::insert_file(conn, file).await?;
    }
    for reference in &data.references {
        rows::insert_reference(conn, reference).await?;
    }
    for user in &data.users {
        rows::insert_user(conn, user).await?;
    }
    for group in &data.groups {
        rows::insert_group(conn, group).await?;
    }
    for entry in &data.logs {
        rows::insert_log(conn, entry).await?;
    }
    for site in &data.sites {
        rows::insert_site(conn, site).await?;
    }
    Ok(())
}
