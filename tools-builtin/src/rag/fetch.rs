use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tool_core::redact::redact_text;
use tool_core::{Execute, Tool, ToolContext, ToolError, ToolOutput};

use super::{index, search_failed};
use crate::access::not_found;

/// The most characters of a source's text one answer holds.
pub const FETCH_CAP_CHARS: usize = 8_000;
/// Longest source id, in characters.
const MAX_ID_CHARS: usize = 64;

/// Read one public source found by `site_rag_query`: its title, URL and
/// indexed text (at most 8,000 characters; the answer says when the text
/// was cut). A source that does not exist and one that is no longer public
/// give the same answer.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "rag", effect = "read", data = "public", content = "untrusted")]
#[serde(deny_unknown_fields)]
pub struct SiteFetchSource {
    /// The source id from `site_rag_query`, e.g. `page:21`.
    id: String,
}

impl Execute for SiteFetchSource {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        if self.id.is_empty() || self.id.chars().count() > MAX_ID_CHARS {
            return Err(not_found());
        }
        let index = index(cx)?;
        let source = index
            .fetch(&self.id)
            .await
            .map_err(search_failed)?
            .ok_or_else(not_found)?;
        // Redacted before it is cut, so a cut never leaves half a secret.
        let text = redact_text(source.text.read(cx));
        let total = text.chars().count();
        let mut answer = json!({
            "id": source.id,
            "title": redact_text(source.title.read(cx)),
            "url": source.url,
            "site": source.site,
            "language": source.language,
        });
        if total > FETCH_CAP_CHARS {
            answer["text"] = text
                .chars()
                .take(FETCH_CAP_CHARS)
                .collect::<String>()
                .into();
            answer["note"] = format!(
                "text cut at {FETCH_CAP_CHARS} of {total} characters (the cap of this tool)"
            )
            .into();
        } else {
            answer["text"] = text.into_owned().into();
        }
        Ok(ToolOutput::json(answer))
    }
}
