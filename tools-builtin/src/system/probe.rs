//! `probe_url`: one GET to one of the host's own sites, through the egress
//! guard.

use std::fmt::Write as _;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use schemars::JsonSchema;
use serde::Deserialize;
use site_model::{LogEntry, LogLevel, LogQuery};
use tool_core::redact::redact_text;
use tool_core::{Execute, Tool, ToolContext, ToolError, ToolOutput};

use super::logs::{cap, line};
use crate::access::{not_found, viewer};

/// The whole request, connecting included, gives up after this long.
const TIMEOUT: Duration = Duration::from_secs(5);
/// The body excerpt, in characters, after redaction.
const MAX_EXCERPT_CHARS: usize = 500;
/// At most this much of the body is read; the rest is never downloaded.
const MAX_BODY_BYTES: usize = 64 * 1024;
/// Response headers shown, when present.
const KEY_HEADERS: [&str; 5] = [
    "content-type",
    "content-length",
    "cache-control",
    "location",
    "server",
];
/// Errors searched for one matching a failed probe.
const RECENT_ERRORS: usize = 200;
/// An error this recent counts as matching even without the path in it.
const RECENT_SECONDS: i64 = 3_600;

/// Request one URL of the host's own sites with a single GET and report
/// what came back: status, timing in milliseconds, the headers
/// content-type, content-length, cache-control, location and server, and
/// the first 500 characters of the body (secrets replaced by `[redacted]`).
///
/// Only the host's own sites are reachable; any other URL is refused
/// before a request is sent. A redirect is reported (its `Location`, and
/// whether that is one of the sites) and never followed. On a 5xx status
/// the matching error from the site's log is appended: the newest error
/// whose message names the path, else the newest error of the last hour.
/// Plain `http` only in this build; times out after 5 seconds. Sends no
/// cookies or credentials.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "system",
    effect = "read",
    data = "personal",
    requires_admin,
    egress = "own_site",
    content = "untrusted"
)]
#[serde(deny_unknown_fields)]
pub struct ProbeUrl {
    /// The URL to request: a full `http://` URL of one of the host's sites,
    /// or a path starting with `/` (resolved against the first site).
    url: String,
}

impl Execute for ProbeUrl {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let viewer = viewer(cx).await?;
        if !viewer.is_admin() {
            return Err(not_found());
        }
        let url = cx
            .egress()
            .check(&self.url)
            .map_err(|denied| ToolError::failed(format!("refused, no request sent: {denied}")))?;
        if url.scheme() != "http" {
            return Err(ToolError::failed(format!(
                "refused, no request sent: this build speaks plain `http` only, not `{}`",
                url.scheme()
            )));
        }
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(TIMEOUT)
            // The guard checked the site's name; a proxy from the
            // environment would send the request somewhere else.
            .no_proxy()
            .build()
            .map_err(|_| ToolError::failed("the HTTP client could not be set up"))?;

        let started = Instant::now();
        // The query may carry a token: the URL is shown redacted.
        let shown_url = redact_text(url.as_str()).into_owned();
        let mut response = client.get(url.clone()).send().await.map_err(|error| {
            ToolError::failed(format!("GET {shown_url} failed: {}", why(&error)))
        })?;
        let headers_ms = started.elapsed().as_millis();
        let mut body = Vec::new();
        let mut body_error = None;
        while body.len() < MAX_BODY_BYTES {
            match response.chunk().await {
                Ok(Some(chunk)) => body.extend_from_slice(&chunk),
                Ok(None) => break,
                Err(error) => {
                    body_error = Some(why(&error));
                    break;
                }
            }
        }
        body.truncate(MAX_BODY_BYTES);
        let total_ms = started.elapsed().as_millis();

        let status = response.status();
        let mut text = format!(
            "GET {shown_url} → {status} (headers after {headers_ms} ms, body read after {total_ms} ms)\n"
        );
        for name in KEY_HEADERS {
            if let Some(value) = response.headers().get(name) {
                let value = String::from_utf8_lossy(value.as_bytes());
                let _ = writeln!(text, "{name}: {}", cap(&redact_text(&value), 300));
            }
        }
        if status.is_redirection() {
            match response.headers().get("location") {
                Some(location) => {
                    let location = String::from_utf8_lossy(location.as_bytes());
                    let verdict = match cx.egress().check_redirect(&url, &location) {
                        Ok(_) => "one of the host's sites".to_owned(),
                        Err(denied) => format!("outside the host's sites: {denied}"),
                    };
                    let _ = writeln!(text, "redirect not followed ({verdict})");
                }
                None => text.push_str("redirect without a Location header\n"),
            }
        }
        // Redacted before the cut, so a cut never leaves part of a secret.
        let excerpt = redact_text(&String::from_utf8_lossy(&body)).into_owned();
        let _ = writeln!(
            text,
            "body ({} bytes read): {}",
            body.len(),
            cap(&excerpt, MAX_EXCERPT_CHARS)
        );
        if let Some(error) = body_error {
            let _ = writeln!(text, "the body could not be read to the end: {error}");
        }
        if status.is_server_error() {
            let errors = viewer
                .site
                .logs(&LogQuery {
                    min_level: Some(LogLevel::Error),
                    component: None,
                    limit: RECENT_ERRORS,
                })
                .await
                .unwrap_or_default();
            match matching_error(&errors, url.path(), now()) {
                Some(entry) => {
                    let _ = write!(text, "matching error in the log: {}", line(entry, cx));
                }
                None => text.push_str("no matching error in the log"),
            }
        }
        // What a site answered is someone else's text.
        Ok(ToolOutput::text(text).with_authored())
    }
}

/// The error that most likely explains a failed request to `path`: the
/// newest whose message names the path (not `/`, which every message would
/// match), else the newest of the last hour. `errors` is newest first.
fn matching_error<'a>(errors: &'a [LogEntry], path: &str, now: i64) -> Option<&'a LogEntry> {
    // Matched, not shown: the line shown is read through `cx`.
    let names_path = |entry: &&LogEntry| path != "/" && entry.message.for_host().contains(path);
    let recent = |entry: &&LogEntry| entry.at.0 >= now - RECENT_SECONDS;
    errors
        .iter()
        .find(names_path)
        .or_else(|| errors.iter().find(recent))
}

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs() as i64)
}

/// A short reason for a failed request, without the client's internals.
fn why(error: &reqwest::Error) -> &'static str {
    if error.is_timeout() {
        "timed out after 5 seconds"
    } else if error.is_connect() {
        "could not connect"
    } else if error.is_body() || error.is_decode() {
        "the response body broke off"
    } else {
        "the request failed"
    }
}
