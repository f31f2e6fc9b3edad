//! [`Changes::apply`] over SQL: one transaction holding the write lock
//! (SQLite's `BEGIN IMMEDIATE`; on PostgreSQL every row read for a write is
//! locked with `FOR UPDATE`), each operation a compare-and-set on the row
//! as read inside it, the history appended last. Any failure returns before
//! `COMMIT`, and dropping the transaction rolls everything back. A site made
//! [`auditing`](SqlSite::auditing) writes its audit rows in the same
//! transaction.
//!
//! The checks are [`MemorySite`](site_model::MemorySite)'s: the same
//! functions ([`site_model::change_rules`]), so the same conflicts and the
//! same `Invalid` reasons; and the same links a write may not break.

use serde::de::DeserializeOwned;
use site_model::change_rules::{self, built, check_expected, check_record_fields, updated};
use site_model::{
    ChangeSet, Changes, ContentElement, Fields, File, Operation, Page, Record, SiteError,
    TableSchema, Target, async_trait,
};
use sqlx::{AnyConnection, Row};

use super::rows::{self, db_id};
use super::{SqlSite, decode, storage};
use crate::store::audit_chain::insert_audit;

#[async_trait]
impl Changes for SqlSite {
    async fn apply(&self, changes: ChangeSet) -> Result<(), SiteError> {
        // The chain first, then the database: see store/audit_chain.rs.
        let mut links = match self.applied.first() {
            Some(_) => Some(
                self.store
                    .chain()
                    .map_err(storage)?
                    .begin(self.store.pool())
                    .await
                    .map_err(storage)?,
            ),
            None => None,
        };
        let mut tx = self.store.begin_write().await.map_err(storage)?;
        let lock = self.store.for_update();
        for operation in &changes.operations {
            apply_operation(&mut tx, lock, operation).await?;
        }
        for operation in &changes.operations {
            check_links(&mut tx, operation.target()).await?;
        }
        for entry in &changes.history {
            rows::insert_history(&mut tx, entry)
                .await
                .map_err(storage)?;
        }
        // Every process's search index is built at a generation; raising
        // it with the change, in its transaction, tells them all.
        sqlx::query("UPDATE site_generation SET generation = generation + 1 WHERE id = 1")
            .execute(&mut *tx)
            .await
            .map_err(storage)?;
        if let Some(links) = links.as_mut() {
            for entry in &self.applied {
                insert_audit(&links.link(entry))
                    .execute(&mut *tx)
                    .await
                    .map_err(storage)?;
            }
        }
        tx.commit().await.map_err(storage)?;
        if let Some(links) = links {
            links.committed();
        }
        Ok(())
    }
}

async fn apply_operation(
    conn: &mut AnyConnection,
    lock: &str,
    operation: &Operation,
) -> Result<(), SiteError> {
    match operation {
        Operation::Update {
            target,
            expected,
            new,
        } => update(conn, lock, target, expected, new).await,
        Operation::SoftDelete { target, expected } => {
            let schema = match target {
                Target::Record { table, .. } => Some(schema(conn, target, table).await?),
                _ => None,
            };
            let deleted = change_rules::soft_delete(target, schema.as_ref())?;
            update(conn, lock, target, expected, &deleted).await
        }
        Operation::Insert { target, values } => insert(conn, target, values).await,
    }
}

/// The row `sql` selects (by the one id bound), decoded.
async fn load<T: DeserializeOwned>(
    conn: &mut AnyConnection,
    sql: &str,
    id: i64,
) -> Result<Option<T>, SiteError> {
    let row = sqlx::query(sql)
        .bind(id)
        .fetch_optional(conn)
        .await
        .map_err(storage)?;
    row.as_ref().map(decode).transpose()
}

async fn exists(conn: &mut AnyConnection, sql: &str, id: i64) -> Result<bool, SiteError> {
    Ok(sqlx::query(sql)
        .bind(id)
        .fetch_optional(conn)
        .await
        .map_err(storage)?
        .is_some())
}

async fn update(
    conn: &mut AnyConnection,
    lock: &str,
    target: &Target,
    expected: &Fields,
    new: &Fields,
) -> Result<(), SiteError> {
    let not_found = || SiteError::not_found(target.to_string());
    match target {
        Target::Page(id) => {
            let sql = format!("SELECT data FROM site_pages WHERE id = $1{lock}");
            let page: Page = load(conn, &sql, db_id(id.0)).await?.ok_or_else(not_found)?;
            let page = updated(&page, target, expected, new)?;
            rows::update_page(conn, &page).await.map_err(storage)
        }
        Target::Element(id) => {
            let sql = format!("SELECT data FROM site_elements WHERE id = $1{lock}");
            let element: ContentElement =
                load(conn, &sql, db_id(id.0)).await?.ok_or_else(not_found)?;
            let element = updated(&element, target, expected, new)?;
            rows::update_element(conn, &element).await.map_err(storage)
        }
        Target::File(id) => {
            let sql = format!("SELECT data FROM site_files WHERE id = $1{lock}");
            let file: File = load(conn, &sql, db_id(id.0)).await?.ok_or_else(not_found)?;
            let file = updated(&file, target, expected, new)?;
            rows::update_file(conn, &file).await.map_err(storage)
        }
        Target::Record { table, id } => {
            let schema = schema(conn, target, table).await?;
            let sql = format!("SELECT data FROM site_records WHERE tbl = $1 AND id = $2{lock}");
            let row = sqlx::query(&sql)
                .bind(table.as_str())
                .bind(db_id(*id))
                .fetch_optional(&mut *conn)
                .await
                .map_err(storage)?
                .ok_or_else(not_found)?;
            let mut record: Record = decode(&row)?;
            check_expected(
                target,
                |field| record.values.for_host().get(field),
                expected,
            )?;
            check_record_fields(&schema, target, new)?;
            record.values.for_host_mut().extend(new.clone());
            rows::update_record(conn, &record).await.map_err(storage)
        }
    }
}

