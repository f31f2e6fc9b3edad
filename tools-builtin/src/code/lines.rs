//! Redacting a whole text while keeping its line numbers.

use tool_core::redact::{REDACTED, redact_text};

/// `text` with its secrets redacted ([`redact_text`]) and as many lines as
/// before: a secret that spanned lines (a PEM block, a YAML `password: |`
/// block) becomes `[redacted]` followed by the line breaks it swallowed, so
/// the lines after it keep their numbers.
///
/// The result is always the redacted text with line breaks added after
/// redaction markers, never anything of a secret.
pub(super) fn redact_keeping_lines(text: &str) -> String {
    let redacted = redact_text(text);
    if redacted.matches('\n').count() == text.matches('\n').count() {
        return redacted.into_owned();
    }
    let mut out = String::with_capacity(redacted.len() + 64);
    let mut parts = redacted.split(REDACTED);
    let first = parts.next().unwrap_or("");
    out.push_str(first);
    let mut position = first.len();
    let mut parts = parts.peekable();
    while let Some(part) = parts.next() {
        // The secret runs from `position` to where the next kept part
        // starts in the original (the end, after the last marker).
        let end = if part.is_empty() && parts.peek().is_none() {
            text.len()
        } else {
            text[position..]
                .find(part)
                .map_or(text.len(), |found| position + found)
        };
        out.push_str(REDACTED);
        out.extend(std::iter::repeat_n(
            '\n',
            text[position..end].matches('\n').count(),
        ));
        out.push_str(part);
        position = (end + part.len()).min(text.len());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::redact_keeping_lines;

    #[test]
    fn a_multi_line_secret_keeps_the_line_count() {
        let text = "a: 1\n-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nZmFrZWZha2VmYWtl\n-----END PRIVATE KEY-----\nport: 8080\n";
        let redacted = redact_keeping_lines(text);
        assert_eq!(redacted.lines().count(), text.lines().count(), "{redacted}");
        assert!(!redacted.contains("MIIEvQ"), "{redacted}");
        assert_eq!(redacted.lines().last(), Some("port: 8080"));
    }

    #[test]
    fn plain_text_is_unchanged() {
        assert_eq!(redact_keeping_lines("a\nb\n"), "a\nb\n");
        assert_eq!(
            redact_keeping_lines("DB_PASSWORD=hunter2\nPORT=1\n"),
            "DB_PASSWORD=[redacted]\nPORT=1\n"
        );
    }
}
