use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tool_core::{Execute, Tool, ToolContext, ToolError, ToolOutput};

use super::shown::record_values;
use crate::access::{limit, shown_of, viewer};
use crate::structure::readable::{is_credential, is_deleted, readable_table, site_failed};

/// Read the records of one table you may read, by id, optionally only
/// those whose fields equal given values.
///
/// Each record shows its id and its field values, secrets redacted and long
/// text cut at 500 characters; fields that hold credentials are left out.
/// A table you may not read reads like one that does not exist. At most 50
/// records (default 20); `total` counts every match.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "content", effect = "read", data = "personal")]
#[serde(deny_unknown_fields)]
pub struct ReadRecords {
    /// The table, e.g. `news` (see `list_tables`).
    table: String,
    /// Values the records' fields must equal exactly, e.g.
    /// `{"category": "city"}`; `id` may be used too. Fields must be in the
    /// table's schema (see `get_table_schema`). Default: every record.
    #[serde(default)]
    filter: BTreeMap<String, Value>,
    /// At most this many records: default 20, at most 50.
    limit: Option<u32>,
}

impl Execute for ReadRecords {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let viewer = viewer(cx).await?;
        let table = readable_table(&viewer, &self.table).await?;
        for name in self.filter.keys().filter(|name| *name != "id") {
            match table.field(name) {
                None => {
                    return Err(ToolError::failed(format!(
                        "table `{}` has no field `{name}`",
                        table.name
                    )));
                }
                // Filtering on a credential would let a caller test guesses.
                Some(field) if is_credential(field) => {
                    return Err(ToolError::failed(format!(
                        "field `{name}` holds a credential and cannot be filtered on"
                    )));
                }
                Some(_) => {}
            }
        }
        let records: Vec<_> = viewer
            .site
            .find_records(&table.name, &self.filter)
            .await
            .map_err(site_failed)?
            .into_iter()
            .filter(|record| viewer.is_admin() || !is_deleted(&record.values))
            .collect();
        let limit = limit(self.limit, 20, 50);
        let shown: Vec<Value> = records
            .iter()
            .take(limit)
            .map(|record| json!({ "id": record.id, "values": record_values(&table, &record.values) }))
            .collect();
        Ok(ToolOutput::json(json!({
            "table": table.name,
            "records": shown,
            "total": records.len(),
            "summary": shown_of(shown.len(), records.len()),
        })))
    }
}
