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
    need: Need,
    /// Found only at the start of a word (short prefixes that end ordinary
    /// words: `compat.`, `webapi-`); the others are found anywhere, even
    /// glued to the text before them.
    at_word: bool,
}

/// What a prefix's body must hold besides its length.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Need {
    /// Nothing more; the prefix is matched in its own case.
    Nothing,
    /// Nothing more; the prefix is matched in any case, as the rule set
    /// matches it (`CLOJARS_`, `npm_`, `xapp-`).
    AnyCase,
    /// A digit (prefixes that start ordinary words: `api-`, `akia`).
    Digit,
    /// Upper case, lower case and a digit (`sk-`).
    Mixed,
}

const fn prefix(prefix: &'static str, min_body: usize, body: fn(u8) -> bool) -> Prefix {
    Prefix {
        prefix,
        min_body,
        body,
        need: Need::Nothing,
        at_word: false,
    }
}

const fn needs(prefix: &'static str, min_body: usize, body: fn(u8) -> bool, need: Need) -> Prefix {
    Prefix {
        prefix,
        min_body,
        body,
        need,
        at_word: false,
    }
}

impl Prefix {
    const fn at_word(self) -> Prefix {
        Prefix {
            at_word: true,
            ..self
        }
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
/// base64url with padding and dots: the bodies of the rule set's
/// `[\w=.-]` tokens.
fn token(b: u8) -> bool {
    base64url_dot(b) || b == b'='
}
fn base64(b: u8) -> bool {
    alnum(b) || b == b'+' || b == b'/'
}
/// Either base64 alphabet, with padding.
fn base64_any(b: u8) -> bool {
    base64(b) || matches!(b, b'-' | b'_' | b'=')
}
fn hex(b: u8) -> bool {
    b.is_ascii_hexdigit()
}

/// Published prefixes of secret formats: those of gitleaks' default rules
/// (v8.30.1) that start with a fixed text, and a few more (Stripe webhook
/// secrets, AWS roles and groups). Sorted by their first byte in lower
/// case, which is how [`prefixed_tokens`] finds the candidates for a word.
const PREFIXES: &[Prefix] = &[
    prefix("4b1d", 38, alnum).at_word(),
    needs("A3-", 20, alnum_dash, Need::Digit).at_word(),
    needs("A3T", 17, alnum, Need::Digit),
    needs("ABIA", 16, alnum, Need::Digit),
    prefix("ABSK", 100, base64),
    needs("ACCA", 16, alnum, Need::Digit),
    prefix("AGE-SECRET-KEY-1", 20, alnum),
    needs("AGPA", 16, alnum, Need::Digit),
    needs("AIDA", 16, alnum, Need::Digit),
    prefix("AIza", 30, base64url),
    prefix("AKCp", 60, alnum),
    needs("AKIA", 16, alnum, Need::Digit),
    needs("API-", 26, alnum, Need::Digit).at_word(),
    prefix("api_org_", 30, alnum),
    needs("AROA", 16, alnum, Need::Digit),
    needs("ASIA", 16, alnum, Need::Digit),
    prefix("atlasv1.", 60, token),
    prefix("authress_", 20, base64url_dot),
    prefix("bedrock-api-key-", 20, base64url),
    needs("CLOJARS_", 60, alnum, Need::AnyCase),
    prefix("cmVmd", 59, alnum),
    needs("dapi", 32, alnum, Need::Digit).at_word(),
    prefix("doo_v1_", 60, alnum),
    prefix("dop_v1_", 40, alnum),
    needs("dor_v1_", 60, alnum, Need::AnyCase),
    prefix("dp.pt.", 40, alnum),
    prefix("dt0c01.", 24, alnum),
    prefix("duffel_live_", 40, token),
    prefix("duffel_test_", 40, token),
    needs("EAAA", 22, base64url, Need::Digit).at_word(),
    prefix("EAAC", 100, alnum),
    prefix("EAAM", 100, alnum),
    prefix("EZAK", 54, alnum),
    prefix("EZTK", 54, alnum),
    prefix("fio-u-", 40, token),
    prefix("FLWPUBK_TEST-", 32, alnum),
    prefix("FLWSECK_TEST-", 12, alnum),
    prefix("fm1a_", 100, base64),
    prefix("fm1r_", 100, base64),
    prefix("fm2_", 100, base64),
    prefix("fo1_", 40, base64url),
    prefix("gho_", 20, alnum),
    prefix("ghp_", 20, alnum),
    prefix("ghr_", 20, alnum),
    prefix("ghs_", 20, alnum),
    prefix("ghu_", 20, alnum),
    prefix("github_pat_", 20, alnum_underscore),
    prefix("glagent-", 40, base64url),
    needs("glc_", 32, base64, Need::AnyCase),
    prefix("glcbt-", 20, base64url),
    prefix("gldt-", 20, base64url),
    prefix("glffct-", 20, base64url),
    prefix("glft-", 20, base64url),
    prefix("glimt-", 20, base64url),
    prefix("gloas-", 40, base64url),
    prefix("glpat-", 20, base64url),
    prefix("glptt-", 40, alnum),
    prefix("glrt-", 20, base64url),
    needs("glsa_", 32, alnum_underscore, Need::AnyCase),
    prefix("glsoat-", 20, base64url),
    prefix("GR1348941", 20, base64url),
    prefix("hf_", 20, alnum),
    prefix("HRKU-AA", 50, base64url),
    prefix("hvb.", 100, base64url),
    prefix("hvs.", 90, base64url),
    prefix("ico-", 32, alnum).at_word(),
    prefix("lin_api_", 40, alnum),
    needs("LTAI", 20, alnum, Need::Digit),
    needs("npm_", 30, alnum, Need::AnyCase),
    prefix("ntn_", 40, alnum),
    prefix("ops_eyJ", 100, base64),
    prefix("p8e-", 32, alnum),
    prefix("pat.", 22, base64url_dot).at_word(),
    prefix("PMAK-", 24, alnum_dash),
    prefix("pnu_", 36, alnum),
    prefix("pplx-", 40, alnum),
    prefix("pscale_oauth_", 32, token),
    needs("pscale_pw_", 32, token, Need::AnyCase),
    prefix("pscale_tkn_", 32, token),
    needs("pul-", 40, alnum, Need::Digit).at_word(),
    prefix("pypi-", 30, base64url),
    prefix("rdme_", 60, alnum),
    prefix("rk_live_", 10, alnum),
    prefix("rk_prod_", 10, alnum),
    prefix("rk_test_", 10, alnum),
    prefix("rubygems_", 48, alnum),
    prefix("s-s4t2af-", 60, alnum),
    prefix("s-s4t2ud-", 60, alnum),
    prefix("sat.", 22, base64url_dot).at_word(),
    prefix("scauth_", 20, base64url_dot),
    prefix("SG.", 30, token),
    prefix("sgp_", 40, alnum_underscore),
    prefix("sha256~", 40, base64url),
    prefix("shippo_live_", 40, alnum),
    prefix("shippo_test_", 40, alnum),
    prefix("shpat_", 20, alnum),
    prefix("shpca_", 20, alnum),
    prefix("shppa_", 20, alnum),
    prefix("shpss_", 20, alnum),
    prefix("SK", 32, hex).at_word(),
    needs("sk-", 20, base64url, Need::Mixed),
    prefix("sk-admin-", 20, base64url),
    prefix("sk-ant-", 20, base64url),
    prefix("sk-proj-", 20, base64url),
    prefix("sk-svcacct-", 20, base64url),
    prefix("sk_live_", 10, alnum),
    prefix("sk_prod_", 10, alnum),
    prefix("sk_test_", 10, alnum),
    prefix("sm_aat_", 16, alnum),
    prefix("sm_pat_", 16, alnum),
    prefix("sm_sat_", 16, alnum),
    prefix("sntrys_eyJ", 50, base64),
    prefix("sntryu_", 60, alnum),
    prefix("sq0atp-", 22, base64url),
    prefix("tk-us-", 40, base64url),
    prefix("v1.0-", 100, alnum_dash).at_word(),
    prefix("whsec_", 16, alnum),
    needs("xapp-", 10, alnum_dash, Need::AnyCase),
    prefix("xkeysib-", 64, alnum_dash),
    prefix("xoxa-", 10, alnum_dash),
    prefix("xoxb-", 10, alnum_dash),
    needs("xoxe-", 10, alnum_dash, Need::AnyCase),
    needs("xoxe.", 10, alnum_dash, Need::AnyCase),
    prefix("xoxo-", 10, alnum_dash),
    prefix("xoxp-", 10, alnum_dash),
    prefix("xoxr-", 10, alnum_dash),
    prefix("xoxs-", 10, alnum_dash),
    prefix("ZXlK", 40, base64_any),
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

/// PEM blocks (`-----BEGIN`, in any case, to the matching `-----END …-----`)
/// and PuTTY key files.
fn pem_blocks(text: &str, spans: &mut Vec<Range<usize>>) {
    let mut starts: Vec<usize> = dashes_before(text, b"BEGIN").collect();
    starts.extend(text.match_indices("PuTTY-User-Key-File-").map(|(at, _)| at));
    for start in starts {
        let end = dashes_before(&text[start + 5..], b"END")
            .next()
            .and_then(|end| {
                let after = start + 5 + end + "-----END".len();
                text[after..].find("-----").map(|close| after + close + 5)
            })
            // An unterminated block is secret to the end of the text.
            .unwrap_or(text.len());
        spans.push(start..end);
    }
}

/// Where `-----` stands right before `word` (in any case): the last five
/// dashes of a longer run count too (`------BEGIN`), which matches of
/// `-----` that do not overlap would miss.
fn dashes_before<'t>(text: &'t str, word: &'t [u8]) -> impl Iterator<Item = usize> + 't {
    let bytes = text.as_bytes();
    text.match_indices("-----").filter_map(move |(at, _)| {
        let run_end = at + 5 + bytes[at + 5..].iter().take_while(|&&b| b == b'-').count();
        starts_with_ignore_case(&bytes[run_end..], word).then_some(run_end - 5)
    })
}

fn starts_with_ignore_case(bytes: &[u8], start: &[u8]) -> bool {
    bytes
        .get(..start.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(start))
}

/// For each ASCII byte in lower case, the range of [`PREFIXES`] whose first
/// byte it is.
const FIRST: [(u8, u8); 128] = first_index();

const fn first_index() -> [(u8, u8); 128] {
    let mut index = [(0, 0); 128];
    let mut i = 0;
    while i < PREFIXES.len() {
        let first = PREFIXES[i].prefix.as_bytes()[0].to_ascii_lowercase() as usize;
        if index[first].1 == 0 {
            index[first].0 = i as u8;
        }
        index[first].1 = i as u8 + 1;
        i += 1;
    }
    index
}

/// The byte at `at` of a prefix, in lower case.
fn lower(rule: &Prefix, at: usize) -> u8 {
    rule.prefix.as_bytes()[at].to_ascii_lowercase()
}

/// Tokens that start with a published prefix: at each byte, the prefixes
/// that start with it and the byte after it (in lower case) are compared.
fn prefixed_tokens(text: &str, spans: &mut Vec<Range<usize>>) {
    let bytes = text.as_bytes();
    for (start, byte) in bytes.iter().enumerate() {
        let Some(&(from, to)) = FIRST.get(usize::from(byte.to_ascii_lowercase())) else {
            continue;
        };
        let Some(second) = bytes.get(start + 1).map(u8::to_ascii_lowercase) else {
            continue;
        };
        let group = &PREFIXES[usize::from(from)..usize::from(to)];
        let at = group.partition_point(|rule| lower(rule, 1) < second);
        let word_start = start == 0 || !alnum(bytes[start - 1]);
        for rule in group[at..]
            .iter()
            .take_while(|rule| lower(rule, 1) == second)
        {
            let Some(candidate) = bytes.get(start..start + rule.prefix.len()) else {
                continue;
            };
            let matches = if rule.need == Need::AnyCase {
                candidate.eq_ignore_ascii_case(rule.prefix.as_bytes())
            } else {
                candidate == rule.prefix.as_bytes()
            };
            if !matches || rule.at_word && !word_start {
                continue;
            }
            let body_start = start + rule.prefix.len();
            let body_len = bytes[body_start..]
                .iter()
                .take_while(|b| (rule.body)(**b))
                .count();
            let body = &bytes[body_start..body_start + body_len];
            let enough = match rule.need {
                Need::Nothing | Need::AnyCase => true,
                Need::Digit => body.iter().any(u8::is_ascii_digit),
                Need::Mixed => is_mixed(body),
            };
            if body_len >= rule.min_body && enough {
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
    let images = image_payloads(text);
    let mut i = 0;
    while i < bytes.len() {
        let len = bytes[i..].iter().take_while(|b| alnum(**b)).count();
        if len == 0 {
            i += 1;
            continue;
        }
        if images.iter().any(|image| image.contains(&i)) {
            i += len;
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

/// The base64 payloads of images in data URLs (`data:image/png;base64,…`):
/// random by nature, and not secrets, so not judged by how random they
/// look (a published prefix inside one is still found).
fn image_payloads(text: &str) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    text.match_indices("data:image/")
        .filter_map(|(start, _)| {
            let header = start
                + bytes[start..]
                    .iter()
                    .take_while(|b| !is_break(**b) && **b != b',')
                    .count();
            if !text[start..header].ends_with(";base64") || bytes.get(header) != Some(&b',') {
                return None;
            }
            let payload = header + 1;
            let len = bytes[payload..]
                .iter()
                .take_while(|b| base64(**b) || **b == b'=')
                .count();
            Some(payload..payload + len)
        })
        .collect()
}

/// Whether `value`, written under a name that holds a secret scanner's
/// keyword ([`super::names::is_keyword_name`]), is shaped like a
/// credential: one word (no whitespace) of at least ten characters, not a
/// path or a URL, with a digit, both cases, or letters as varied as a
/// random string's (Shannon entropy of at least 3 bits per character).
pub(super) fn is_credential_shaped(value: &str) -> bool {
    let value = value.trim().trim_matches(|c| matches!(c, '"' | '\'' | '`'));
    let bytes = value.as_bytes();
    if bytes.len() < 10
        || bytes.iter().any(u8::is_ascii_whitespace)
        || value.contains("://")
        || value.starts_with(['/', '.', '~', '$', '{', '<', '%'])
    {
        return false;
    }
    let mixed_case =
        bytes.iter().any(u8::is_ascii_uppercase) && bytes.iter().any(u8::is_ascii_lowercase);
    bytes.iter().any(u8::is_ascii_digit) || mixed_case || entropy(bytes) >= 3.0
}

/// Shannon entropy in bits per byte.
fn entropy(bytes: &[u8]) -> f64 {
    let mut counts = [0u32; 256];
    for &b in bytes {
        counts[usize::from(b)] += 1;
    }
    let len = bytes.len() as f64;
    counts
        .iter()
        .filter(|count| **count > 0)
        .map(|count| {
            let p = f64::from(*count) / len;
            -p * p.log2()
        })
        .sum()
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

#[cfg(test)]
mod tests {
    use super::{PREFIXES, lower};

    #[test]
    fn prefixes_are_sorted_by_their_first_two_bytes_in_lower_case() {
        let keys: Vec<(u8, u8)> = PREFIXES
            .iter()
            .map(|rule| (lower(rule, 0), lower(rule, 1)))
            .collect();
        assert!(keys.is_sorted(), "{keys:?}");
        assert!(PREFIXES.len() < 256);
    }
}
