//! Where a value, or a piece of free text, looks secret by its shape alone:
//! PEM blocks, URL user-info, webhook URLs, the published prefixes of
//! well-known token formats, JSON Web Tokens, and long random-looking
//! strings. Each finder adds the byte ranges it judges secret to a list;
//! overlapping ranges are merged by the caller.

use std::ops::Range;

/// A token format recognised by its published prefix.
struct Prefix {
    prefix: &'static str,
    /// At least this many body characters must follow the prefix, so that
    /// a bare mention of the format (`ghp_`) is not taken for a token.
    min_body: usize,
    body: fn(u8) -> bool,
    /// The body must mix upper case, lower case and digits (for prefixes
    /// short enough to occur in ordinary words, like `sk-`).
    mixed: bool,
}

const fn prefix(prefix: &'static str, min_body: usize, body: fn(u8) -> bool) -> Prefix {
    Prefix {
        prefix,
        min_body,
        body,
        mixed: false,
    }
}

fn alnum(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}
fn alnum_underscore(b: u8) -> bool {
    alnum(b) || b == b'_'
}
fn alnum_dash(b: u8) -> bool {
    alnum(b) || b == b'-'
}
fn base64url(b: u8) -> bool {
    alnum(b) || b == b'-' || b == b'_'
}
fn base64url_dot(b: u8) -> bool {
    base64url(b) || b == b'.'
}
fn upper_digit(b: u8) -> bool {
    b.is_ascii_uppercase() || b.is_ascii_digit()
}

/// Published prefixes of well-known secret formats (GitHub, GitLab, Slack,
/// Stripe, OpenAI/Anthropic, AWS, Google, npm, PyPI, SendGrid, Hugging Face,
/// Shopify, DigitalOcean, age).
const PREFIXES: &[Prefix] = &[
    prefix("ghp_", 20, alnum),
    prefix("gho_", 20, alnum),
    prefix("ghu_", 20, alnum),
    prefix("ghs_", 20, alnum),
    prefix("ghr_", 20, alnum),
    prefix("github_pat_", 20, alnum_underscore),
    prefix("glpat-", 20, base64url),
    prefix("xoxb-", 10, alnum_dash),
    prefix("xoxp-", 10, alnum_dash),
    prefix("xoxa-", 10, alnum_dash),
    prefix("xoxr-", 10, alnum_dash),
    prefix("xoxs-", 10, alnum_dash),
    prefix("xoxe-", 10, alnum_dash),
    prefix("xapp-", 10, alnum_dash),
    prefix("sk_live_", 16, alnum),
    prefix("sk_test_", 16, alnum),
    prefix("rk_live_", 16, alnum),
    prefix("rk_test_", 16, alnum),
    prefix("whsec_", 16, alnum),
    Prefix {
        prefix: "sk-",
        min_body: 20,
        body: base64url,
        mixed: true,
    },
    prefix("AKIA", 16, upper_digit),
    prefix("ASIA", 16, upper_digit),
    prefix("AGPA", 16, upper_digit),
    prefix("AIDA", 16, upper_digit),
    prefix("AROA", 16, upper_digit),
    prefix("AIza", 30, base64url),
    prefix("npm_", 30, alnum),
    prefix("pypi-", 30, base64url),
    prefix("SG.", 30, base64url_dot),
    prefix("hf_", 30, alnum),
    prefix("shpat_", 20, alnum),
    prefix("shpss_", 20, alnum),
    prefix("dop_v1_", 40, alnum),
    prefix("AGE-SECRET-KEY-1", 20, alnum),
];

/// URL pieces of incoming webhooks, whose URL is the credential.
const WEBHOOK_HOSTS: [&str; 6] = [
    "hooks.slack.com/services/",
    "hooks.slack.com/workflows/",
    "discord.com/api/webhooks/",
    "discordapp.com/api/webhooks/",
    "webhook.office.com/webhookb2/",
    "outlook.office.com/webhook/",
];

/// Characters a token may be made of; a secret found inside a run of them
/// is redacted with the whole run, so no end of it is left.
fn is_token_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'+' | b'/' | b'=' | b'~' | b'%')
}

/// Characters that end a URL or a word in free text.
fn is_break(b: u8) -> bool {
    b.is_ascii_whitespace() || matches!(b, b'"' | b'\'' | b'`' | b'<' | b'>')
}

/// Adds every secret-shaped range of `text` to `spans`.
pub(super) fn shape_spans(text: &str, spans: &mut Vec<Range<usize>>) {
    pem_blocks(text, spans);
    prefixed_tokens(text, spans);
    json_web_tokens(text, spans);
    random_looking_runs(text, spans);
    webhook_urls(text, spans);
    user_info(text, spans);
}

fn pem_blocks(text: &str, spans: &mut Vec<Range<usize>>) {
    for marker in ["-----BEGIN ", "PuTTY-User-Key-File-"] {
        for (start, _) in text.match_indices(marker) {
            let end = text[start..]
                .find("-----END ")
                .and_then(|end| {
                    let after = start + end + "-----END ".len();
                    text[after..].find("-----").map(|close| after + close + 5)
                })
                // An unterminated block is secret to the end of the text.
                .unwrap_or(text.len());
            spans.push(start..end);
        }
    }
}

