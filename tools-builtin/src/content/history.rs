use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use site_model::{ElementId, FileId, HistoryAction, HistoryEntry, PageId, TableSchema};
use tool_core::redact::redact_text;
use tool_core::{Execute, Tool, ToolContext, ToolError, ToolOutput};

use super::shown::shown_value;
use crate::access::{Viewer, limit, not_found, shown_of, viewer};
use crate::structure::readable::{is_credential_name, is_deleted, readable_table, site_failed};

/// Show the change history of one record, newest first: when, who, what
/// (created, updated, deleted, moved), who proposed and approved a change
/// made through a tool, and each changed field's old and new value
/// (redacted, long text cut).
///
/// The values of credential fields are never shown, only that they
/// changed. Pages, content elements and files have history too, under the
/// tables `pages`, `content` and `files`. A record you may not see reads
/// like one that does not exist. At most 50 entries (default 20); `total`
/// counts every entry.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "content",
    effect = "read",
    data = "personal",
    content = "untrusted"
)]
#[serde(deny_unknown_fields)]
pub struct GetRecordHistory {
    /// The table, e.g. `news`, or `pages`, `content` or `files`.
    table: String,
    /// The record's id.
    id: u64,
    /// At most this many entries: default 20, at most 50.
    limit: Option<u32>,
}

impl Execute for GetRecordHistory {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let viewer = viewer(cx).await?;
        let schema = reachable(&viewer, &self.table, self.id).await?;
        let entries = viewer
            .site
            .history(&self.table, self.id)
            .await
            .map_err(site_failed)?;
        let limit = limit(self.limit, 20, 50);
        let shown: Vec<Value> = entries
            .iter()
            .take(limit)
            .map(|entry| describe(entry, schema.as_ref(), cx))
            .collect();
        Ok(ToolOutput::json(json!({
            "record": format!("{}:{}", self.table, self.id),
            "history": shown,
            "total": entries.len(),
            "summary": shown_of(shown.len(), entries.len()),
        })))
    }
}

/// Whether the viewer may see the record (the neutral denial when not, or
/// when it does not exist), and for a table's record its schema.
async fn reachable(
    viewer: &Viewer,
    table: &str,
    id: u64,
) -> Result<Option<TableSchema>, ToolError> {
    let site = &*viewer.site;
    let permissions = &viewer.permissions;
    let allowed = match table {
        "pages" => permissions
            .may_show_page(PageId(id), site)
            .await
            .unwrap_or(false),
        "content" => match site.element(ElementId(id)).await {
            Ok(element) => permissions
                .may_show_element(&element, site)
                .await
                .unwrap_or(false),
            Err(_) => false,
        },
        "files" => match site.file(FileId(id)).await {
            Ok(file) => permissions.may_reach_storage(file.storage),
            Err(_) => false,
        },
        _ => {
            let schema = readable_table(viewer, table).await?;
            return match site.record(table, id).await {
                // A flag, not text: read without marking.
                Ok(record) if viewer.is_admin() || !is_deleted(record.values.for_host()) => {
                    Ok(Some(schema))
                }
                _ => Err(not_found()),
            };
        }
    };
    if allowed { Ok(None) } else { Err(not_found()) }
}

fn describe(entry: &HistoryEntry, schema: Option<&TableSchema>, cx: &ToolContext) -> Value {
    let changes: Vec<Value> = entry
        .changes
        .iter()
        .map(|change| {
            if is_credential_name(schema, &change.field) {
                json!({ "field": change.field, "changed": true })
            } else {
                json!({
                    "field": change.field,
                    "old": shown_value(change.old.read(cx)),
                    "new": shown_value(change.new.read(cx)),
                })
            }
        })
        .collect();
    let mut shown = json!({
        "at": entry.at.to_string(),
        "actor": redact_text(entry.actor.read(cx)),
        "action": action_name(entry.action),
        "changes": changes,
    });
    if let Some(by) = &entry.proposed_by {
        shown["proposed_by"] = Value::String(redact_text(by.read(cx)).into_owned());
    }
    if let Some(by) = &entry.approved_by {
        shown["approved_by"] = Value::String(redact_text(by.read(cx)).into_owned());
    }
    shown
}

fn action_name(action: HistoryAction) -> &'static str {
    match action {
        HistoryAction::Created => "created",
        HistoryAction::Updated => "updated",
        HistoryAction::Deleted => "deleted",
        HistoryAction::Moved => "moved",
        _ => "other",
    }
}
