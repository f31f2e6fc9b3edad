//! Writing one entity's row: its id and the columns reads filter or order
//! by, and the whole entity as JSON in `data`. Seeding and
//! [`Changes::apply`](site_model::Changes::apply) both write through here,
//! so the columns always agree with the document.

use site_model::{
    Column, ContentElement, File, FileReference, Group, HistoryEntry, LogEntry, LogLevel, Page,
    Record, SiteConfig, Storage, TableSchema, User,
};
use sqlx::AnyConnection;

use crate::store::to_json;

type Result = std::result::Result<(), sqlx::Error>;

/// An id as the database keeps it; ids stay far below `i64::MAX`.
pub(crate) fn db_id(id: u64) -> i64 {
    id as i64
}

/// A log level's rank, most severe lowest, as [`LogLevel::is_at_least`]
/// compares them.
pub(crate) fn level_rank(level: LogLevel) -> i64 {
    match level {
        LogLevel::Error => 0,
        LogLevel::Warning => 1,
        LogLevel::Notice => 2,
        LogLevel::Info => 3,
        LogLevel::Debug => 4,
    }
}

async fn insert_data(conn: &mut AnyConnection, sql: &str, id: i64, data: String) -> Result {
    sqlx::query(sql)
        .bind(id)
        .bind(data)
        .execute(conn)
        .await
        .map(drop)
}

pub(crate) async fn insert_column(conn: &mut AnyConnection, column: &Column) -> Result {
    let sql = "INSERT INTO site_columns (id, data) VALUES ($1, $2)";
    insert_data(conn, sql, i64::from(column.id.0), to_json(column)).await
}

