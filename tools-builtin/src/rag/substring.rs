//! The last backend: a case-insensitive substring search over a snapshot of
//! the public sources, for a host with no index and no full-text search.

use site_model::{PublicSource, async_trait, contains_literal};
use tool_core::Authored;

use super::index::{IndexError, PublicAnswer, PublicHit, PublicIndex, PublicQuery, query_terms};

/// Characters of text around a match in an excerpt.
const EXCERPT_CHARS: usize = 160;

/// The shortest term searched when the query has longer ones.
const MIN_TERM_CHARS: usize = 3;

/// The name this backend answers with.
pub const SUBSTRING_BACKEND: &str = "substring";

/// Public sources searched by substring: a source matches when one of the
/// query's words or phrases is in its title or text (case-insensitive,
/// every character literal); the score counts the terms found, a title
/// match twice. No ranking beyond that, no stemming; words of one or two
/// letters are left out when the query has longer ones.
#[derive(Debug, Clone, Default)]
pub struct SubstringIndex {
    sources: Vec<PublicSource>,
}

impl SubstringIndex {
    /// An index over `sources` (as [`site_model::public_sources`] returns
    /// them).
    pub fn new(sources: Vec<PublicSource>) -> Self {
        SubstringIndex { sources }
    }

    /// The sources that match `query`, best first, ties by id.
    pub fn search_now(&self, query: &PublicQuery) -> Vec<PublicHit> {
        let all: Vec<String> = query_terms(&query.text)
            .iter()
            .map(|term| term.text())
            .collect();
        // A word of one or two letters is inside most texts: it counts only
        // when the query has nothing longer.
        let long: Vec<String> = all
            .iter()
            .filter(|term| term.chars().count() >= MIN_TERM_CHARS)
            .cloned()
            .collect();
        let terms = if long.is_empty() { all } else { long };
        let mut hits: Vec<(f32, &PublicSource, Authored<String>)> = self
            .sources
            .iter()
            .filter(|source| query.site.as_ref().is_none_or(|site| *site == source.site))
            .filter(|source| {
                query
                    .language
                    .as_ref()
                    .is_none_or(|language| *language == source.language)
            })
            .filter_map(|source| {
                let mut score = 0.0;
                let mut first: Option<&str> = None;
                for term in &terms {
                    if contains_literal(source.title.for_host(), term) {
                        score += 2.0;
                    }
                    if contains_literal(source.text.for_host(), term) {
                        score += 1.0;
                        first.get_or_insert(term);
                    }
                }
                // Matched and cut by the index, not shown: the excerpt stays
                // authored until a tool reads it.
                (score > 0.0).then(|| {
                    let excerpt = excerpt(source.text.for_host(), first, &terms);
                    (score, source, Authored::new(excerpt))
                })
            })
            .collect();
        hits.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.id.cmp(&b.1.id)));
        hits.into_iter()
            .take(query.limit)
            .map(|(score, source, excerpt)| PublicHit {
                id: source.id.clone(),
                title: source.title.clone(),
                url: source.url.clone(),
                site: source.site.clone(),
                language: source.language.clone(),
                score,
                excerpt,
            })
            .collect()
    }
}

#[async_trait]
impl PublicIndex for SubstringIndex {
    async fn search(&self, query: &PublicQuery) -> Result<PublicAnswer, IndexError> {
        Ok(PublicAnswer {
            backend: SUBSTRING_BACKEND.to_owned(),
            hits: self.search_now(query),
        })
    }

    async fn fetch(&self, id: &str) -> Result<Option<PublicSource>, IndexError> {
        Ok(self.sources.iter().find(|source| source.id == id).cloned())
    }
}

/// About `EXCERPT_CHARS` of `text` around the first place `first` occurs,
/// every occurrence of a term in it marked `**…**`.
fn excerpt(text: &str, first: Option<&str>, terms: &[String]) -> String {
    let chars: Vec<char> = text.chars().collect();
    let lower: Vec<char> = chars
        .iter()
        .map(|c| c.to_lowercase().next().unwrap_or(*c))
        .collect();
    let find = |term: &str, from: usize| -> Option<usize> {
        let needle: Vec<char> = term.chars().collect();
        let last = lower.len().checked_sub(needle.len())?;
        if needle.is_empty() || from > last {
            return None;
        }
        (from..=last).find(|&at| lower[at..].starts_with(&needle))
    };
    let at = first.and_then(|term| find(term, 0)).unwrap_or(0);
    let start = at.saturating_sub(EXCERPT_CHARS / 3);
    let end = (start + EXCERPT_CHARS).min(chars.len());
    let mut marks = vec![false; chars.len()];
    for term in terms {
        let length = term.chars().count();
        let mut from = start;
        while let Some(found) = find(term, from).filter(|&found| found < end) {
            marks[found..(found + length).min(end)].fill(true);
            from = found + length.max(1);
        }
    }
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    let mut open = false;
    for index in start..end {
        if marks[index] != open {
            out.push_str("**");
            open = marks[index];
        }
        out.push(chars[index]);
    }
    if open {
        out.push_str("**");
    }
    if end < chars.len() {
        out.push('…');
    }
    out
}
