//! [`SqlSite`]: site-model's traits over the store's `site_*` tables.
//!
//! Reads are SQL (`WHERE id = $1`, and `ORDER BY` wherever a trait promises
//! an order by number). Three kinds of work happen in Rust instead, each
//! because SQL would change the meaning:
//!
//! - text orders (tables by name, sites by identifier): PostgreSQL orders
//!   text by the database's collation, SQLite by bytes; Rust's order is the
//!   one [`MemorySite`](site_model::MemorySite) keeps;
//! - search (records, files): a case-insensitive literal substring match
//!   with Unicode lower-casing ([`site_model::contains_literal`]); SQLite's
//!   `lower()` folds ASCII only;
//! - filters on fields inside the JSON documents (`find_records`), which
//!   the two backends spell differently.
//!
//! Those read the rows of one table (or storage) and filter them, which is
//! fine at a site's size (thousands of records), not at millions.

mod accounts;
mod apply;
mod files;
mod pages;
mod records;
pub(crate) mod rows;

use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use site_model::{SiteData, SiteError, SourceRoot};
use sqlx::any::{AnyArguments, AnyRow};
use sqlx::query::Query;
use sqlx::{Any, Row};

use super::{AuditEntry, Store, one_line};

/// The site kept in a [`Store`], implementing every trait of site-model
/// (so [`site_model::Site`] too) with [`MemorySite`](site_model::MemorySite)'s
/// semantics.
#[derive(Debug, Clone)]
pub struct SqlSite {
    store: Store,
    source_root: Option<PathBuf>,
    /// The audit rows a change writes in its own transaction (an approved
    /// proposal's `approved`, then `applied`), so no crash leaves a change
    /// without them, nor them without the change.
    applied: Vec<AuditEntry>,
}

impl SqlSite {
    /// The site in `store`, without source code.
    pub fn new(store: Store) -> Self {
        SqlSite {
            store,
            source_root: None,
            applied: Vec::new(),
        }
    }

    /// The same site, writing `entries` to the audit trail, in order, in
    /// the transaction of each change it applies: the change and its audit
    /// rows commit together or not at all.
    pub fn auditing(mut self, entries: Vec<AuditEntry>) -> Self {
        self.applied = entries;
        self
    }

    /// The same site with `root` as the folder of its source code.
    pub fn with_source_root(mut self, root: impl Into<PathBuf>) -> Self {
        self.source_root = Some(root.into());
        self
    }

    /// Everything the site holds, every list by id (history and file
    /// references in the order they were stored): two dumps are equal
    /// exactly when the stored site is.
    pub async fn dump(&self) -> Result<SiteData, SiteError> {
        let all = |table: &str, order: &str| format!("SELECT data FROM {table} ORDER BY {order}");
        Ok(SiteData {
            columns: self.all(sqlx::query(&all("site_columns", "id"))).await?,
            pages: self.all(sqlx::query(&all("site_pages", "id"))).await?,
            elements: self.all(sqlx::query(&all("site_elements", "id"))).await?,
            tables: self.all(sqlx::query(&all("site_tables", "name"))).await?,
            records: self
                .all(sqlx::query(&all("site_records", "tbl, id")))
                .await?,
            history: self.all(sqlx::query(&all("site_history", "seq"))).await?,
            storages: self.all(sqlx::query(&all("site_storages", "id"))).await?,
            files: self.all(sqlx::query(&all("site_files", "id"))).await?,
            references: self
                .all(sqlx::query(&all("site_references", "seq")))
                .await?,
            users: self.all(sqlx::query(&all("site_users", "id"))).await?,
            groups: self.all(sqlx::query(&all("site_groups", "id"))).await?,
            logs: self.all(sqlx::query(&all("site_logs", "id"))).await?,
            sites: self
                .all(sqlx::query(&all("site_sites", "identifier")))
                .await?,
        })
    }

    /// Every row `query` selects, its `data` column decoded.
    async fn all<'q, T: DeserializeOwned>(
        &self,
        query: Query<'q, Any, AnyArguments<'q>>,
    ) -> Result<Vec<T>, SiteError> {
        let rows = query.fetch_all(self.store.pool()).await.map_err(storage)?;
        rows.iter().map(decode).collect()
    }

    /// The one row `query` selects, its `data` column decoded, or
    /// [`SiteError::NotFound`] for `what`.
    async fn one<'q, T: DeserializeOwned>(
        &self,
        query: Query<'q, Any, AnyArguments<'q>>,
        what: impl FnOnce() -> String,
    ) -> Result<T, SiteError> {
        match query
            .fetch_optional(self.store.pool())
            .await
            .map_err(storage)?
        {
            Some(row) => decode(&row),
            None => Err(SiteError::not_found(what())),
        }
    }
}

impl SourceRoot for SqlSite {
    fn source_root(&self) -> Option<&Path> {
        self.source_root.as_deref()
    }
}

/// A database failure as the site model reports it.
pub(crate) fn storage(error: impl std::fmt::Display) -> SiteError {
    SiteError::Storage(one_line(&error.to_string()))
}

/// The `data` column of `row`, decoded.
pub(crate) fn decode<T: DeserializeOwned>(row: &AnyRow) -> Result<T, SiteError> {
    let text: String = row.try_get("data").map_err(storage)?;
    serde_json::from_str(&text).map_err(|error| SiteError::Storage(format!("corrupt row: {error}")))
}
