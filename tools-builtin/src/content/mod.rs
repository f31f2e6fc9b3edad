//! The `content` group (everyone): records and page content.
//!
//! Every tool here enforces the caller's [`Permissions`](site_model::Permissions)
//! itself: a non-administrator reads only the tables and pages the host
//! would show them, deleted records and elements stay out of their reach,
//! and what they may not see reads exactly like what does not exist
//! ([`NOT_FOUND`](site_model::NOT_FOUND)). Credential fields are never
//! shown to anyone, and every value passes through [`tool_core::redact`].

mod history;
mod page_content;
mod read;
mod search;
mod shown;

pub use history::GetRecordHistory;
pub use page_content::GetPageContent;
pub use read::ReadRecords;
pub use search::SearchRecords;
