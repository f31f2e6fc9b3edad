//! Findings as `skills check` prints them: one `file:line:col` line each
//! ([`render_text`]), with the source line and a caret for a person at a
//! terminal ([`render_annotated`]), or as JSON ([`render_json`]).

use std::borrow::Cow;

use serde::Serialize;
use tool_core::skills::Severity;

use super::Finding;

/// One line per finding.
pub fn render_text(findings: &[Finding]) -> String {
    findings.iter().map(|f| format!("{f}\n")).collect()
}

/// One finding per diagnostic, each with the line of the file it points
/// at and a caret under the column, the way a compiler shows it: for a
/// person at a terminal. A file that can no longer be read falls back to
/// the plain line.
pub fn render_annotated(findings: &[Finding]) -> String {
    use annotate_snippets::{Level, Renderer, Snippet};

    let mut out = String::new();
    for finding in findings {
        let path = finding.file.to_string_lossy();
        let line_number = finding.position.line;
        let source = std::fs::read_to_string(&finding.file).ok();
        let Some(line) = source
            .as_deref()
            .and_then(|text| text.lines().nth(line_number.saturating_sub(1)))
        else {
            out.push_str(&format!("{finding}\n"));
            continue;
        };
        // Column is 1-based, in characters; the span is in bytes.
        let start = line
            .char_indices()
            .nth(finding.position.column.saturating_sub(1))
            .map_or(line.len(), |(at, _)| at);
        let end = line[start..]
            .chars()
            .next()
            .map_or(start, |c| start + c.len_utf8());
        let level = match finding.severity() {
            Severity::Error => Level::Error,
            _ => Level::Warning,
        };
        let title = format!("[{}] {}", finding.code.id(), finding.message);
        let message = level.title(&title).snippet(
            Snippet::source(line)
                .line_start(line_number)
                .origin(&path)
                .annotation(level.span(start..end)),
        );
        out.push_str(&Renderer::plain().render(message).to_string());
        out.push_str("\n\n");
    }
    out
}

#[derive(Serialize)]
struct JsonFinding<'a> {
    file: Cow<'a, str>,
    line: usize,
    column: usize,
    severity: Severity,
    code: &'static str,
    message: &'a str,
}

/// A JSON array of `{file, line, column, severity, code, message}`, in the
/// findings' order.
pub fn render_json(findings: &[Finding]) -> String {
    let rows: Vec<JsonFinding<'_>> = findings
        .iter()
        .map(|f| JsonFinding {
            file: f.file.to_string_lossy(),
            line: f.position.line,
            column: f.position.column,
            severity: f.severity(),
            code: f.code.id(),
            message: &f.message,
        })
        .collect();
    // Serializing strings and numbers cannot fail.
    serde_json::to_string_pretty(&rows).unwrap_or_else(|_| "[]".to_owned())
}
