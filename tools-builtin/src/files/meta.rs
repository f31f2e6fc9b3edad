use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use site_model::{ElementId, FileReference, PageId, SiteError};
use tool_core::{Execute, Tool, ToolContext, ToolError, ToolOutput};

use super::describe::{
    file_details, reachable_file, reachable_storages, storage_failed, storage_name,
};
use crate::access::{Viewer, shown_of, viewer};

/// At most this many references per call.
const MAX_REFERENCES: usize = 100;

/// What `get_file_references` says every time, so an empty list is never
/// read as "unused".
const UNTRACKED: &str = "Links to the file inside text (rich-text fields, HTML, links in \
    content) are not tracked and not listed here: no references does not mean the file is \
    unused or safe to delete.";

/// Read everything known about one file but its contents: storage,
/// storage-relative path, name, title, alternative text per language id,
/// MIME type, size in bytes, and whether it is missing from the storage.
///
/// A file in a storage you may not reach reads exactly like a file that
/// does not exist. Never shows server paths or the file's contents.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "files",
    effect = "read",
    data = "internal",
    content = "untrusted"
)]
#[serde(deny_unknown_fields)]
pub struct ReadFileMeta {
    /// The file's id, as the other `files` tools give it.
    id: u64,
}

impl Execute for ReadFileMeta {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let viewer = viewer(cx).await?;
        let file = reachable_file(&viewer, self.id).await?;
        let storages = reachable_storages(&viewer).await?;
        Ok(ToolOutput::json(file_details(
            &file,
            &storage_name(&storages, file.storage),
            cx,
        )))
    }
}

/// List where one file is used: the table, record id and field of each
/// record that references it (`content` for content elements, `pages` for
/// pages).
///
/// Links to the file inside text (rich-text fields, HTML) are NOT tracked,
/// so an empty list never means the file is unused or safe to delete; the
/// output says so. References in records you may not see are counted, not
/// shown. At most 100 references; the total is always reported. A file in a
/// storage you may not reach reads like one that does not exist.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "files",
    effect = "read",
    data = "internal",
    content = "trusted"
)]
#[serde(deny_unknown_fields)]
pub struct GetFileReferences {
    /// The file's id, as the other `files` tools give it.
    id: u64,
}

impl Execute for GetFileReferences {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let viewer = viewer(cx).await?;
        let file = reachable_file(&viewer, self.id).await?;
        let references = viewer
            .site
            .references(file.id)
            .await
            .map_err(storage_failed)?;
        let mut visible = Vec::new();
        let mut not_shown = 0;
        for reference in references {
            if may_see(&viewer, &reference).await? {
                visible.push(reference);
            } else {
                not_shown += 1;
            }
        }
        let total = visible.len();
        let shown: Vec<_> = visible
            .iter()
            .take(MAX_REFERENCES)
            .map(|reference| {
                json!({
                    "table": reference.table,
                    "record_id": reference.record_id,
                    "field": reference.field,
                })
            })
            .collect();
        let mut note = format!("{}. {UNTRACKED}", shown_of(shown.len(), total));
        if not_shown > 0 {
            note.push_str(&format!(
                " {not_shown} further reference(s) are in records you may not see."
            ));
        }
        Ok(ToolOutput::json(json!({
            "file": file.id,
            "references": shown,
            "total": total,
            "not_shown_not_permitted": not_shown,
            "truncated": shown.len() < total,
            "note": note,
        })))
    }
}

/// Whether the actor may see the record that holds `reference`: its
/// content element or page, or its table. A record that does not exist
/// (any more) is not shown either.
async fn may_see(viewer: &Viewer, reference: &FileReference) -> Result<bool, ToolError> {
    if viewer.is_admin() {
        return Ok(true);
    }
    let site = &*viewer.site;
    let permissions = &viewer.permissions;
    let seen = match reference.table.as_str() {
        "content" => match site.element(ElementId(reference.record_id)).await {
            Ok(element) => permissions.may_show_element(&element, site).await,
            Err(error) => Err(error),
        },
        "pages" => {
            permissions
                .may_show_page(PageId(reference.record_id), site)
                .await
        }
        table => match site.table(table).await {
            Ok(schema) => Ok(permissions.may_read_table(&schema)),
            Err(error) => Err(error),
        },
    };
    match seen {
        Ok(seen) => Ok(seen),
        Err(SiteError::NotFound { .. }) => Ok(false),
        Err(error) => Err(storage_failed(error)),
    }
}
