//! `rag`: answers from what the public may read of the site.
//!
//! Two read-only tools over a [`PublicIndex`] the host provides:
//! `site_rag_query` (the best sources for a question, each with id, title,
//! URL, score and a highlighted excerpt, naming the backend that answered)
//! and `site_fetch_source` (one source's indexed text, capped at 8,000
//! characters). Whoever asks, an administrator included, gets only what an
//! anonymous visitor could read ([`site_model::public_sources`]): the index
//! holds nothing else, so the tools need no permission check of their own.
//!
//! The backend is the host's choice (a search index, the database's
//! full-text search, or [`SubstringIndex`], the plain fallback); the tools
//! know it only through the trait.

mod fetch;
mod index;
mod query;
mod substring;

pub use fetch::{FETCH_CAP_CHARS, SiteFetchSource};
pub use index::{
    IndexError, PublicAnswer, PublicHit, PublicIndex, PublicQuery, QueryTerm, query_terms,
};
pub use query::{MAX_SOURCES, SiteRagQuery};
pub use substring::{SUBSTRING_BACKEND, SubstringIndex};

use std::sync::Arc;

use tool_core::{ToolContext, ToolError};

/// The host's index for this call; a host that provides none offers no
/// answer rather than a wrong one.
fn index(cx: &ToolContext) -> Result<Arc<dyn PublicIndex>, ToolError> {
    cx.service::<Arc<dyn PublicIndex>>()
        .cloned()
        .map_err(|_| ToolError::failed("public search is not set up on this host"))
}

/// A backend failure as the model reads it (the details are the host's).
fn search_failed(_error: IndexError) -> ToolError {
    ToolError::failed("the public search index could not answer; try again later")
}
