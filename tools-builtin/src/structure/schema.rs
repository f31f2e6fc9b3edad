use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use site_model::{FieldKind, FieldSchema, TableSchema};
use tool_core::{Execute, Tool, ToolContext, ToolError, ToolOutput};

use super::readable::{is_credential, open_table, readable_tables};
use crate::access::viewer;

/// Show one table's schema: its fields (name, type, and for a relation the
/// table it points into) and the fields search looks at.
///
/// A field that holds a credential is marked `"credential": true` and shows
/// its name and type only. Tables that hold credentials (sensitive tables)
/// are not shown to anyone: they read like a table that does not exist.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "structure",
    effect = "read",
    data = "internal",
    content = "trusted"
)]
#[serde(deny_unknown_fields)]
pub struct GetTableSchema {
    /// The table's name, e.g. `news` (see `list_tables`).
    table: String,
}

impl Execute for GetTableSchema {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let viewer = viewer(cx).await?;
        let table = open_table(&viewer, &self.table).await?;
        // A relation's target is named only when the viewer may read it (or
        // it is not a table at all, like `users`), so a schema never names
        // a table the viewer cannot see.
        let all = viewer.site.tables().await.unwrap_or_default();
        let readable = readable_tables(&viewer).await?;
        let hidden = |target: &str| {
            all.iter().any(|table| table.name == target)
                && !readable.iter().any(|table| table.name == target)
        };
        let fields: Vec<Value> = table
            .fields
            .iter()
            .map(|field| describe(field, &hidden))
            .collect();
        Ok(ToolOutput::json(json!({
            "table": table.name,
            "title": table.title,
            "fields": fields,
            "search_fields": search_fields(&table),
        })))
    }
}

fn describe(field: &FieldSchema, hidden: &dyn Fn(&str) -> bool) -> Value {
    let mut entry = json!({ "name": field.name, "type": type_name(&field.kind) });
    if is_credential(field) {
        entry["credential"] = Value::Bool(true);
        return entry;
    }
    if let FieldKind::Relation { table } = &field.kind {
        entry["relation"] = if hidden(table) {
            Value::String("a table you cannot read".into())
        } else {
            Value::String(table.clone())
        };
    }
    entry
}

fn search_fields(table: &TableSchema) -> Vec<&str> {
    table
        .search_fields
        .iter()
        .map(String::as_str)
        .filter(|name| table.field(name).is_some_and(|field| !is_credential(field)))
        .collect()
}

/// A field type as the model reads it.
pub(crate) fn type_name(kind: &FieldKind) -> &'static str {
    match kind {
        FieldKind::String => "string",
        FieldKind::Int => "int",
        FieldKind::Bool => "bool",
        FieldKind::Datetime => "datetime",
        FieldKind::Relation { .. } => "relation",
        _ => "other",
    }
}
