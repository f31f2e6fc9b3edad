use std::io::Read;

use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::{Execute, Tool, ToolContext, ToolError, ToolOutput};

use super::lines::redact_keeping_lines;
use super::root::{open_file, open_root};

/// Files larger than this are not read (source files are far smaller).
const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;
/// Longer lines are cut (after redaction).
const MAX_LINE_CHARS: usize = 1000;

/// Read lines of one file under the site's source root, numbered, with
/// secret-looking values replaced by `[redacted]`.
///
/// At most 500 lines per call (default 200); the file's line count is
/// always reported. Lines are cut at 1000 characters. Dotfiles and dot
/// folders (`.env`, `.git/…`), key material (`*.pem`, `*.key`, `id_rsa*`,
/// `*.p12`, …) and credential files (`credentials*`, `*.secret`, …) are
/// never shown and read like files that do not exist; so do paths leaving
/// the root (`..`, absolute paths) and symbolic links.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "code",
    effect = "read",
    data = "confidential",
    requires_admin,
    scope(path = "path"),
    content = "untrusted"
)]
#[serde(deny_unknown_fields)]
pub struct ReadSource {
    /// The file's path relative to the source root, `/`-separated, e.g.
    /// `app/Cart.php`.
    #[schemars(length(min = 1, max = 1000))]
    path: String,
    /// The first line to show, counting from 1; default 1.
    #[schemars(range(min = 1))]
    start: Option<u32>,
    /// How many lines to show: default 200, at most 500.
    count: Option<u32>,
}

impl Execute for ReadSource {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let (dir, _) = open_root(cx).await?;
        let (file, size) = open_file(&dir, &self.path)?;
        if size > MAX_FILE_BYTES {
            return Err(ToolError::failed(format!(
                "`{}` is over {} MiB: too large to show",
                self.path,
                MAX_FILE_BYTES / (1024 * 1024)
            )));
        }
        let mut bytes = Vec::with_capacity(size as usize);
        file.into_std()
            .take(MAX_FILE_BYTES)
            .read_to_end(&mut bytes)
            .map_err(|_| ToolError::failed("the file cannot be read now"))?;
        if bytes.contains(&0) {
            return Err(ToolError::failed(format!(
                "`{}` is a binary file: not shown",
                self.path
            )));
        }
        let text = redact_keeping_lines(&String::from_utf8_lossy(&bytes));
        let lines: Vec<&str> = text.lines().collect();
        let start = self.start.unwrap_or(1).max(1) as usize;
        let count = crate::access::limit(self.count, 200, 500);
        let shown: Vec<String> = lines
            .iter()
            .enumerate()
            .skip(start - 1)
            .take(count)
            .map(|(index, line)| format!("{}: {}", index + 1, cap(line)))
            .collect();
        let header = match shown.len() {
            0 => format!(
                "{}: no lines from line {start}; the file has {} lines",
                self.path,
                lines.len()
            ),
            n => format!(
                "{}: lines {start}-{} of {}",
                self.path,
                start + n - 1,
                lines.len()
            ),
        };
        // Source files are text people wrote (comments, strings): the
        // result carries it whatever the tool declares.
        Ok(ToolOutput::text(
            std::iter::once(header)
                .chain(shown)
                .collect::<Vec<_>>()
                .join("\n"),
        )
        .with_authored())
    }
}

pub(super) fn cap(line: &str) -> String {
    match line.char_indices().nth(MAX_LINE_CHARS) {
        Some((end, _)) => format!("{}…", &line[..end]),
        None => line.to_owned(),
    }
}
