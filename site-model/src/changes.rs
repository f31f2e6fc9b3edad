//! Writing: change sets applied all or nothing, each operation a
//! compare-and-set.

use std::collections::BTreeMap;
use std::fmt;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{ElementId, FileId, HistoryEntry, PageId, SiteError};

/// The thing an operation writes.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    /// A page (of any language).
    Page(PageId),
    /// A content element.
    Element(ElementId),
    /// A file's metadata (title, alternative text, …), never its bytes.
    File(FileId),
    /// A record of a table.
    Record {
        /// The table.
        table: String,
        /// The record's id.
        id: u64,
    },
}

impl Target {
    /// The table its history is kept under: `pages`, `content`, `files`, or
    /// the record's table.
    pub fn table(&self) -> &str {
        match self {
            Target::Page(_) => "pages",
            Target::Element(_) => "content",
            Target::File(_) => "files",
            Target::Record { table, .. } => table,
        }
    }

    /// Its id in [`Target::table`].
    pub fn id(&self) -> u64 {
        match self {
            Target::Page(id) => id.0,
            Target::Element(id) => id.0,
            Target::File(id) => id.0,
            Target::Record { id, .. } => *id,
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.table(), self.id())
    }
}

/// Field values by field name. For pages, elements and files the fields are
/// those of their serialized form (`title`, `hidden`, `parent`, `column`,
/// `sorting`, `alternative`, …).
pub type Fields = BTreeMap<String, Value>;

/// One write, checked against what is stored when it is applied.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "op")]
pub enum Operation {
    /// Set fields, if each field in `expected` still holds its value.
    /// Moving is an update too: of `parent` and `sorting` for a page, of
    /// `page`, `column` and `sorting` for an element.
    Update {
        /// What to write.
        target: Target,
        /// The values the change replaces; a field the target lacks holds
        /// `null`.
        expected: Fields,
        /// The values to write.
        new: Fields,
    },
    /// Create the target with these fields; its id must be free.
    Insert {
        /// What to create.
        target: Target,
        /// Its fields (for a page, element or file: all of them but `id`).
        values: Fields,
    },
    /// Put the target in the recycle bin (set `deleted`), if each field in
    /// `expected` still holds its value. Pages, elements, and records whose
    /// table has a `deleted` field can be soft-deleted.
    SoftDelete {
        /// What to delete.
        target: Target,
        /// The values the deletion expects.
        expected: Fields,
    },
}

impl Operation {
    /// What the operation writes.
    pub fn target(&self) -> &Target {
        match self {
            Operation::Update { target, .. }
            | Operation::Insert { target, .. }
            | Operation::SoftDelete { target, .. } => target,
        }
    }
}

/// Operations applied together, and the history entries recording them.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ChangeSet {
    /// The writes, in order; a later one sees the earlier ones' results.
    pub operations: Vec<Operation>,
    /// Appended to the history when, and only when, every operation applied.
    pub history: Vec<HistoryEntry>,
}

/// Writing to the site.
#[async_trait]
pub trait Changes: Send + Sync {
    /// Applies every operation and appends the history, or changes nothing.
    ///
    /// The check of every `expected` value and every write happen in one
    /// transaction, so of two racing change sets expecting the same value
    /// exactly one applies. A value that differs fails the whole set with
    /// [`SiteError::Conflict`] naming the target and field; a missing target
    /// with [`SiteError::NotFound`]; an unknown field or a wrongly typed
    /// value with [`SiteError::Invalid`].
    async fn apply(&self, changes: ChangeSet) -> Result<(), SiteError>;
}
