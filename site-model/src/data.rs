//! The whole of a site as one serializable value: the format of the demo
//! data file, of [`MemorySite`](crate::MemorySite)'s snapshots, and what a
//! host seeds its database from.

use serde::{Deserialize, Serialize};

use crate::{
    Column, ContentElement, File, FileReference, Group, HistoryEntry, LogEntry, Page, Record,
    SiteConfig, Storage, TableSchema, User,
};

/// Every page, element, record, file, account, log entry and site.
///
/// Lists are kept in the order given; [`MemorySite`](crate::MemorySite)
/// sorts what it returns as each trait promises.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiteData {
    /// The columns of the page layout.
    pub columns: Vec<Column>,
    /// Every page of every language.
    pub pages: Vec<Page>,
    /// Every content element.
    pub elements: Vec<ContentElement>,
    /// Every table's schema.
    pub tables: Vec<TableSchema>,
    /// Every record of every table.
    pub records: Vec<Record>,
    /// The change history of records, pages, elements and files.
    pub history: Vec<HistoryEntry>,
    /// The file storages.
    pub storages: Vec<Storage>,
    /// Every file.
    pub files: Vec<File>,
    /// Where files are used.
    pub references: Vec<FileReference>,
    /// Every user.
    pub users: Vec<User>,
    /// Every group.
    pub groups: Vec<Group>,
    /// The log.
    pub logs: Vec<LogEntry>,
    /// The sites.
    pub sites: Vec<SiteConfig>,
}

impl SiteData {
    /// Reads data in the demo file's format (JSON).
    pub fn from_json(json: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(json)
    }
}
