use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tool_core::{Execute, Tool, ToolContext, ToolError, ToolOutput};

use super::readable::readable_tables;
use crate::access::{shown_of, viewer};

/// At most this many tables per call.
const MAX_TABLES: usize = 200;

/// List the tables whose records you may read: name and title, by name.
///
/// Tables that hold credentials (sensitive tables) are listed for
/// administrators only, marked `"sensitive": true`. At most 200 tables;
/// `summary` reports the total.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "structure",
    effect = "read",
    data = "internal",
    content = "trusted"
)]
#[serde(deny_unknown_fields)]
pub struct ListTables {}

impl Execute for ListTables {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let viewer = viewer(cx).await?;
        let tables = readable_tables(&viewer).await?;
        let total = tables.len();
        let listed: Vec<Value> = tables
            .iter()
            .take(MAX_TABLES)
            .map(|table| {
                let mut entry = json!({ "name": table.name, "title": table.title });
                if table.sensitive {
                    entry["sensitive"] = Value::Bool(true);
                }
                entry
            })
            .collect();
        Ok(ToolOutput::json(json!({
            "tables": listed,
            "total": total,
            "summary": shown_of(listed.len(), total),
        })))
    }
}
