//! The `code` group (administrators): reading and searching the site's
//! source root ([`SourceRoot`](site_model::SourceRoot)).
//!
//! Every path is opened through a capability handle on the root
//! ([`cap_std::fs::Dir`]), so neither `..` nor a symbolic link leads out of
//! it, and symbolic links are not followed at all. Dotfiles and dot
//! folders, key material and credential files ([`rules`]) are unreadable
//! and read exactly like files that do not exist; every line shown goes
//! through [`redact_text`](tool_core::redact::redact_text).

mod lines;
mod read;
mod root;
pub mod rules;
mod search;

pub use read::ReadSource;
pub use search::SearchCode;
