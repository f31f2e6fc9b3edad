use std::collections::BTreeSet;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use site_model::{FieldKind, TableSchema};
use tool_core::{Execute, Tool, ToolContext, ToolError, ToolOutput};

use super::readable::{is_credential, readable_tables, site_failed};
use crate::access::{shown_of, viewer};

/// At most this many findings per call.
const MAX_FINDINGS: usize = 200;

/// What a relation may point into besides the tables: the site's own
/// entities, whose ids records hold (see `site_model::Target::table`).
const ENTITIES: [&str; 5] = ["pages", "content", "files", "users", "groups"];

/// Check the schemas of the tables you may read for structural mistakes:
/// a relation into a table that does not exist, a field named twice, a
/// field named `id` (the id is not a field), a search field the table does
/// not have or that is not text, and a credential field that search looks
/// at.
///
/// Each finding names the table, the field and the problem; findings name
/// schema keys only, never record values. At most 200 findings; `summary`
/// reports the total.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "structure",
    effect = "read",
    data = "internal",
    content = "trusted"
)]
#[serde(deny_unknown_fields)]
pub struct ValidateSchema {
    /// Only this table (one you may read). Default: every table you may read.
    table: Option<String>,
}

impl Execute for ValidateSchema {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let viewer = viewer(cx).await?;
        let existing: BTreeSet<String> = viewer
            .site
            .tables()
            .await
            .map_err(site_failed)?
            .into_iter()
            .map(|table| table.name)
            .collect();
        let mut tables = readable_tables(&viewer).await?;
        if let Some(only) = &self.table {
            tables.retain(|table| &table.name == only);
            if tables.is_empty() {
                return Err(crate::access::not_found());
            }
        }
        let findings: Vec<Value> = tables
            .iter()
            .flat_map(|table| check(table, &existing))
            .collect();
        let total = findings.len();
        let shown: Vec<Value> = findings.into_iter().take(MAX_FINDINGS).collect();
        Ok(ToolOutput::json(json!({
            "tables_checked": tables.len(),
            "findings": shown,
            "total": total,
            "summary": shown_of(shown.len(), total),
        })))
    }
}

fn check(table: &TableSchema, existing: &BTreeSet<String>) -> Vec<Value> {
    let mut findings = Vec::new();
    let mut finding = |field: &str, problem: String| {
        findings.push(json!({ "table": table.name, "field": field, "problem": problem }));
    };
    let mut seen = BTreeSet::new();
    for field in &table.fields {
        if !seen.insert(field.name.as_str()) {
            finding(&field.name, "the field is defined more than once".into());
        }
        if field.name == "id" {
            finding(
                &field.name,
                "a field named `id` shadows the record id".into(),
            );
        }
        if let FieldKind::Relation { table: target } = &field.kind
            && !existing.contains(target)
            && !ENTITIES.contains(&target.as_str())
        {
            finding(
                &field.name,
                format!("relation into `{target}`, which is not a table"),
            );
        }
    }
    for name in &table.search_fields {
        match table.field(name) {
            None => finding(name, "search field not in the schema".into()),
            Some(field) if is_credential(field) => finding(
                name,
                "search looks at a credential field: a search could guess its value".into(),
            ),
            Some(field) if field.kind != FieldKind::String => finding(
                name,
                "search field is not text, so search never matches it".into(),
            ),
            Some(_) => {}
        }
    }
    findings
}
