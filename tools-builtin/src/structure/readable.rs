//! Which tables and fields a viewer may read, decided in one place for the
//! `structure` and `content` groups.

use site_model::{FieldSchema, SiteError, TableSchema};
use tool_core::ToolError;
use tool_core::redact::is_secret_name;

use crate::access::{Viewer, not_found};

/// The schema of `name` when the viewer may read its records.
///
/// A table that does not exist, one the viewer may not read, and a failed
/// lookup all give the one neutral denial, on the same path.
pub(crate) async fn readable_table(viewer: &Viewer, name: &str) -> Result<TableSchema, ToolError> {
    match viewer.site.table(name).await {
        Ok(table) if viewer.permissions.may_read_table(&table) => Ok(table),
        _ => Err(not_found()),
    }
}

/// Like [`readable_table`], but a sensitive table (one holding credentials)
/// is refused to everyone, administrators included, and reads like a
/// missing one.
pub(crate) async fn open_table(viewer: &Viewer, name: &str) -> Result<TableSchema, ToolError> {
    match viewer.site.table(name).await {
        Ok(table) if !table.sensitive && viewer.permissions.may_read_table(&table) => Ok(table),
        _ => Err(not_found()),
    }
}

/// Every table whose records the viewer may read, by name (sensitive ones
/// only for administrators).
pub(crate) async fn readable_tables(viewer: &Viewer) -> Result<Vec<TableSchema>, ToolError> {
    let tables = viewer.site.tables().await.map_err(site_failed)?;
    Ok(tables
        .into_iter()
        .filter(|table| viewer.permissions.may_read_table(table))
        .collect())
}

/// Whether a field's value must never be shown: flagged as a credential by
/// the schema, or named like one (`password`, `api_key`, …) — a schema that
/// forgot the flag fails closed.
pub(crate) fn is_credential(field: &FieldSchema) -> bool {
    field.credential || is_secret_name(&field.name)
}

/// Whether the field called `name` of `table` must never be shown; a field
/// the schema does not know counts as one.
pub(crate) fn is_credential_name(table: Option<&TableSchema>, name: &str) -> bool {
    match table {
        Some(table) => table.field(name).is_none_or(is_credential),
        None => is_secret_name(name),
    }
}

/// Whether a record is in the recycle bin (its `deleted` field is true):
/// out of reach for everyone but administrators, like deleted pages.
pub(crate) fn is_deleted(values: &std::collections::BTreeMap<String, serde_json::Value>) -> bool {
    values.get("deleted").and_then(serde_json::Value::as_bool) == Some(true)
}

/// A backend failure, without its detail (which may name hosts or paths).
pub(crate) fn site_failed(_: SiteError) -> ToolError {
    ToolError::failed("the site could not be read")
}