pub(crate) async fn insert_page(conn: &mut AnyConnection, page: &Page) -> Result {
    sqlx::query(
        "INSERT INTO site_pages (id, parent, translation_of, language, sorting, data)
         VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(db_id(page.id.0))
    .bind(page.parent.map(|p| db_id(p.0)))
    .bind(page.translation_of.map(|p| db_id(p.0)))
    .bind(i64::from(page.language.0))
    .bind(page.sorting)
    .bind(to_json(page))
    .execute(conn)
    .await
    .map(drop)
}

pub(crate) async fn update_page(conn: &mut AnyConnection, page: &Page) -> Result {
    sqlx::query(
        "UPDATE site_pages SET parent = $2, translation_of = $3, language = $4, sorting = $5,
         data = $6 WHERE id = $1",
    )
    .bind(db_id(page.id.0))
    .bind(page.parent.map(|p| db_id(p.0)))
    .bind(page.translation_of.map(|p| db_id(p.0)))
    .bind(i64::from(page.language.0))
    .bind(page.sorting)
    .bind(to_json(page))
    .execute(conn)
    .await
    .map(drop)
}

pub(crate) async fn insert_element(conn: &mut AnyConnection, element: &ContentElement) -> Result {
    sqlx::query(
        "INSERT INTO site_elements (id, page, col, sorting, data) VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(db_id(element.id.0))
    .bind(db_id(element.page.0))
    .bind(i64::from(element.column.0))
    .bind(element.sorting)
    .bind(to_json(element))
    .execute(conn)
    .await
    .map(drop)
}

pub(crate) async fn update_element(conn: &mut AnyConnection, element: &ContentElement) -> Result {
    sqlx::query(
        "UPDATE site_elements SET page = $2, col = $3, sorting = $4, data = $5 WHERE id = $1",
    )
    .bind(db_id(element.id.0))
    .bind(db_id(element.page.0))
    .bind(i64::from(element.column.0))
    .bind(element.sorting)
    .bind(to_json(element))
    .execute(conn)
    .await
    .map(drop)
}

pub(crate) async fn insert_table(conn: &mut AnyConnection, table: &TableSchema) -> Result {
    sqlx::query("INSERT INTO site_tables (name, data) VALUES ($1, $2)")
        .bind(&table.name)
        .bind(to_json(table))
        .execute(conn)
        .await
        .map(drop)
}

pub(crate) async fn insert_record(conn: &mut AnyConnection, record: &Record) -> Result {
    sqlx::query("INSERT INTO site_records (tbl, id, data) VALUES ($1, $2, $3)")
        .bind(&record.table)
        .bind(db_id(record.id))
        .bind(to_json(record))
        .execute(conn)
        .await
        .map(drop)
}

pub(crate) async fn update_record(conn: &mut AnyConnection, record: &Record) -> Result {
    sqlx::query("UPDATE site_records SET data = $3 WHERE tbl = $1 AND id = $2")
        .bind(&record.table)
        .bind(db_id(record.id))
        .bind(to_json(record))
        .execute(conn)
        .await
        .map(drop)
}

pub(crate) async fn insert_history(conn: &mut AnyConnection, entry: &HistoryEntry) -> Result {
    sqlx::query("INSERT INTO site_history (tbl, record_id, at, data) VALUES ($1, $2, $3, $4)")
        .bind(&entry.table)
        .bind(db_id(entry.record_id))
        .bind(entry.at.0)
        .bind(to_json(entry))
        .execute(conn)
        .await
        .map(drop)
}

pub(crate) async fn insert_storage(conn: &mut AnyConnection, storage: &Storage) -> Result {
    let sql = "INSERT INTO site_storages (id, data) VALUES ($1, $2)";
    insert_data(conn, sql, i64::from(storage.id.0), to_json(storage)).await
}

pub(crate) async fn insert_file(conn: &mut AnyConnection, file: &File) -> Result {
    sqlx::query("INSERT INTO site_files (id, storage, missing, data) VALUES ($1, $2, $3, $4)")
        .bind(db_id(file.id.0))
        .bind(i64::from(file.storage.0))
        .bind(i64::from(file.missing))
        .bind(to_json(file))
        .execute(conn)
        .await
        .map(drop)
}

pub(crate) async fn update_file(conn: &mut AnyConnection, file: &File) -> Result {
    sqlx::query("UPDATE site_files SET storage = $2, missing = $3, data = $4 WHERE id = $1")
        .bind(db_id(file.id.0))
        .bind(i64::from(file.storage.0))
        .bind(i64::from(file.missing))
        .bind(to_json(file))
        .execute(conn)
        .await
        .map(drop)
}

pub(crate) async fn insert_reference(
    conn: &mut AnyConnection,
    reference: &FileReference,
) -> Result {
    sqlx::query("INSERT INTO site_references (file, data) VALUES ($1, $2)")
        .bind(db_id(reference.file.0))
        .bind(to_json(reference))
        .execute(conn)
        .await
        .map(drop)
}

pub(crate) async fn insert_user(conn: &mut AnyConnection, user: &User) -> Result {
    let sql = "INSERT INTO site_users (id, data) VALUES ($1, $2)";
    insert_data(conn, sql, db_id(user.id.0), to_json(user)).await
}

pub(crate) async fn insert_group(conn: &mut AnyConnection, group: &Group) -> Result {
    let sql = "INSERT INTO site_groups (id, data) VALUES ($1, $2)";
    insert_data(conn, sql, db_id(group.id.0), to_json(group)).await
}

pub(crate) async fn insert_log(conn: &mut AnyConnection, entry: &LogEntry) -> Result {
    sqlx::query(
        "INSERT INTO site_logs (id, at, level_rank, component, data) VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(db_id(entry.id.0))
    .bind(entry.at.0)
    .bind(level_rank(entry.level))
    .bind(&entry.component)
    .bind(to_json(entry))
    .execute(conn)
    .await
    .map(drop)
}

pub(crate) async fn insert_site(conn: &mut AnyConnection, site: &SiteConfig) -> Result {
    sqlx::query("INSERT INTO site_sites (identifier, data) VALUES ($1, $2)")
        .bind(&site.identifier)
        .bind(to_json(site))
        .execute(conn)
        .await
        .map(drop)
}
