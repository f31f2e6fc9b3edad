//! Read-only tools over a host's site, each a reference implementation of
//! the security contract: model-chosen arguments validated and scoped,
//! volumes capped with the total always reported, secrets redacted (or kept
//! behind a separate `_raw` tool that ships disabled), and
//! non-administrators seeing only what the host already lets them see.
//!
//! The tools reach the host only through [`site_model`]: a host puts one
//! `Arc<dyn site_model::Site>` into the [`ToolContext`](tool_core::ToolContext)
//! as a service, and the call's actor is matched to the site's user of the
//! same name ([`site_model::Permissions::for_actor`]). A record that does
//! not exist and one the actor may not see read the same, byte for byte
//! ([`site_model::NOT_FOUND`]).
//!
//! | group | who | egress | tools |
//! | --- | --- | --- | --- |
//! | `system` | administrators | `own_site` | `get_env`, `get_env_raw` (ships disabled), `get_system_status`, `fetch_logs`, `probe_url`, `get_last_error` |
//! | `structure` | everyone | none | `get_pagetree`, `list_tables`, `get_table_schema`, `resolve_url`, `validate_schema` |
//! | `content` | everyone | none | `search_records`, `get_page_content`, `read_records`, `get_record_history` |
//! | `files` | everyone | none | `list_storages`, `browse_folder`, `search_files`, `read_file_meta`, `get_file_references`, `find_missing_files` |
//! | `accounts` | administrators | none | `list_users`, `list_users_raw` (ships disabled), `list_groups` |
//! | `configuration` | administrators | none | `get_site_config` |
//! | `code` | administrators | none | `read_source`, `search_code` |
//! | `rag` | everyone | none | `site_rag_query`, `site_fetch_source` (public content only, over the host's [`rag::PublicIndex`]) |
//!
//! The groups are the defaults an administrator switches; `system` is the
//! one group a host should grant `own_site` egress (for `probe_url`).
//!
//! A host keeps this crate linked with one line before building its
//! registry:
//!
//! ```
//! tools_builtin::link();
//! let registry = tool_core::Registry::linked().unwrap();
//! assert!(registry.get("get_env").is_some());
//! ```
#![forbid(unsafe_code)]

pub mod access;
pub mod accounts;
pub mod code;
pub mod configuration;
pub mod content;
pub mod files;
pub mod rag;
pub mod structure;
pub mod system;

/// The groups of this crate's tools, as an administrator switches them.
pub mod groups {
    /// Host internals: environment, status, logs, probing the own sites.
    pub const SYSTEM: &str = "system";
    /// The page tree, tables and their schemas, URLs.
    pub const STRUCTURE: &str = "structure";
    /// Records and page content.
    pub const CONTENT: &str = "content";
    /// Storages, folders, files and their references.
    pub const FILES: &str = "files";
    /// Users and groups.
    pub const ACCOUNTS: &str = "accounts";
    /// The sites' settings.
    pub const CONFIGURATION: &str = "configuration";
    /// The source root.
    pub const CODE: &str = "code";
    /// Retrieval over what the public may read of the site.
    pub const RAG: &str = "rag";
}

tool_core::linkable!();
