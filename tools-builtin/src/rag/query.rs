use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tool_core::redact::redact_text;
use tool_core::{Execute, Tool, ToolContext, ToolError, ToolOutput};

use super::{PublicQuery, index, query_terms, search_failed};
use crate::access::limit;

/// The most sources one answer holds.
pub const MAX_SOURCES: usize = 10;
/// Longest question, in characters.
const MAX_QUESTION_CHARS: usize = 500;

/// Find what the public website says about a question: the best-matching
/// public pages and files, each with its source id, title, URL, score and
/// an excerpt with the matched words between `**`.
///
/// Searches only what an anonymous visitor may read (no hidden, deleted or
/// unpublished content, whoever asks). Words or `"quoted phrases"`; English
/// and German. At most 10 sources (default 5). The answer names the search
/// backend. Read a source whole with `site_fetch_source`.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "rag", effect = "read", data = "public", content = "untrusted")]
#[serde(deny_unknown_fields)]
pub struct SiteRagQuery {
    /// The question or keywords, 1 to 500 characters.
    question: String,
    /// Only this site, by identifier (e.g. `main`). Default: every site.
    site: Option<String>,
    /// Only this language, by code (e.g. `de`). Default: every language.
    language: Option<String>,
    /// At most this many sources: default 5, at most 10.
    limit: Option<u32>,
}

impl Execute for SiteRagQuery {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let chars = self.question.chars().count();
        if chars == 0 || chars > MAX_QUESTION_CHARS {
            return Err(ToolError::failed(format!(
                "`question` must be 1 to {MAX_QUESTION_CHARS} characters"
            )));
        }
        if query_terms(&self.question).is_empty() {
            return Err(ToolError::failed("`question` has no words to search for"));
        }
        let index = index(cx)?;
        let answer = index
            .search(&PublicQuery {
                text: self.question,
                site: self.site,
                language: self.language,
                limit: limit(self.limit, 5, MAX_SOURCES),
            })
            .await
            .map_err(search_failed)?;
        let sources: Vec<Value> = answer
            .hits
            .iter()
            .take(MAX_SOURCES)
            .map(|hit| {
                json!({
                    "id": hit.id,
                    "title": redact_text(hit.title.read(cx)),
                    "url": hit.url,
                    "site": hit.site,
                    "language": hit.language,
                    "score": (f64::from(hit.score) * 1000.0).round() / 1000.0,
                    "excerpt": redact_text(hit.excerpt.read(cx)),
                })
            })
            .collect();
        let summary = if sources.is_empty() {
            "no public source matches".to_owned()
        } else {
            format!("{} sources, best first", sources.len())
        };
        Ok(ToolOutput::json(json!({
            "backend": answer.backend,
            "sources": sources,
            "summary": summary,
        })))
    }
}
