use std::collections::BTreeSet;

use site_model::{
    File, FileId, FileQuery, FileReference, Files, Folder, FolderListing, SiteError, Storage,
    StorageId, async_trait,
};

use super::rows::db_id;
use super::{SqlSite, storage};
use tool_core::Authored;

#[async_trait]
impl Files for SqlSite {
    async fn storages(&self) -> Result<Vec<Storage>, SiteError> {
        self.all(sqlx::query("SELECT data FROM site_storages ORDER BY id"))
            .await
    }

    async fn list_folder(
        &self,
        storage_id: StorageId,
        path: &str,
    ) -> Result<FolderListing, SiteError> {
        let not_found = || SiteError::not_found(format!("folder {storage_id}:{path}"));
        let known = sqlx::query("SELECT id FROM site_storages WHERE id = $1")
            .bind(i64::from(storage_id.0))
            .fetch_optional(self.store.pool())
            .await
            .map_err(storage)?;
        if known.is_none() {
            return Err(not_found());
        }
        let path = path.trim_matches('/');
        let prefix = if path.is_empty() {
            String::new()
        } else {
            format!("{path}/")
        };
        let stored: Vec<File> = self
            .all(
                sqlx::query("SELECT data FROM site_files WHERE storage = $1 ORDER BY id")
                    .bind(i64::from(storage_id.0)),
            )
            .await?;
        // Folders exist through the files in them, as in the memory site.
        let mut folders = BTreeSet::new();
        let mut files = Vec::new();
        let mut exists = path.is_empty();
        for file in stored {
            let Some(rest) = file.path.for_host().strip_prefix(&prefix) else {
                continue;
            };
            exists = true;
            match rest.split_once('/') {
                Some((folder, _)) => {
                    folders.insert(format!("{prefix}{folder}"));
                }
                None => files.push(file),
            }
        }
        if !exists {
            return Err(not_found());
        }
        files.sort_by(|a, b| a.name.cmp(&b.name));
        let folders = folders
            .into_iter()
            .map(|path| Folder {
                storage: storage_id,
                path: Authored::new(path),
            })
            .collect();
        Ok(FolderListing { folders, files })
    }

    async fn search_files(&self, query: &FileQuery) -> Result<Vec<File>, SiteError> {
        let mut found: Vec<File> = match query.storage {
            None => {
                self.all(sqlx::query("SELECT data FROM site_files ORDER BY id"))
                    .await?
            }
            Some(storage_id) => {
                self.all(
                    sqlx::query("SELECT data FROM site_files WHERE storage = $1 ORDER BY id")
                        .bind(i64::from(storage_id.0)),
                )
                .await?
            }
        };
        found.retain(|file| file.matches_text(&query.text));
        found.truncate(query.limit);
        Ok(found)
    }

    async fn file(&self, id: FileId) -> Result<File, SiteError> {
        let query = sqlx::query("SELECT data FROM site_files WHERE id = $1").bind(db_id(id.0));
        self.one(query, || format!("file {id}")).await
    }

    async fn references(&self, file: FileId) -> Result<Vec<FileReference>, SiteError> {
        let query = sqlx::query("SELECT data FROM site_references WHERE file = $1 ORDER BY seq")
            .bind(db_id(file.0));
        self.all(query).await
    }

    async fn missing_files(&self) -> Result<Vec<File>, SiteError> {
        self.all(sqlx::query(
            "SELECT data FROM site_files WHERE missing = 1 ORDER BY id",
        ))
        .await
    }
}
