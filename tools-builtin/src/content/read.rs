use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use site_model::FieldKind;
use tool_core::{Arguments, Execute, Tool, ToolContext, ToolError, ToolOutput};

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
#[tool(
    group = "content",
    effect = "read",
    data = "personal",
    content = "untrusted"
)]
#[serde(deny_unknown_fields)]
pub struct ReadRecords {
    /// The table, e.g. `news` (see `list_tables`).
    table: String,
    /// Fields the records must equal exactly, e.g.
    /// `[{"field": "category", "equals": "city"}]`; `id` may be used too.
    /// Fields must be in the table's schema (see `get_table_schema`); the
    /// value is written as text and read by the field's type (`42`,
    /// `true`). Default: every record.
    #[serde(default)]
    filter: Vec<FieldEquals>,
    /// At most this many records: default 20, at most 50.
    limit: Option<u32>,
}

/// One equality filter. A list of these rather than a map, because a map
/// of open keys cannot be expressed in the strict schemas some providers
/// require.
#[derive(Deserialize, JsonSchema, Arguments)]
#[serde(deny_unknown_fields)]
struct FieldEquals {
    /// The field's name.
    field: String,
    /// The value, as text.
    equals: String,
}

/// The value `text` stands for in a field of `kind`, or `None` when it
/// cannot be one.
fn typed(kind: Option<&FieldKind>, text: &str) -> Option<Value> {
    match kind {
        Some(FieldKind::Int | FieldKind::Datetime | FieldKind::Relation { .. }) | None => {
            text.trim().parse::<i64>().ok().map(Value::from)
        }
        Some(FieldKind::Bool) => text.trim().parse::<bool>().ok().map(Value::from),
        // Text, and any kind a later site model adds: compared as written.
        Some(_) => Some(Value::from(text)),
    }
}

impl Execute for ReadRecords {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let viewer = viewer(cx).await?;
        let table = readable_table(&viewer, &self.table).await?;
        let mut filter = BTreeMap::new();
        for FieldEquals {
            field: name,
            equals,
        } in &self.filter
        {
            let field = table.field(name);
            if name != "id" {
                match field {
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
            let Some(value) = typed(field.map(|f| &f.kind), equals) else {
                return Err(ToolError::failed(format!(
                    "`{equals}` is not a value field `{name}` can hold"
                )));
            };
            if filter.insert(name.clone(), value).is_some() {
                return Err(ToolError::failed(format!(
                    "field `{name}` is filtered twice: give each field once"
                )));
            }
        }
        let records: Vec<_> = viewer
            .site
            .find_records(&table.name, &filter)
            .await
            .map_err(site_failed)?
            .into_iter()
            .filter(|record| viewer.is_admin() || !is_deleted(record.values.for_host()))
            .collect();
        let limit = limit(self.limit, 20, 50);
        let shown: Vec<Value> = records
            .iter()
            .take(limit)
            .map(|record| {
                let values = record_values(&table, record.values.read(cx));
                json!({ "id": record.id, "values": values })
            })
            .collect();
        Ok(ToolOutput::json(json!({
            "table": table.name,
            "records": shown,
            "total": records.len(),
            "summary": shown_of(shown.len(), records.len()),
        })))
    }
}