async fn insert(
    conn: &mut AnyConnection,
    target: &Target,
    values: &Fields,
) -> Result<(), SiteError> {
    let taken = || SiteError::invalid(target.to_string(), "the id is taken");
    match target {
        Target::Page(id) => {
            if exists(conn, "SELECT id FROM site_pages WHERE id = $1", db_id(id.0)).await? {
                return Err(taken());
            }
            let page: Page = built(target, id.0, values)?;
            rows::insert_page(conn, &page).await.map_err(storage)
        }
        Target::Element(id) => {
            if exists(
                conn,
                "SELECT id FROM site_elements WHERE id = $1",
                db_id(id.0),
            )
            .await?
            {
                return Err(taken());
            }
            let element: ContentElement = built(target, id.0, values)?;
            rows::insert_element(conn, &element).await.map_err(storage)
        }
        Target::File(id) => {
            if exists(conn, "SELECT id FROM site_files WHERE id = $1", db_id(id.0)).await? {
                return Err(taken());
            }
            let file: File = built(target, id.0, values)?;
            rows::insert_file(conn, &file).await.map_err(storage)
        }
        Target::Record { table, id } => {
            let schema = schema(conn, target, table).await?;
            check_record_fields(&schema, target, values)?;
            let found = sqlx::query("SELECT id FROM site_records WHERE tbl = $1 AND id = $2")
                .bind(table.as_str())
                .bind(db_id(*id))
                .fetch_optional(&mut *conn)
                .await
                .map_err(storage)?;
            if found.is_some() {
                return Err(taken());
            }
            let record = Record {
                table: table.clone(),
                id: *id,
                values: values.clone().into(),
            };
            rows::insert_record(conn, &record).await.map_err(storage)
        }
    }
}

async fn schema(
    conn: &mut AnyConnection,
    target: &Target,
    table: &str,
) -> Result<TableSchema, SiteError> {
    let row = sqlx::query("SELECT data FROM site_tables WHERE name = $1")
        .bind(table)
        .fetch_optional(conn)
        .await
        .map_err(storage)?
        .ok_or_else(|| SiteError::not_found(target.to_string()))?;
    decode(&row)
}

/// The links a written target may not break, read inside the transaction
/// (so they see its writes), as a database's foreign keys would check them.
async fn check_links(conn: &mut AnyConnection, target: &Target) -> Result<(), SiteError> {
    let broken = |reason: String| SiteError::invalid(target.to_string(), reason);
    let page_exists = "SELECT id FROM site_pages WHERE id = $1";
    match target {
        Target::Page(id) => {
            let sql = "SELECT data FROM site_pages WHERE id = $1";
            let Some(page) = load::<Page>(conn, sql, db_id(id.0)).await? else {
                return Ok(());
            };
            if let Some(parent) = page.parent {
                if !exists(conn, page_exists, db_id(parent.0)).await? {
                    return Err(broken(format!("parent page {parent} does not exist")));
                }
                if under(conn, db_id(parent.0), db_id(id.0)).await? {
                    return Err(broken("a page cannot move under itself".into()));
                }
            }
            if let Some(original) = page.translation_of
                && !exists(conn, page_exists, db_id(original.0)).await?
            {
                return Err(broken(format!("translated page {original} does not exist")));
            }
        }
        Target::Element(id) => {
            let sql = "SELECT data FROM site_elements WHERE id = $1";
            let Some(element) = load::<ContentElement>(conn, sql, db_id(id.0)).await? else {
                return Ok(());
            };
            if !exists(conn, page_exists, db_id(element.page.0)).await? {
                return Err(broken(format!("page {} does not exist", element.page)));
            }
            let column = "SELECT id FROM site_columns WHERE id = $1";
            if !exists(conn, column, i64::from(element.column.0)).await? {
                return Err(broken(format!("column {} does not exist", element.column)));
            }
        }
        Target::File(id) => {
            let sql = "SELECT data FROM site_files WHERE id = $1";
            let Some(file) = load::<File>(conn, sql, db_id(id.0)).await? else {
                return Ok(());
            };
            let storage_exists = "SELECT id FROM site_storages WHERE id = $1";
            if !exists(conn, storage_exists, i64::from(file.storage.0)).await? {
                return Err(broken(format!("storage {} does not exist", file.storage)));
            }
        }
        // Record relations may point at rows a host keeps elsewhere.
        Target::Record { .. } => {}
    }
    Ok(())
}

/// Whether `page` is `ancestor` or lies under it; a chain longer than the
/// page count is a cycle and counts as under.
async fn under(conn: &mut AnyConnection, page: i64, ancestor: i64) -> Result<bool, SiteError> {
    let count: i64 = sqlx::query("SELECT COUNT(*) AS n FROM site_pages")
        .fetch_one(&mut *conn)
        .await
        .and_then(|row| row.try_get("n"))
        .map_err(storage)?;
    let mut current = Some(page);
    for _ in 0..=count {
        match current {
            None => return Ok(false),
            Some(id) if id == ancestor => return Ok(true),
            Some(id) => {
                current = sqlx::query("SELECT parent FROM site_pages WHERE id = $1")
                    .bind(id)
                    .fetch_optional(&mut *conn)
                    .await
                    .map_err(storage)?
                    .map(|row| row.try_get::<Option<i64>, _>("parent"))
                    .transpose()
                    .map_err(storage)?
                    .flatten();
            }
        }
    }
    Ok(true)
}
