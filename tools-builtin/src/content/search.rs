use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use site_model::{Record, TableSchema, contains_literal};
use tool_core::{Authored, Execute, Tool, ToolContext, ToolError, ToolOutput};

use super::shown::{excerpt_around, field_text};
use crate::access::{Viewer, limit, shown_of, viewer};
use crate::structure::readable::{
    is_credential, is_deleted, open_table, readable_tables, site_failed,
};

/// Longest excerpt per hit, in characters.
const MAX_EXCERPT_CHARS: usize = 120;
/// Longest query, in characters.
const MAX_QUERY_CHARS: usize = 200;

/// Search the records of the tables you may read for a text, in each
/// table's search fields. Returns hits as `table:id` with the field that
/// matched and an excerpt of at most 120 characters, secrets redacted.
///
/// The match is a case-insensitive substring: `%` and `_` are ordinary
/// characters, not wildcards. Tables that hold credentials are never
/// searched, nor are credential fields. At most 50 hits (default 20);
/// `total` counts every hit.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "content",
    effect = "read",
    data = "personal",
    content = "untrusted"
)]
#[serde(deny_unknown_fields)]
pub struct SearchRecords {
    /// The text to find, 1 to 200 characters.
    query: String,
    /// Only this table, e.g. `news`. Default: every table you may read.
    table: Option<String>,
    /// At most this many hits: default 20, at most 50.
    limit: Option<u32>,
}

struct Hit {
    record: Record,
    field: String,
    /// The field's text as the model may see it ([`field_text`]), made
    /// once for the match and the excerpt: people's text until a tool
    /// reads it.
    text: Authored<String>,
}

impl Execute for SearchRecords {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let query_chars = self.query.chars().count();
        if query_chars == 0 || query_chars > MAX_QUERY_CHARS {
            return Err(ToolError::failed(format!(
                "`query` must be 1 to {MAX_QUERY_CHARS} characters"
            )));
        }
        let viewer = viewer(cx).await?;
        let tables = match &self.table {
            Some(name) => vec![open_table(&viewer, name).await?],
            None => readable_tables(&viewer)
                .await?
                .into_iter()
                .filter(|table| !table.sensitive)
                .collect(),
        };
        let limit = limit(self.limit, 20, 50);
        let mut hits = Vec::new();
        let mut total = 0;
        for table in &tables {
            for hit in search(&viewer, table, &self.query).await? {
                total += 1;
                if hits.len() < limit {
                    hits.push(hit);
                }
            }
        }
        let shown: Vec<Value> = hits
            .iter()
            .map(|hit| {
                json!({
                    "record": format!("{}:{}", hit.record.table, hit.record.id),
                    "field": hit.field,
                    "excerpt": excerpt_around(hit.text.read(cx), &self.query, MAX_EXCERPT_CHARS),
                })
            })
            .collect();
        Ok(ToolOutput::json(json!({
            "hits": shown,
            "total": total,
            "summary": shown_of(shown.len(), total),
        })))
    }
}

/// The hits in one table. The site's search looks at every search field;
/// a hit counts only when the query is in a non-credential field *after*
/// redaction, so a search can never confirm a guess at a secret.
async fn search(viewer: &Viewer, table: &TableSchema, query: &str) -> Result<Vec<Hit>, ToolError> {
    let fields: Vec<&str> = table
        .search_fields
        .iter()
        .map(String::as_str)
        .filter(|name| table.field(name).is_some_and(|field| !is_credential(field)))
        .collect();
    if fields.is_empty() {
        return Ok(Vec::new());
    }
    let found = viewer
        .site
        .search_records(&table.name, query, usize::MAX)
        .await
        .map_err(site_failed)?;
    Ok(found
        .into_iter()
        .filter(|record| viewer.is_admin() || !is_deleted(record.values.for_host()))
        .filter_map(|record| {
            let (field, text) = fields.iter().find_map(|field| {
                // Matched, not shown: shown, it is read through the context.
                let text = field_text(field, record.values.for_host().get(*field)?.as_str()?);
                contains_literal(&text, query).then_some((*field, text))
            })?;
            Some(Hit {
                field: field.to_owned(),
                record,
                text: Authored::new(text),
            })
        })
        .collect())
}
