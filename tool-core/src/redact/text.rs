//! Secrets inside free text: values assigned to secret-looking names
//! (`KEY=value`, `key: value`, `"key": "value"`, `--password value`,
//! `Bearer …`), credential-shaped values assigned to names that hold a
//! secret scanner's keyword (`TWITTER_CONSUMER=…`), plus everything
//! [`super::values`] finds by shape.

use std::borrow::Cow;
use std::ops::Range;

use super::names::{self, Naming, is_secret_name};
use super::{REDACTED, values};

/// Redacts every secret-looking piece of `text`, keeping the rest readable.
///
/// Each secret is replaced whole by [`REDACTED`]. A value assigned to a
/// secret-looking name is taken generously, because passwords hold spaces,
/// commas and quotes: after `=` it runs to the next `;`, `&` or line end
/// (`user=bob password=a b ip=1` loses `ip` too); after `:` it runs to the
/// line end, or, when the line ends there (`password:` or `password: |` in
/// YAML), over the more-indented lines below; a quoted value runs to its
/// closing quote. `==`, `!=`, `<=`, `>=`, `=>` and `::` are not assignments,
/// but for `NAME==value` with no space around the `==` (a value that starts
/// with `=`).
///
/// ```
/// use tool_core::redact::redact_text;
///
/// assert_eq!(
///     redact_text("connecting to postgres://app:hunter2@db:5432/app"),
///     "connecting to postgres://[redacted]@db:5432/app",
/// );
/// assert_eq!(redact_text("DB_PASSWORD=hunter2\nPORT=8080"), "DB_PASSWORD=[redacted]\nPORT=8080");
/// assert_eq!(redact_text("listening on port 8080"), "listening on port 8080");
/// ```
pub fn redact_text(text: &str) -> Cow<'_, str> {
    let spans = merge(secret_spans(text));
    if spans.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut kept = 0;
    for span in spans {
        out.push_str(&text[kept..span.start]);
        out.push_str(REDACTED);
        kept = span.end;
    }
    out.push_str(&text[kept..]);
    Cow::Owned(out)
}

/// The byte ranges of `text` that hold secrets, unsorted, maybe overlapping.
pub(super) fn secret_spans(text: &str) -> Vec<Range<usize>> {
    let mut spans = Vec::new();
    values::shape_spans(text, &mut spans);
    assignments(text, &mut spans);
    flags(text, &mut spans);
    bearer_tokens(text, &mut spans);
    spans.retain(|span| !span.is_empty());
    spans
}

fn merge(mut spans: Vec<Range<usize>>) -> Vec<Range<usize>> {
    spans.sort_by_key(|span| span.start);
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(spans.len());
    for span in spans {
        match merged.last_mut() {
            Some(last) if span.start <= last.end => last.end = last.end.max(span.end),
            _ => merged.push(span),
        }
    }
    merged
}

/// Name characters: ASCII word characters and every non-ASCII byte, so a
/// look-alike letter stays in the name and is folded by `is_secret_name`.
fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.') || !b.is_ascii()
}

fn is_quote(b: u8) -> bool {
    matches!(b, b'"' | b'\'' | b'`')
}

fn assignments(text: &str, spans: &mut Vec<Range<usize>>) {
    let bytes = text.as_bytes();
    for (j, &b) in bytes.iter().enumerate() {
        let previous = j.checked_sub(1).map(|p| bytes[p]);
        let next = bytes.get(j + 1).copied();
        let is_assignment = match b {
            // `NAME==value` with no space: a value that starts with `=`
            // (`a == b` and `a==` are comparisons).
            b'=' if next == Some(b'=') => {
                previous.is_some_and(is_name_byte)
                    && bytes
                        .get(j + 2)
                        .is_some_and(|after| !after.is_ascii_whitespace())
            }
            b'=' => {
                !matches!(next, Some(b'>' | b'~'))
                    && !matches!(previous, Some(b'=' | b'!' | b'<' | b'>'))
            }
            b':' => next != Some(b':') && previous != Some(b':'),
            _ => false,
        };
        if !is_assignment {
            continue;
        }
        let span = value_span(bytes, j);
        let credential =
            || values::is_credential_shaped(&String::from_utf8_lossy(&bytes[span.clone()]));
        if naming(bytes, j, credential) != Naming::Plain {
            spans.push(span);
        }
    }
}

