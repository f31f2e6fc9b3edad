//! Tables of records, their schemas, and their change history.

use std::collections::BTreeMap;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tool_core::Authored;

use crate::{SiteError, Timestamp};

/// The type of a field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type")]
#[non_exhaustive]
pub enum FieldKind {
    /// Text.
    String,
    /// A whole number.
    Int,
    /// True or false.
    Bool,
    /// A [`Timestamp`] (seconds since the Unix epoch).
    Datetime,
    /// The id of a record in `table`.
    Relation {
        /// The table the id points into.
        table: String,
    },
}

/// One field of a table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldSchema {
    /// Its name.
    pub name: String,
    /// Its type.
    pub kind: FieldKind,
    /// Holds a credential (a password hash, a token, a client secret): no
    /// tool ever shows its value.
    pub credential: bool,
}

/// A table: its name, fields, and what search looks at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableSchema {
    /// Its name, e.g. `news`.
    pub name: String,
    /// Its name for people.
    pub title: String,
    /// Its fields (besides the id).
    pub fields: Vec<FieldSchema>,
    /// The fields [`Records::search_records`] matches against.
    pub search_fields: Vec<String>,
    /// Only administrators may read it, whatever their groups grant.
    pub sensitive: bool,
}

impl TableSchema {
    /// The field called `name`.
    pub fn field(&self, name: &str) -> Option<&FieldSchema> {
        self.fields.iter().find(|field| field.name == name)
    }

    /// The names of the fields that hold credentials.
    pub fn credential_fields(&self) -> impl Iterator<Item = &str> {
        self.fields
            .iter()
            .filter(|field| field.credential)
            .map(|field| field.name.as_str())
    }

    /// Whether [`Records::search_records`] finds `record` (of this table)
    /// for `needle`: one of its [`search_fields`](Self::search_fields)
    /// holds text that contains it ([`contains_literal`]).
    pub fn search_matches(&self, record: &Record, needle: &str) -> bool {
        self.search_fields.iter().any(|field| {
            // Matched, not shown: the values stay authored.
            record
                .values
                .for_host()
                .get(field)
                .and_then(Value::as_str)
                .is_some_and(|text| contains_literal(text, needle))
        })
    }
}

/// A record of a table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The table it is in.
    pub table: String,
    /// Its id, unique in the table.
    pub id: u64,
    /// Its field values by field name: what people entered (a news
    /// item's title and body, a product's description).
    #[serde(with = "tool_core::authored::stored")]
    pub values: Authored<BTreeMap<String, Value>>,
}

/// What a change did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum HistoryAction {
    /// The record was made.
    Created,
    /// Fields changed.
    Updated,
    /// The record was (soft-)deleted.
    Deleted,
    /// The record moved (another parent, page, column or place).
    Moved,
}

/// One field's value before and after a change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldChange {
    /// The field.
    pub field: String,
    /// Its value before (`null` when created), as people entered it.
    #[serde(with = "tool_core::authored::stored")]
    pub old: Authored<Value>,
    /// Its value after.
    #[serde(with = "tool_core::authored::stored")]
    pub new: Authored<Value>,
}

/// One change of one record.
///
/// Pages, content elements and files have history too, under the tables
/// `pages`, `content` and `files` (see [`Target::table`](crate::Target::table)).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistoryEntry {
    /// The table of the record.
    pub table: String,
    /// The record's id.
    pub record_id: u64,
    /// When.
    pub at: Timestamp,
    /// Who made the change (a login name, or a service such as
    /// `scheduler`): authored, as login names are chosen by people.
    #[serde(with = "tool_core::authored::stored")]
    pub actor: Authored<String>,
    /// What the change did.
    pub action: HistoryAction,
    /// The fields it changed.
    pub changes: Vec<FieldChange>,
    /// For a change made through a writing tool: who proposed it.
    #[serde(with = "tool_core::authored::stored_option")]
    pub proposed_by: Option<Authored<String>>,
    /// For a change made through a writing tool: who approved it.
    #[serde(with = "tool_core::authored::stored_option")]
    pub approved_by: Option<Authored<String>>,
    /// For a change an approver edited before approving it: the values as
    /// they were proposed, by field (`changes` holds what was written).
    /// Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposed: Option<crate::Fields>,
}

/// Reading tables, records and their history.
///
/// Every method returns every table and every field, credentials included:
/// which tables a person may read is for
/// [`Permissions`](crate::Permissions), and hiding credential fields is for
/// the tool.
#[async_trait]
pub trait Records: Send + Sync {
    /// The schemas of every table, by name.
    async fn tables(&self) -> Result<Vec<TableSchema>, SiteError>;

    /// The schema of one table, or [`SiteError::NotFound`].
    async fn table(&self, name: &str) -> Result<TableSchema, SiteError>;

    /// One record, or [`SiteError::NotFound`].
    async fn record(&self, table: &str, id: u64) -> Result<Record, SiteError>;

    /// The records of `table` whose fields equal every value in `equals`
    /// (an empty filter: all of them), by id. A field the record lacks
    /// equals `null`. A field the schema lacks is [`SiteError::Invalid`].
    async fn find_records(
        &self,
        table: &str,
        equals: &BTreeMap<String, Value>,
    ) -> Result<Vec<Record>, SiteError>;

    /// The records of `table` with `needle` in one of its search fields
    /// ([`TableSchema::search_matches`]), case-insensitively, by id, at most
    /// `limit`.
    ///
    /// This is a substring match, not SQL `LIKE`: `%` and `_` in `needle`
    /// are characters to find, not wildcards. A backend over SQL escapes
    /// them (or uses `instr`/`position`).
    async fn search_records(
        &self,
        table: &str,
        needle: &str,
        limit: usize,
    ) -> Result<Vec<Record>, SiteError>;

    /// The change history of one record, newest first. A record without
    /// history, or one that does not exist, has an empty history.
    async fn history(&self, table: &str, record_id: u64) -> Result<Vec<HistoryEntry>, SiteError>;
}

/// The substring match [`Records::search_records`] and file search promise:
/// case-insensitive, every character literal.
pub fn contains_literal(haystack: &str, needle: &str) -> bool {
    haystack.to_lowercase().contains(&needle.to_lowercase())
}
