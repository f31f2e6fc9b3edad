use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use site_model::SiteError;
use tool_core::{Execute, Tool, ToolContext, ToolError, ToolOutput};

use super::describe::{file_summary, reachable_storages, storage_failed, storage_named};
use crate::access::{not_found, shown_of, viewer};

/// At most this many entries (folders and files together) per listing.
const MAX_ENTRIES: usize = 100;

/// List the file storages you may reach (for example `fileadmin`), by id,
/// with their names. Storages you may not reach are not listed.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "files",
    effect = "read",
    data = "internal",
    content = "trusted"
)]
#[serde(deny_unknown_fields)]
pub struct ListStorages {}

impl Execute for ListStorages {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let viewer = viewer(cx).await?;
        let storages = reachable_storages(&viewer).await?;
        let total = storages.len();
        Ok(ToolOutput::json(json!({
            "storages": storages
                .iter()
                .map(|storage| json!({"id": storage.id, "name": storage.name}))
                .collect::<Vec<_>>(),
            "total": total,
        })))
    }
}

/// List one folder of a storage: its subfolders first, then its files
/// (id, storage-relative path, title, MIME type, size, whether missing).
///
/// At most 100 entries; the total is always reported. Paths are relative to
/// the storage, never server paths. A storage or folder you may not reach
/// reads like one that does not exist.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "files",
    effect = "read",
    data = "internal",
    content = "untrusted"
)]
#[serde(deny_unknown_fields)]
pub struct BrowseFolder {
    /// The storage's name, as `list_storages` gives it (e.g. `fileadmin`).
    #[schemars(length(min = 1, max = 100))]
    storage: String,
    /// The folder's path in the storage, e.g. `images/products`; empty or
    /// absent: the storage's top folder.
    #[schemars(length(max = 500))]
    path: Option<String>,
}

impl Execute for BrowseFolder {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let viewer = viewer(cx).await?;
        let storage = storage_named(&viewer, &self.storage).await?;
        let path = self.path.as_deref().unwrap_or("").trim_matches('/');
        if !is_folder_path(path) {
            return Err(not_found());
        }
        let listing = match viewer.site.list_folder(storage.id, path).await {
            Ok(listing) => listing,
            Err(SiteError::NotFound { .. }) => return Err(not_found()),
            Err(error) => return Err(storage_failed(error)),
        };
        let total = listing.folders.len() + listing.files.len();
        let folders: Vec<_> = listing
            .folders
            .iter()
            .take(MAX_ENTRIES)
            .map(|folder| tool_core::redact::redact_text(folder.path.read(cx)).into_owned())
            .collect();
        let files: Vec<_> = listing
            .files
            .iter()
            .take(MAX_ENTRIES - folders.len())
            .map(|file| file_summary(file, &storage.name, cx))
            .collect();
        let shown = folders.len() + files.len();
        Ok(ToolOutput::json(json!({
            "storage": storage.name,
            "path": path,
            "folders": folders,
            "files": files,
            "total": total,
            "truncated": shown < total,
            "note": shown_of(shown, total),
        })))
    }
}

/// A storage-relative folder path: no `.` or `..` segment, no backslash or
/// control character (the storage is asked only for a plain path).
fn is_folder_path(path: &str) -> bool {
    path.is_empty()
        || (!path.chars().any(|c| c == '\\' || c.is_control())
            && path
                .split('/')
                .all(|segment| !segment.is_empty() && segment != "." && segment != ".."))
}
