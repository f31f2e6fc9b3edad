use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use site_model::{File, FileQuery, contains_literal};
use tool_core::{Execute, Tool, ToolContext, ToolError, ToolOutput};

use super::describe::{
    file_summary, reachable_storages, storage_failed, storage_name, storage_named,
};
use crate::access::{limit, shown_of, viewer};

/// Find files by a piece of their name, title or alternative text
/// (literal, case-insensitive: `%` and `_` are ordinary characters).
/// Files marked missing are left out (see `find_missing_files`).
///
/// Only storages you may reach are searched. At most `limit` files (default
/// 20, at most 50), by id; the total number of matches is always reported.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "files",
    effect = "read",
    data = "internal",
    content = "untrusted"
)]
#[serde(deny_unknown_fields)]
pub struct SearchFiles {
    /// The text to find in the file name, title or alternative text.
    #[schemars(length(min = 1, max = 200))]
    text: String,
    /// Only this storage, by name; absent: every storage you may reach.
    #[schemars(length(min = 1, max = 100))]
    storage: Option<String>,
    /// The most files to return: default 20, at most 50.
    limit: Option<u32>,
}

impl Execute for SearchFiles {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let viewer = viewer(cx).await?;
        let storages = match &self.storage {
            Some(name) => vec![storage_named(&viewer, name).await?],
            None => reachable_storages(&viewer).await?,
        };
        let limit = limit(self.limit, 20, 50);
        let mut found = Vec::new();
        // One query per reachable storage, so a storage the actor may not
        // reach is never even searched.
        for storage in &storages {
            let query = FileQuery {
                storage: Some(storage.id),
                text: self.text.clone(),
                limit: usize::MAX,
            };
            let files = viewer
                .site
                .search_files(&query)
                .await
                .map_err(storage_failed)?;
            // The site matches the whole path; only the name counts here,
            // so `images` does not match every file in `images/`.
            found.extend(
                files
                    .into_iter()
                    .filter(|file| !file.missing && matches(file, &self.text)),
            );
        }
        found.sort_by_key(|file| file.id);
        let total = found.len();
        let files: Vec<_> = found
            .iter()
            .take(limit)
            .map(|file| file_summary(file, &storage_name(&storages, file.storage), cx))
            .collect();
        Ok(ToolOutput::json(json!({
            "files": files,
            "total": total,
            "truncated": files.len() < total,
            "note": shown_of(files.len(), total),
        })))
    }
}

fn matches(file: &File, text: &str) -> bool {
    // Matched, not shown: what is shown is read through the context.
    contains_literal(file.name.for_host(), text)
        || file
            .title
            .as_ref()
            .is_some_and(|title| contains_literal(title.for_host(), text))
        || file
            .alternative
            .for_host()
            .values()
            .any(|alternative| contains_literal(alternative, text))
}

/// List files the site knows but whose data is gone from the storage
/// ("missing"), in storages you may reach, by id.
///
/// At most `limit` files (default 50, at most 100); the total number of
/// missing files is always reported next to the list.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "files",
    effect = "read",
    data = "internal",
    content = "untrusted"
)]
#[serde(deny_unknown_fields)]
pub struct FindMissingFiles {
    /// The most files to return: default 50, at most 100.
    limit: Option<u32>,
}

impl Execute for FindMissingFiles {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let viewer = viewer(cx).await?;
        let storages = reachable_storages(&viewer).await?;
        let limit = limit(self.limit, 50, 100);
        let missing: Vec<File> = viewer
            .site
            .missing_files()
            .await
            .map_err(storage_failed)?
            .into_iter()
            .filter(|file| viewer.permissions.may_reach_storage(file.storage))
            .collect();
        let total = missing.len();
        let files: Vec<_> = missing
            .iter()
            .take(limit)
            .map(|file| file_summary(file, &storage_name(&storages, file.storage), cx))
            .collect();
        Ok(ToolOutput::json(json!({
            "files": files,
            "total": total,
            "truncated": files.len() < total,
            "note": shown_of(files.len(), total),
        })))
    }
}
