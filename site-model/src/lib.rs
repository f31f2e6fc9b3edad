//! The host's world as tools see it: pages and their content, records and
//! their history, files, accounts, logs, site configuration, source code,
//! and who may see what.
//!
//! Tools know a host only through the traits of this crate, never through
//! SQL or a web framework. A host implements them over its own storage and
//! hands every tool one `Arc<dyn Site>`; the traits are async because a
//! real store waits on I/O, and use [`macro@async_trait`] so they are
//! dyn-compatible.
//!
//! | trait | concern |
//! | --- | --- |
//! | [`Pages`] | the page tree, translations, and content elements |
//! | [`Records`] | tables, their schemas, records, search and history |
//! | [`Files`] | storages, folders, files and where they are used |
//! | [`Accounts`] | users, groups, and a user's [`Permissions`] |
//! | [`Logs`] | the log, newest first |
//! | [`Configuration`] | the sites and their settings (secrets included) |
//! | [`SourceRoot`] | the folder the code tools may read |
//! | [`Changes`] | writing: a [`ChangeSet`] applied all or nothing |
//! | [`Site`] | all of the above, implemented for free |
//!
//! Reading returns everything, hidden, deleted and secret things included:
//! deciding what a person may see is [`Permissions`]' job, what an anonymous
//! visitor may read is [`public_sources`]' (the one rule public retrieval
//! indexes by), and keeping credentials and secrets out of output is the
//! tool's.
//!
//! # Implementing a host
//!
//! Implement each concern trait on the store (with `#[async_trait]`);
//! [`Site`] follows. Keep the promises each method documents: the orders
//! ("newest first"), [`SiteError::NotFound`] for what does not exist,
//! search as a literal substring match (`%` and `_` are not wildcards), and
//! [`Changes::apply`] as one transaction whose compare-and-set leaves
//! everything unchanged when one expected value differs. [`MemorySite`] is
//! the reference implementation, and [`SiteData`] the format of the demo
//! data a host seeds its database from ([`demo::DATA`]).
//!
//! # Example
//!
//! ```
//! use std::sync::Arc;
//!
//! use site_model::{Accounts, MemorySite, PageId, Pages, Records, Site, UserId};
//!
//! # futures_executor::block_on(async {
//! let site: Arc<dyn Site> = Arc::new(MemorySite::demo());
//!
//! // The page tree.
//! let root = &site.children(None).await?[0];
//! let sections = site.children(Some(root.id)).await?;
//! assert!(sections.iter().any(|page| page.title == "Products"));
//!
//! // Records, searched literally: `%` and `_` are characters, not wildcards.
//! let news = site.search_records("news", "20%", 10).await?;
//! assert_eq!(news[0].values.for_host()["title"], "Save 20% on all helmets");
//! assert!(site.search_records("news", "2_%", 10).await?.is_empty());
//!
//! // Who may see what: petra works on products only.
//! let petra = site.permissions(UserId(3)).await?;
//! let products = sections.iter().find(|page| page.title == "Products").unwrap();
//! let news_page = sections.iter().find(|page| page.title == "News").unwrap();
//! assert!(petra.may_show_page(products.id, &*site).await?);
//! assert!(!petra.may_show_page(news_page.id, &*site).await?);
//! assert!(!petra.may_show_page(PageId(9999), &*site).await.unwrap_or(false));
//! # Ok::<(), site_model::SiteError>(())
//! # }).unwrap();
//! ```

#![forbid(unsafe_code)]

mod accounts;
pub mod change_rules;
mod changes;
mod configuration;
mod data;
pub mod demo;
mod error;
mod files;
mod ids;
mod logs;
mod memory;
mod pages;
mod permissions;
mod public;
mod records;
mod site;
mod source_root;
mod time;

pub use accounts::{Accounts, Grants, Group, User};
pub use changes::{ChangeSet, Changes, Fields, Operation, Target};
pub use configuration::{Configuration, Language, SiteConfig};
pub use data::SiteData;
pub use error::SiteError;
pub use files::{File, FileQuery, FileReference, Files, Folder, FolderListing, Storage};
pub use ids::{ColumnId, ElementId, FileId, GroupId, LanguageId, LogId, PageId, StorageId, UserId};
pub use logs::{LogEntry, LogLevel, LogQuery, Logs};
pub use memory::MemorySite;
pub use pages::{Column, ContentElement, Page, PageKind, Pages};
pub use permissions::{NOT_FOUND, Permissions, Scope};
pub use public::{PublicSource, SourceKind, plain_text, public_sources};
pub use records::{
    FieldChange, FieldKind, FieldSchema, HistoryAction, HistoryEntry, Record, Records, TableSchema,
    contains_literal,
};
pub use site::Site;
pub use source_root::SourceRoot;
pub use time::Timestamp;

/// Re-exported so a host implements the traits with the same macro version.
pub use async_trait::async_trait;