fn prefixed_tokens(text: &str, spans: &mut Vec<Range<usize>>) {
    let bytes = text.as_bytes();
    for rule in PREFIXES {
        for (start, _) in text.match_indices(rule.prefix) {
            let body_start = start + rule.prefix.len();
            let body_len = bytes[body_start..]
                .iter()
                .take_while(|b| (rule.body)(**b))
                .count();
            let body = &bytes[body_start..body_start + body_len];
            if body_len >= rule.min_body && (!rule.mixed || is_mixed(body)) {
                spans.push(expand(bytes, start..body_start + body_len));
            }
        }
    }
}

/// `eyJ…​.eyJ…`: a base64url JSON header, a dot, a base64url JSON payload.
fn json_web_tokens(text: &str, spans: &mut Vec<Range<usize>>) {
    let bytes = text.as_bytes();
    for (start, _) in text.match_indices("eyJ") {
        let header = bytes[start..].iter().take_while(|b| base64url(**b)).count();
        let dot = start + header;
        if header >= 10 && bytes[dot..].starts_with(b".eyJ") {
            spans.push(expand(bytes, start..dot + 4));
        }
    }
}

/// Runs of at least 24 letters and digits that mix upper case, lower case
/// and digits, switch between them often and hold few word-like stretches
/// (four or more letters of one case), as random keys do. camelCase
/// identifiers are mostly word-like stretches; hex digests and UUIDs have
/// one case. Short-worded identifiers with digits (`getIdOfUser2ByName…`)
/// can pass for random and are redacted: failing closed.
fn random_looking_runs(text: &str, spans: &mut Vec<Range<usize>>) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let len = bytes[i..].iter().take_while(|b| alnum(**b)).count();
        if len == 0 {
            i += 1;
            continue;
        }
        let run = &bytes[i..i + len];
        if len >= 24 && is_mixed(run) && class_switches(run) * 3 >= len && word_like(run) * 2 < len
        {
            spans.push(expand(bytes, i..i + len));
        }
        i += len;
    }
}

fn webhook_urls(text: &str, spans: &mut Vec<Range<usize>>) {
    let bytes = text.as_bytes();
    for host in WEBHOOK_HOSTS {
        for (start, _) in text.match_indices(host) {
            let from = bytes[..start]
                .iter()
                .rposition(|b| is_break(*b))
                .map_or(0, |p| p + 1);
            let to = start + bytes[start..].iter().take_while(|b| !is_break(**b)).count();
            spans.push(from..to);
        }
    }
}

/// `scheme://user:password@host` (the user-info is redacted, scheme and
/// host stay) and scheme-less `user:password@proxy:3128`. The user-info
/// runs to the last `@` of the word, not to the first `/`, because real
/// passwords hold unencoded `/`, `#` or `?`; an `@` later in a path
/// (`https://host/@user`) makes a harmless part redacted too.
fn user_info(text: &str, spans: &mut Vec<Range<usize>>) {
    let bytes = text.as_bytes();
    let mut start = 0;
    while start < bytes.len() {
        let len = bytes[start..].iter().take_while(|b| !is_break(**b)).count();
        if len == 0 {
            start += 1;
            continue;
        }
        let word = &text[start..start + len];
        if let Some(at) = word.rfind('@') {
            let before = &word[..at];
            if let Some(scheme_end) = before.find("://") {
                if at > scheme_end + 3 {
                    spans.push(start + scheme_end + 3..start + at);
                }
            } else if before.contains(':') {
                spans.push(start..start + at);
            }
        }
        start += len;
    }
}

fn expand(bytes: &[u8], range: Range<usize>) -> Range<usize> {
    let start = bytes[..range.start]
        .iter()
        .rposition(|b| !is_token_char(*b))
        .map_or(0, |p| p + 1);
    let end = range.end
        + bytes[range.end..]
            .iter()
            .take_while(|b| is_token_char(**b))
            .count();
    start..end
}

fn is_mixed(run: &[u8]) -> bool {
    run.iter().any(u8::is_ascii_uppercase)
        && run.iter().any(u8::is_ascii_lowercase)
        && run.iter().any(u8::is_ascii_digit)
}

fn class(b: u8) -> u8 {
    match b {
        b'a'..=b'z' => 0,
        b'A'..=b'Z' => 1,
        _ => 2,
    }
}

fn class_switches(run: &[u8]) -> usize {
    run.windows(2)
        .filter(|pair| class(pair[0]) != class(pair[1]))
        .count()
}

/// How many bytes of `run` sit in stretches of four or more letters of one
/// case.
fn word_like(run: &[u8]) -> usize {
    run.chunk_by(|a, b| class(*a) == class(*b))
        .filter(|stretch| stretch.len() >= 4 && class(stretch[0]) != 2)
        .map(<[u8]>::len)
        .sum()
}
