//! File storages, their folders and files, and where files are used.

use std::collections::BTreeMap;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use tool_core::Authored;

use crate::{FileId, LanguageId, SiteError, StorageId, contains_literal};

/// A place files are kept, e.g. `fileadmin` or a cloud bucket.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Storage {
    /// Its id.
    pub id: StorageId,
    /// Its name.
    pub name: String,
}

/// A folder in a storage.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Folder {
    /// The storage it is in.
    pub storage: StorageId,
    /// Its path in the storage, without leading or trailing `/`
    /// (`""` is the storage's top folder). Folder names are chosen by
    /// whoever made the folder, so the path is authored.
    #[serde(with = "tool_core::authored::stored")]
    pub path: Authored<String>,
}

/// A file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct File {
    /// Its id.
    pub id: FileId,
    /// The storage it is in.
    pub storage: StorageId,
    /// Its path in the storage, e.g. `images/team.jpg`: chosen by whoever
    /// uploaded the file, so authored.
    #[serde(with = "tool_core::authored::stored")]
    pub path: Authored<String>,
    /// Its file name, e.g. `team.jpg`: authored, as the path is.
    #[serde(with = "tool_core::authored::stored")]
    pub name: Authored<String>,
    /// Its MIME type.
    pub mime: String,
    /// Its size in bytes.
    pub size: u64,
    /// Its title, when it has one.
    #[serde(with = "tool_core::authored::stored_option")]
    pub title: Option<Authored<String>>,
    /// Its alternative text per language; a language without one has none.
    #[serde(with = "tool_core::authored::stored")]
    pub alternative: Authored<BTreeMap<LanguageId, String>>,
    /// Known to the site but gone from the storage.
    pub missing: bool,
}

impl File {
    /// Whether [`Files::search_files`] finds the file for `text`: its path,
    /// its title or one of its alternative texts contains it
    /// ([`contains_literal`]: case-insensitive, every character literal).
    pub fn matches_text(&self, text: &str) -> bool {
        // Matched by the site, not shown: the texts stay authored.
        contains_literal(self.path.for_host(), text)
            || self
                .title
                .as_ref()
                .is_some_and(|title| contains_literal(title.for_host(), text))
            || self
                .alternative
                .for_host()
                .values()
                .any(|alt| contains_literal(alt, text))
    }
}

/// One use of a file by a field of a record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileReference {
    /// The file used.
    pub file: FileId,
    /// The table of the record that uses it (`content` for a content
    /// element, `pages` for a page).
    pub table: String,
    /// The record's id.
    pub record_id: u64,
    /// The record's field that holds the reference, e.g. `image`.
    pub field: String,
}

/// What a folder holds.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct FolderListing {
    /// The folders directly inside, by path.
    pub folders: Vec<Folder>,
    /// The files directly inside, by name.
    pub files: Vec<File>,
}

/// What to look for with [`Files::search_files`].
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct FileQuery {
    /// Only this storage; `None`: every storage.
    pub storage: Option<StorageId>,
    /// Text to find, literally and case-insensitively, in the path, title
    /// or alternative text; `""` matches every file.
    pub text: String,
    /// The most files to return.
    pub limit: usize,
}

/// Reading storages, folders and files.
#[async_trait]
pub trait Files: Send + Sync {
    /// Every storage, by id.
    async fn storages(&self) -> Result<Vec<Storage>, SiteError>;

    /// What a folder holds, or [`SiteError::NotFound`] for a folder that
    /// does not exist. `path` is as in [`Folder::path`].
    async fn list_folder(&self, storage: StorageId, path: &str)
    -> Result<FolderListing, SiteError>;

    /// The files matching `query` ([`File::matches_text`]), by id.
    async fn search_files(&self, query: &FileQuery) -> Result<Vec<File>, SiteError>;

    /// One file, or [`SiteError::NotFound`].
    async fn file(&self, id: FileId) -> Result<File, SiteError>;

    /// Where a file is used.
    async fn references(&self, file: FileId) -> Result<Vec<FileReference>, SiteError>;

    /// The files marked missing, by id.
    async fn missing_files(&self) -> Result<Vec<File>, SiteError>;
}
