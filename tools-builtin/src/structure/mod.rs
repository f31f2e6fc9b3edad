//! The `structure` group (everyone): the page tree, the tables and their
//! schemas, and which page serves a URL.
//!
//! Every tool here enforces the caller's [`Permissions`](site_model::Permissions)
//! itself: a non-administrator sees only the pages and tables the host
//! would show them, and a page or table they may not see reads exactly like
//! one that does not exist ([`NOT_FOUND`](site_model::NOT_FOUND)).

mod pagetree;
pub(crate) mod readable;
mod resolve;
mod schema;
mod tables;
pub(crate) mod tree;
mod validate;

pub use pagetree::GetPagetree;
pub use resolve::ResolveUrl;
pub use schema::GetTableSchema;
pub use tables::ListTables;
pub use validate::ValidateSchema;
