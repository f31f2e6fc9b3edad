//! `fetch_logs` and `get_last_error`: the site's log, without the fields
//! that identify people, messages redacted.

use std::fmt::Write as _;

use schemars::JsonSchema;
use serde::Deserialize;
use site_model::{LogEntry, LogLevel, LogQuery};
use tool_core::redact::{redact_json, redact_text};
use tool_core::{Arguments, Execute, Tool, ToolContext, ToolError, ToolOutput};

use crate::access::{limit, not_found, shown_of, viewer};

/// Entries per call when the model names no `limit`.
const DEFAULT_ENTRIES: usize = 20;
/// Entries per call, at most.
const MAX_ENTRIES: usize = 50;
/// Messages are cut at this many characters, after redaction.
pub(super) const MAX_MESSAGE_CHARS: usize = 500;
/// A payload is shown as redacted JSON of at most this many characters.
const MAX_PAYLOAD_CHARS: usize = 1_000;
/// The most entries read to count the total; past it the total is reported
/// as "at least" this many, so a large log is never read whole.
const COUNT_CEILING: usize = 10_000;
/// `get_last_error` steps back at most this far.
const MAX_ERROR_INDEX: u32 = 999;

/// A log level, most severe first.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, Arguments)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Something failed.
    Error,
    /// Something may fail.
    Warning,
    /// Something worth noticing.
    Notice,
    /// Ordinary operation.
    Info,
    /// Detail for developers.
    Debug,
}

impl From<Severity> for LogLevel {
    fn from(severity: Severity) -> Self {
        match severity {
            Severity::Error => LogLevel::Error,
            Severity::Warning => LogLevel::Warning,
            Severity::Notice => LogLevel::Notice,
            Severity::Info => LogLevel::Info,
            Severity::Debug => LogLevel::Debug,
        }
    }
}

/// Read the site's log, newest first: one line per entry with its id, time
/// (UTC), level, component and message, then the total.
///
/// 20 entries unless `limit` says otherwise, never more than 50; messages
/// cut at 500 characters. Secrets in messages are replaced by `[redacted]`.
/// Never shows the client address, the user or the payload of an entry
/// (`get_last_error` shows an error's payload, redacted).
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "system",
    effect = "read",
    data = "personal",
    requires_admin,
    content = "untrusted"
)]
#[serde(deny_unknown_fields)]
pub struct FetchLogs {
    /// Only entries at least this severe (`warning` includes `error`).
    /// Default: every level.
    level: Option<Severity>,
    /// Only entries of this component, e.g. `auth` or `mailer` (exact).
    component: Option<String>,
    /// How many entries, newest first. Default 20, at most 50.
    limit: Option<u32>,
}

impl Execute for FetchLogs {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let viewer = viewer(cx).await?;
        if !viewer.is_admin() {
            return Err(not_found());
        }
        let shown = limit(self.limit, DEFAULT_ENTRIES, MAX_ENTRIES);
        let query = LogQuery {
            min_level: self.level.map(LogLevel::from),
            component: self.component,
            limit: COUNT_CEILING,
        };
        let entries = viewer
            .site
            .logs(&query)
            .await
            .map_err(|_| ToolError::failed("the log could not be read"))?;
        let mut text = String::new();
        for entry in entries.iter().take(shown) {
            let _ = writeln!(text, "{}", line(entry, cx));
        }
        let total = entries.len();
        let shown = shown.min(total);
        if total >= COUNT_CEILING {
            let _ = write!(
                text,
                "showing {shown} of at least {COUNT_CEILING}; narrow the query to see the rest"
            );
        } else {
            text.push_str(&shown_of(shown, total));
        }
        Ok(ToolOutput::text(text))
    }
}

/// Show the newest error in the site's log with its details: id, time
/// (UTC), component, message and payload, secrets replaced by `[redacted]`.
/// `index` steps back: 0 is the newest error, 1 the one before, and so on.
///
/// The message is cut at 500 characters and the payload at 1,000, after
/// redaction. Never shows the client address or the user of the entry.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "system",
    effect = "read",
    data = "personal",
    requires_admin,
    content = "untrusted"
)]
#[serde(deny_unknown_fields)]
pub struct GetLastError {
    /// How many errors to step back from the newest. Default 0 (the newest),
    /// at most 999.
    index: Option<u32>,
}

impl Execute for GetLastError {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let viewer = viewer(cx).await?;
        if !viewer.is_admin() {
            return Err(not_found());
        }
        let index = self.index.unwrap_or(0).min(MAX_ERROR_INDEX) as usize;
        let query = LogQuery {
            min_level: Some(LogLevel::Error),
            component: None,
            limit: index + 1,
        };
        let errors = viewer
            .site
            .logs(&query)
            .await
            .map_err(|_| ToolError::failed("the log could not be read"))?;
        let Some(entry) = errors.get(index) else {
            return Ok(ToolOutput::text(format!(
                "no error at index {index}: the log holds {} error entries",
                errors.len()
            )));
        };
        Ok(ToolOutput::text(details(entry, cx)))
    }
}

/// One entry as a line: id, time, level, component, redacted message. No
/// client address, no user, no payload.
pub(super) fn line(entry: &LogEntry, cx: &ToolContext) -> String {
    format!(
        "#{} {} {} {}: {}",
        entry.id,
        entry.at,
        level_name(entry.level),
        redact_text(&entry.component),
        message(entry, cx)
    )
}

/// An entry with its redacted payload; no client address, no user.
pub(super) fn details(entry: &LogEntry, cx: &ToolContext) -> String {
    let payload = cap(
        &redact_json(entry.payload.read(cx)).to_string(),
        MAX_PAYLOAD_CHARS,
    );
    format!(
        "log entry #{}\ntime: {}\nlevel: {}\ncomponent: {}\nmessage: {}\npayload: {payload}",
        entry.id,
        entry.at,
        level_name(entry.level),
        redact_text(&entry.component),
        message(entry, cx),
    )
}

fn message(entry: &LogEntry, cx: &ToolContext) -> String {
    // Redacted first: a cut could split a secret past recognition.
    let redacted = redact_text(entry.message.read(cx));
    cap(&redacted.replace(['\r', '\n'], " "), MAX_MESSAGE_CHARS)
}

fn level_name(level: LogLevel) -> &'static str {
    match level {
        LogLevel::Error => "error",
        LogLevel::Warning => "warning",
        LogLevel::Notice => "notice",
        LogLevel::Info => "info",
        LogLevel::Debug => "debug",
    }
}

/// `text` cut at `max` characters, with `…` when cut.
pub(super) fn cap(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}
