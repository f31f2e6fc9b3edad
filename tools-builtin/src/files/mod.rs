//! The `files` group (everyone): storages, folders, files and where files
//! are used.
//!
//! Self-enforcing: every tool shows only storages the actor may reach
//! ([`Permissions::may_reach_storage`](site_model::Permissions::may_reach_storage)),
//! and a file in any other storage reads exactly like one that does not
//! exist ([`NOT_FOUND`](site_model::NOT_FOUND)). Paths are always
//! storage-relative: no tool shows where a storage lives on the server.

mod browse;
mod describe;
mod meta;
mod search;

pub use browse::{BrowseFolder, ListStorages};
pub use meta::{GetFileReferences, ReadFileMeta};
pub use search::{FindMissingFiles, SearchFiles};
