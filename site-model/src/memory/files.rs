use std::collections::BTreeSet;

use async_trait::async_trait;
use tool_core::Authored;

use super::MemorySite;
use crate::{
    File, FileId, FileQuery, FileReference, Files, Folder, FolderListing, SiteError, Storage,
    StorageId,
};

#[async_trait]
impl Files for MemorySite {
    async fn storages(&self) -> Result<Vec<Storage>, SiteError> {
        let mut storages = self.read().storages.clone();
        storages.sort_by_key(|storage| storage.id);
        Ok(storages)
    }

    async fn list_folder(
        &self,
        storage: StorageId,
        path: &str,
    ) -> Result<FolderListing, SiteError> {
        let data = self.read();
        let not_found = || SiteError::not_found(format!("folder {storage}:{path}"));
        if !data
            .storages
            .iter()
            .any(|candidate| candidate.id == storage)
        {
            return Err(not_found());
        }
        let path = path.trim_matches('/');
        let prefix = if path.is_empty() {
            String::new()
        } else {
            format!("{path}/")
        };
        // Folders exist through the files in them: the memory site keeps no
        // folder rows, so an empty folder cannot be listed.
        let mut folders = BTreeSet::new();
        let mut files = Vec::new();
        let mut exists = path.is_empty();
        for file in data.files.iter().filter(|file| file.storage == storage) {
            let Some(rest) = file.path.for_host().strip_prefix(&prefix) else {
                continue;
            };
            exists = true;
            match rest.split_once('/') {
                Some((folder, _)) => {
                    folders.insert(format!("{prefix}{folder}"));
                }
                None => files.push(file.clone()),
            }
        }
        if !exists {
            return Err(not_found());
        }
        files.sort_by(|a, b| a.name.cmp(&b.name));
        let folders = folders
            .into_iter()
            .map(|path| Folder {
                storage,
                path: Authored::new(path),
            })
            .collect();
        Ok(FolderListing { folders, files })
    }

    async fn search_files(&self, query: &FileQuery) -> Result<Vec<File>, SiteError> {
        let mut found: Vec<File> = self
            .read()
            .files
            .iter()
            .filter(|file| query.storage.is_none_or(|storage| file.storage == storage))
            .filter(|file| file.matches_text(&query.text))
            .cloned()
            .collect();
        found.sort_by_key(|file| file.id);
        found.truncate(query.limit);
        Ok(found)
    }

    async fn file(&self, id: FileId) -> Result<File, SiteError> {
        self.read()
            .files
            .iter()
            .find(|file| file.id == id)
            .cloned()
            .ok_or_else(|| SiteError::not_found(format!("file {id}")))
    }

    async fn references(&self, file: FileId) -> Result<Vec<FileReference>, SiteError> {
        Ok(self
            .read()
            .references
            .iter()
            .filter(|reference| reference.file == file)
            .cloned()
            .collect())
    }

    async fn missing_files(&self) -> Result<Vec<File>, SiteError> {
        let mut missing: Vec<File> = self
            .read()
            .files
            .iter()
            .filter(|file| file.missing)
            .cloned()
            .collect();
        missing.sort_by_key(|file| file.id);
        Ok(missing)
    }
}