/// What the name written just before the separator at `sep` says of the
/// value (`credential`: whether the value is shaped like a credential): the
/// last word, or the last two words (`Connection String=`).
fn naming(bytes: &[u8], sep: usize, credential: impl FnOnce() -> bool) -> Naming {
    let mut end = sep;
    while end > 0 && matches!(bytes[end - 1], b' ' | b'\t') {
        end -= 1;
    }
    if end > 0 && is_quote(bytes[end - 1]) {
        end -= 1;
    }
    let start = name_start(bytes, end);
    if start == end {
        return Naming::Plain;
    }
    let naming = names::naming(&String::from_utf8_lossy(&bytes[start..end]), credential);
    if naming != Naming::Secret && start >= 2 && bytes[start - 1] == b' ' {
        let before = name_start(bytes, start - 1);
        if before < start - 1 && is_secret_name(&String::from_utf8_lossy(&bytes[before..end])) {
            return Naming::Secret;
        }
    }
    naming
}

fn name_start(bytes: &[u8], end: usize) -> usize {
    bytes[..end]
        .iter()
        .rposition(|b| !is_name_byte(*b))
        .map_or(0, |p| p + 1)
}

fn value_span(bytes: &[u8], sep: usize) -> Range<usize> {
    let mut start = sep + 1;
    while start < bytes.len() && matches!(bytes[start], b' ' | b'\t') {
        start += 1;
    }
    if let Some(&quote) = bytes.get(start).filter(|b| is_quote(**b)) {
        let mut end = start + 1;
        while end < bytes.len() && bytes[end] != quote {
            end += if bytes[end] == b'\\' { 2 } else { 1 };
        }
        return start + 1..end.min(bytes.len());
    }
    let eol = line_end(bytes, start);
    if bytes[sep] == b'=' {
        let end = bytes[start..eol]
            .iter()
            .position(|b| matches!(b, b';' | b'&'))
            .map_or(eol, |p| start + p);
        return start..end;
    }
    let rest = String::from_utf8_lossy(&bytes[start..eol]);
    if rest.trim().is_empty() || rest.trim_start().starts_with(['|', '>']) {
        return start..indented_block_end(bytes, sep, eol);
    }
    start..eol
}

fn line_end(bytes: &[u8], from: usize) -> usize {
    from + bytes[from..]
        .iter()
        .position(|b| matches!(b, b'\n' | b'\r'))
        .unwrap_or(bytes.len() - from)
}

/// The end of the lines after `eol` that are indented deeper than the
/// line holding `sep` (a YAML block under a secret key).
fn indented_block_end(bytes: &[u8], sep: usize, eol: usize) -> usize {
    let line_start = bytes[..sep]
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |p| p + 1);
    let indent = |from: usize| {
        bytes[from..]
            .iter()
            .take_while(|b| **b == b' ' || **b == b'\t')
            .count()
    };
    let key_indent = indent(line_start);
    let mut end = eol;
    let mut next = eol;
    while next < bytes.len() {
        while next < bytes.len() && matches!(bytes[next], b'\n' | b'\r') {
            next += 1;
        }
        if next >= bytes.len() {
            break;
        }
        let this_end = line_end(bytes, next);
        let blank = bytes[next..this_end].iter().all(u8::is_ascii_whitespace);
        if !blank && indent(next) <= key_indent {
            break;
        }
        end = this_end;
        next = this_end;
    }
    end
}

/// `--password hunter2`: a long flag with a secret-looking name, then a
/// space, then its value.
fn flags(text: &str, spans: &mut Vec<Range<usize>>) {
    let bytes = text.as_bytes();
    for (start, _) in text.match_indices("--") {
        let name_end = start
            + 2
            + bytes[start + 2..]
                .iter()
                .take_while(|b| is_name_byte(**b))
                .count();
        if name_end == start + 2 || bytes.get(name_end) != Some(&b' ') {
            continue;
        }
        if is_secret_name(&text[start + 2..name_end]) {
            let value_start = name_end + 1;
            let value_len = bytes[value_start..]
                .iter()
                .take_while(|b| !b.is_ascii_whitespace())
                .count();
            spans.push(value_start..value_start + value_len);
        }
    }
}

/// `Bearer <token>` wherever it appears (an `Authorization` header copied
/// into a log line without its name).
fn bearer_tokens(text: &str, spans: &mut Vec<Range<usize>>) {
    let bytes = text.as_bytes();
    let lower = text.to_ascii_lowercase();
    for (start, _) in lower.match_indices("bearer ") {
        let token_start = start + "bearer ".len();
        let len = bytes[token_start..]
            .iter()
            .take_while(|b| !b.is_ascii_whitespace() && !is_quote(**b))
            .count();
        if len >= 8 {
            spans.push(token_start..token_start + len);
        }
    }
}
