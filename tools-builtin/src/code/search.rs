use std::path::Path;

use grep_regex::RegexMatcherBuilder;
use grep_searcher::sinks::Lossy;
use grep_searcher::{BinaryDetection, SearcherBuilder};
use ignore::WalkBuilder;
use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::redact::redact_text;
use tool_core::{Execute, Tool, ToolContext, ToolError, ToolOutput};

use super::read::cap;
use super::root::open_root;
use super::rules::{is_skipped_folder, is_unreadable};
use crate::access::shown_of;

/// At most this many matching lines per call.
const MAX_HITS: usize = 50;
/// Limits on a compiled regular expression, so no pattern takes the host's
/// memory.
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// How many files a progress report covers: a report per file would cost
/// a large tree more than its search.
const PROGRESS_EVERY: u64 = 50;

/// Search the site's source root for a text, literally by default or as a
/// regular expression (Rust syntax) when `regex` is true. Returns matching
/// lines as `path:line: text` (paths relative to the root) and the total
/// number of matching lines.
///
/// At most 50 lines, in path order; lines are cut at 1000 characters and
/// secret-looking values in them replaced by `[redacted]`. Skips dot
/// folders and dotfiles, files ignored by `.gitignore`, `vendor`,
/// `node_modules`, `target`, `build` and `dist` folders, binary files,
/// symbolic links, key material and credential files (as `read_source`).
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "code",
    effect = "read",
    data = "confidential",
    requires_admin,
    content = "untrusted"
)]
#[serde(deny_unknown_fields)]
pub struct SearchCode {
    /// The text to find (or the regular expression, with `regex`).
    #[schemars(length(min = 1, max = 200))]
    pattern: String,
    /// Treat `pattern` as a regular expression; default false (literal).
    regex: Option<bool>,
    /// Ignore case; default false.
    ignore_case: Option<bool>,
}

/// One matching line.
struct Hit {
    path: String,
    line: u64,
    text: String,
}

impl Execute for SearchCode {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let (dir, root) = open_root(cx).await?;
        let pattern = if self.regex.unwrap_or(false) {
            self.pattern.clone()
        } else {
            regex::escape(&self.pattern)
        };
        let matcher = RegexMatcherBuilder::new()
            .case_insensitive(self.ignore_case.unwrap_or(false))
            .size_limit(REGEX_SIZE_LIMIT)
            .dfa_size_limit(REGEX_SIZE_LIMIT)
            .line_terminator(Some(b'\n'))
            .build(&pattern)
            .map_err(|error| ToolError::failed(format!("not a valid pattern: {error}")))?;
        let mut searcher = SearcherBuilder::new()
            .binary_detection(BinaryDetection::quit(0))
            .line_number(true)
            .build();
        let mut hits = Vec::new();
        let mut total = 0usize;
        let mut searched = 0u64;
        let walk = WalkBuilder::new(&root)
            .hidden(true)
            .follow_links(false)
            .parents(false)
            .sort_by_file_name(|a, b| a.cmp(b))
            .filter_entry(|entry| {
                entry.depth() == 0
                    || !entry.file_type().is_some_and(|kind| kind.is_dir())
                    || !entry.file_name().to_str().is_none_or(is_skipped_folder)
            })
            .build();
        for entry in walk.flatten() {
            // Symbolic links are entries of their own kind, not files.
            if !entry.file_type().is_some_and(|kind| kind.is_file()) {
                continue;
            }
            let Some(path) = relative(&root, entry.path()) else {
                continue;
            };
            if is_unreadable(&path) {
                continue;
            }
            let Ok(file) = dir.open(&path) else {
                continue;
            };
            let mut sink = Lossy(|line, text: &str| {
                total += 1;
                if hits.len() < MAX_HITS {
                    hits.push(Hit {
                        path: path.clone(),
                        line,
                        text: cap(&redact_text(text.trim_end_matches(['\n', '\r']))),
                    });
                }
                Ok(true)
            });
            // An unreadable file is skipped, like one that is not there.
            let _ = searcher.search_file(&matcher, &file.into_std(), &mut sink);
            searched += 1;
            if searched.is_multiple_of(PROGRESS_EVERY) {
                cx.progress(searched, None, "files searched");
            }
        }
        // The last count, so whoever watches sees the whole walk.
        cx.progress(searched, None, "files searched");
        let mut out: Vec<String> = hits
            .iter()
            .map(|hit| format!("{}:{}: {}", hit.path, hit.line, hit.text))
            .collect();
        out.push(if total == 0 {
            "no matching lines (0 in total)".to_owned()
        } else {
            format!("matching lines: {}", shown_of(hits.len(), total))
        });
        // Matching lines of source: text people wrote.
        Ok(ToolOutput::text(out.join("\n")).with_authored())
    }
}

/// `path` relative to `root`, `/`-separated; `None` for a path that is
/// not Unicode (it could not be named in a `read_source` call either).
fn relative(root: &Path, path: &Path) -> Option<String> {
    let relative = path.strip_prefix(root).ok()?;
    let parts: Option<Vec<&str>> = relative
        .components()
        .map(|component| component.as_os_str().to_str())
        .collect();
    Some(parts?.join("/"))
}
