//! How the `files` tools show a storage and a file, and how they find the
//! ones the actor may reach.

use serde_json::{Value, json};
use site_model::{File, FileId, SiteError, Storage, StorageId};
use tool_core::redact::redact_text;
use tool_core::{ToolContext, ToolError};

use crate::access::{Viewer, not_found};

/// The storages the actor may reach, by id.
pub(super) async fn reachable_storages(viewer: &Viewer) -> Result<Vec<Storage>, ToolError> {
    let storages = viewer.site.storages().await.map_err(storage_failed)?;
    Ok(storages
        .into_iter()
        .filter(|storage| viewer.permissions.may_reach_storage(storage.id))
        .collect())
}

/// The reachable storage called `name`; an unknown one and one the actor
/// may not reach are the same neutral denial.
pub(super) async fn storage_named(viewer: &Viewer, name: &str) -> Result<Storage, ToolError> {
    reachable_storages(viewer)
        .await?
        .into_iter()
        .find(|storage| storage.name == name)
        .ok_or_else(not_found)
}

/// The file `id` when it is in a storage the actor may reach; a missing
/// id and a forbidden file are the same neutral denial.
pub(super) async fn reachable_file(viewer: &Viewer, id: u64) -> Result<File, ToolError> {
    match viewer.site.file(FileId(id)).await {
        Ok(file) if viewer.permissions.may_reach_storage(file.storage) => Ok(file),
        Ok(_) | Err(SiteError::NotFound { .. }) => Err(not_found()),
        Err(error) => Err(storage_failed(error)),
    }
}

/// A failing backend: the model learns that, not the backend's detail.
pub(super) fn storage_failed(_error: SiteError) -> ToolError {
    ToolError::failed("the site's file storage could not be read; try again later")
}

/// The name of storage `id` among `storages`.
pub(super) fn storage_name(storages: &[Storage], id: StorageId) -> String {
    storages
        .iter()
        .find(|storage| storage.id == id)
        .map_or_else(|| id.to_string(), |storage| storage.name.clone())
}

/// One file in a list: what tells it apart, no contents, no server path.
pub(super) fn file_summary(file: &File, storage: &str, cx: &ToolContext) -> Value {
    json!({
        "id": file.id,
        "storage": storage,
        "path": redact_text(file.path.read(cx)),
        "title": file.title.as_ref().map(|title| redact_text(title.read(cx))),
        "mime": file.mime,
        "size_bytes": file.size,
        "missing": file.missing,
    })
}

/// Everything known about one file but its contents.
pub(super) fn file_details(file: &File, storage: &str, cx: &ToolContext) -> Value {
    let alternative: serde_json::Map<String, Value> = file
        .alternative
        .read(cx)
        .iter()
        .map(|(language, text)| (language.to_string(), Value::from(redact_text(text))))
        .collect();
    let path = file.path.read(cx);
    json!({
        "id": file.id,
        "storage": storage,
        "path": redact_text(path),
        "folder": redact_text(path.rsplit_once('/').map_or("", |(folder, _)| folder)),
        "name": redact_text(file.name.read(cx)),
        "title": file.title.as_ref().map(|title| redact_text(title.read(cx))),
        "alternative_text_by_language_id": alternative,
        "mime": file.mime,
        "size_bytes": file.size,
        "missing": file.missing,
    })
}
