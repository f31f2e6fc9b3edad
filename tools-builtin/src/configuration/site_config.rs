//! `get_site_config`.

use std::fmt::Write as _;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use site_model::SiteConfig;
use tool_core::redact::{redact_json, redact_pair, redact_text};
use tool_core::{Execute, Tool, ToolContext, ToolError, ToolOutput};

use crate::access::{not_found, shown_of, viewer};

/// Settings lines per call, at most.
const MAX_SETTINGS: usize = 300;
/// Sites listed per call, at most.
const MAX_SITES: usize = 100;
/// Longer values are cut (after redaction).
const MAX_VALUE_CHARS: usize = 300;

/// Without `site`: list the host's sites with their identifier, base URL,
/// root page id and languages. With `site`: that site's settings, one
/// `dotted.key: value` line each, sorted (keys as stored, camelCase included;
/// string values quoted, array items as `key.0`), then the total.
///
/// Secrets are replaced by `[redacted]`, by their key (password, apiKey,
/// secret, token, ...) and by the value's shape (URLs with credentials,
/// known token formats). At most 100 sites or 300 settings; values cut at
/// 300 characters.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "configuration",
    effect = "read",
    data = "confidential",
    requires_admin,
    content = "trusted"
)]
#[serde(deny_unknown_fields)]
pub struct GetSiteConfig {
    /// The identifier of one site, e.g. `main`, for its settings. Default:
    /// list the sites.
    site: Option<String>,
}

impl Execute for GetSiteConfig {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let viewer = viewer(cx).await?;
        if !viewer.is_admin() {
            return Err(not_found());
        }
        match self.site {
            None => {
                let sites = viewer
                    .site
                    .sites()
                    .await
                    .map_err(|_| ToolError::failed("the sites could not be read"))?;
                Ok(ToolOutput::text(list(&sites)))
            }
            Some(identifier) => {
                let site = viewer
                    .site
                    .site(&identifier)
                    .await
                    .map_err(|_| not_found())?;
                Ok(ToolOutput::text(settings(&site)))
            }
        }
    }
}

fn list(sites: &[SiteConfig]) -> String {
    let mut text = String::new();
    for site in sites.iter().take(MAX_SITES) {
        let languages: Vec<String> = site
            .languages
            .iter()
            .map(|language| format!("{} ({})", language.code, language.title))
            .collect();
        let _ = writeln!(
            text,
            "{}: {}, root page {}, languages {}",
            site.identifier,
            redact_text(&site.base_url),
            site.root_page,
            languages.join(", ")
        );
    }
    text.push_str(&shown_of(sites.len().min(MAX_SITES), sites.len()));
    text
}

fn settings(site: &SiteConfig) -> String {
    let mut lines = Vec::new();
    // By key first (the whole subtree under `password` or `webhooks.secret`
    // goes), then each leaf again by its dotted name and its value's shape.
    flatten("", &redact_json(&site.settings), &mut lines);
    let mut text = format!("settings of site {}:\n", site.identifier);
    for (key, value) in lines.iter().take(MAX_SETTINGS) {
        let value = redact_pair(key, value);
        let _ = writeln!(text, "{key}: {}", cap(&value));
    }
    text.push_str(&shown_of(lines.len().min(MAX_SETTINGS), lines.len()));
    text
}

/// `value`'s leaves as `(dotted.key, json)` pairs in key order; an empty
/// object or array is a leaf.
fn flatten(prefix: &str, value: &Value, lines: &mut Vec<(String, String)>) {
    let join = |key: &str| {
        if prefix.is_empty() {
            key.to_owned()
        } else {
            format!("{prefix}.{key}")
        }
    };
    match value {
        Value::Object(object) if !object.is_empty() => {
            for (key, item) in object {
                flatten(&join(key), item, lines);
            }
        }
        Value::Array(items) if !items.is_empty() => {
            for (index, item) in items.iter().enumerate() {
                flatten(&join(&index.to_string()), item, lines);
            }
        }
        leaf => lines.push((prefix.to_owned(), leaf.to_string())),
    }
}

fn cap(value: &str) -> String {
    match value.char_indices().nth(MAX_VALUE_CHARS) {
        Some((end, _)) => format!("{}…", &value[..end]),
        None => value.to_owned(),
    }
}
