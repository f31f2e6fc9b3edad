//! The retrieval backend the `rag` tools ask: a trait, so the tools never
//! know where the index is kept or how it ranks.

use std::fmt;
use tool_core::Authored;

use site_model::{PublicSource, async_trait};

/// A question to a [`PublicIndex`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicQuery {
    /// The question or keywords; `"quoted words"` are a phrase.
    pub text: String,
    /// Only this site (by identifier).
    pub site: Option<String>,
    /// Only this language (by code, e.g. `de`).
    pub language: Option<String>,
    /// At most this many hits.
    pub limit: usize,
}

/// One source that matched, best first in a [`PublicAnswer`].
#[derive(Debug, Clone, PartialEq)]
pub struct PublicHit {
    /// The source's id, as [`PublicIndex::fetch`] takes it.
    pub id: String,
    /// Its title, as people wrote it.
    pub title: Authored<String>,
    /// Where a visitor reads it.
    pub url: String,
    /// Its site's identifier.
    pub site: String,
    /// Its language's code.
    pub language: String,
    /// The backend's relevance score: higher is better, comparable only
    /// within one answer.
    pub score: f32,
    /// The text around the match, matched words between `**`: people's
    /// text.
    pub excerpt: Authored<String>,
}

/// What a [`PublicIndex`] answered, naming the backend that answered.
#[derive(Debug, Clone, PartialEq)]
pub struct PublicAnswer {
    /// The backend, e.g. `tantivy`, `sqlite-fts5`, `substring`.
    pub backend: String,
    /// The hits, best first.
    pub hits: Vec<PublicHit>,
}

/// A backend that could not answer (for the host's logs; the model is told
/// the search failed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexError(pub String);

impl fmt::Display for IndexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the search index failed: {}", self.0)
    }
}

impl std::error::Error for IndexError {}

/// Search over what the public may read of the site
/// ([`site_model::public_sources`]): nothing else is ever in it.
///
/// A host hands one `Arc<dyn PublicIndex>` to every tool context as a
/// service, and keeps it current with the site: a source that stopped being
/// public is neither found nor fetched once the change is applied.
#[async_trait]
pub trait PublicIndex: Send + Sync {
    /// The sources matching `query`, best first, at most `query.limit`.
    async fn search(&self, query: &PublicQuery) -> Result<PublicAnswer, IndexError>;

    /// The indexed source `id`, or `None` when no public source has it.
    async fn fetch(&self, id: &str) -> Result<Option<PublicSource>, IndexError>;
}

/// A part of a query: a word, or a phrase the user quoted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueryTerm {
    /// One word.
    Word(String),
    /// Words that must follow each other.
    Phrase(Vec<String>),
}

/// The words and `"quoted phrases"` of a query, with every character that
/// is syntax to some backend (quotes, operators, punctuation) taken out, so
/// a backend can rebuild the query in its own syntax without the user's
/// text ever being read as syntax. An unclosed quote ends at the end.
pub fn query_terms(text: &str) -> Vec<QueryTerm> {
    let mut terms = Vec::new();
    for (index, part) in text.split('"').enumerate() {
        let words: Vec<String> = part
            .split(|c: char| !c.is_alphanumeric())
            .filter(|word| !word.is_empty())
            .map(str::to_lowercase)
            .collect();
        if index % 2 == 1 && words.len() > 1 {
            terms.push(QueryTerm::Phrase(words));
        } else {
            terms.extend(words.into_iter().map(QueryTerm::Word));
        }
    }
    terms
}

impl QueryTerm {
    /// The term as text: the word, or the phrase's words joined by spaces.
    pub fn text(&self) -> String {
        match self {
            QueryTerm::Word(word) => word.clone(),
            QueryTerm::Phrase(words) => words.join(" "),
        }
    }
}
