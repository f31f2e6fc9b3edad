use std::collections::HashMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use site_model::{LanguageId, PageId};
use tool_core::redact::redact_text;
use tool_core::{Execute, Tool, ToolContext, ToolError, ToolOutput};

use super::shown::{cut, excerpt};
use crate::access::{not_found, shown_of, viewer};
use crate::structure::readable::site_failed;

/// At most this many elements per call.
const MAX_ELEMENTS: usize = 100;
/// Longest header, in characters.
const MAX_HEADER_CHARS: usize = 200;
/// Longest body excerpt (tags removed), in characters.
const MAX_BODY_CHARS: usize = 300;

/// Show the content of one page: its content elements in column order, then
/// in their order within the column, each with its column name, type,
/// header and a plain-text excerpt of its body (at most 300 characters,
/// secrets redacted).
///
/// Deleted elements are never shown; hidden ones only to administrators,
/// marked `"hidden": true`. A page you may not see, and a deleted page,
/// read like a page that does not exist. At most 100 elements; `summary`
/// reports the total.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "content",
    effect = "read",
    data = "confidential",
    content = "untrusted"
)]
#[serde(deny_unknown_fields)]
pub struct GetPageContent {
    /// The page's id (see `get_pagetree`).
    page: u64,
}

impl Execute for GetPageContent {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let viewer = viewer(cx).await?;
        let id = PageId(self.page);
        // One path for a missing, a deleted and a forbidden page.
        let page = viewer.site.page(id).await.ok().filter(|page| !page.deleted);
        let allowed = match &page {
            Some(_) => viewer
                .permissions
                .may_show_page(id, &*viewer.site)
                .await
                .unwrap_or(false),
            None => false,
        };
        let Some(page) = page.filter(|_| allowed) else {
            return Err(not_found());
        };
        let columns: HashMap<_, _> = viewer
            .site
            .columns()
            .await
            .map_err(site_failed)?
            .into_iter()
            .map(|column| (column.id, column.name))
            .collect();
        let elements: Vec<_> = viewer
            .site
            .elements(id)
            .await
            .map_err(site_failed)?
            .into_iter()
            .filter(|element| !element.deleted && (viewer.is_admin() || !element.hidden))
            .collect();
        let shown: Vec<Value> = elements
            .iter()
            .take(MAX_ELEMENTS)
            .map(|element| {
                let column = columns
                    .get(&element.column)
                    .map_or_else(|| element.column.to_string(), Clone::clone);
                let mut entry = json!({
                    "id": element.id,
                    "column": column,
                    "type": element.ctype,
                    "header": cut(&redact_text(element.header.read(cx)), MAX_HEADER_CHARS),
                    "body": excerpt(element.body.read(cx), MAX_BODY_CHARS),
                });
                if element.hidden {
                    entry["hidden"] = Value::Bool(true);
                }
                if element.language != LanguageId(0) {
                    entry["language"] = json!(element.language);
                }
                entry
            })
            .collect();
        Ok(ToolOutput::json(json!({
            "page": { "id": page.id, "title": redact_text(page.title.read(cx)) },
            "elements": shown,
            "total": elements.len(),
            "summary": shown_of(shown.len(), elements.len()),
        })))
    }
}
