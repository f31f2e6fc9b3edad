//! Whether a name (an environment variable, a setting, a JSON key, a query
//! parameter) looks like it holds a secret.
//!
//! A name is folded before it is matched, so look-alike spellings cannot
//! hide a marker: invisible characters (zero-width space and joiners, word
//! joiner, byte-order mark, soft hyphen, bidi controls, variation selectors)
//! are dropped; compatibility forms are folded (NFKD: fullwidth `ＴＯＫＥＮ`,
//! mathematical letters); accents are dropped (`pässword`, Turkish `İ`);
//! every other non-ASCII letter is mapped to the Latin letter it is
//! confusable with, by the Unicode confusables table (UTS #39 skeleton:
//! Cyrillic `О` in `PASSWОRD`, Greek `Τ`, Turkish dotless `ı`).
//!
//! The folded name is split into words on `_`, `-`, `.`, spaces and other
//! punctuation, on digits and on camelCase humps (`apiKey` → `api key`,
//! `APIKey` → `api key`). Then:
//!
//! - **long markers** match anywhere, even inside a longer word and across
//!   separators (`DBPASSWORD`, `PASS_WORD`, `xAuthHeader`): `password`,
//!   `passwd`, `passphrase`, `passcode`, `passkey`, `secret`, `token`,
//!   `credential`, `private`, `privkey`, `auth`, `bearer`, `cookie`,
//!   `session`, `salt`, `signature`, `jwt`, `dsn`, `pwd`, `webhook`,
//!   `apikey`, `connectionstring`, `connstr`;
//! - **short markers** only as whole words, because as substrings they sit
//!   inside everyday names (`PATH`, `PATTERN`, `SPINNER`, `CREDIT`,
//!   `DESIGNING`): `pass`, `pw`, `pat`, `key`, `keys`, `pin`, `otp`, `psk`,
//!   `sig`, `cred`, `creds`, `signing`;
//! - **`key` and `pass` also end a word** (`APIKEY`, `MASTERKEY`, `PGPASS`,
//!   `SMTPPASS`), except in the English words `monkey`, `donkey`, `hockey`,
//!   `turkey`, `jockey`, `whiskey`, `lackey`, `compass`, `bypass`,
//!   `overpass`, `underpass`, `trespass`, `encompass` and `surpass`.
//!
//! A few words are known to be harmless and are ignored: `author`
//! (`GIT_AUTHOR_NAME`), `tokenizer` (`TOKENIZERS_PARALLELISM`), and the
//! English words above. The names `PWD` and `OLDPWD`, spelt exactly so, are
//! the shell's working directories; any other spelling (`Pwd=` in an SQL
//! Server connection string, `DB_PWD`) is a password.
//!
//! Names of a third kind, the keywords of gitleaks' default rules (a
//! service's name, `access`, `api`), make a value secret only when it is
//! shaped like a credential: see [`is_keyword_name`].
//!
//! Everything else fails closed: where a name is ambiguous it counts as a
//! secret. Redacting a harmless value costs the reader one detail; a leaked
//! secret cannot be taken back. So `SSH_AUTH_SOCK`, `XDG_SESSION_TYPE`,
//! `AUTHORITY` and `BASALT` are redacted on purpose. Leetspeak (`P4SSW0RD`)
//! is not folded: digits split words, and mapping them to letters would
//! redact ordinary names; values are still checked by shape.

use unicode_normalization::UnicodeNormalization;

const LONG_MARKERS: [&str; 23] = [
    "password",
    "passwd",
    "passphrase",
    "passcode",
    "passkey",
    "secret",
    "token",
    "credential",
    "private",
    "privkey",
    "auth",
    "bearer",
    "cookie",
    "session",
    "salt",
    "signature",
    "jwt",
    "dsn",
    "pwd",
    "webhook",
    "apikey",
    "connectionstring",
    "connstr",
];

const WORD_MARKERS: [&str; 12] = [
    "pass", "pw", "pat", "key", "keys", "pin", "otp", "psk", "sig", "cred", "creds", "signing",
];

/// The names gitleaks' default rules (v8.30.1) look for before a value:
/// the services whose credentials are written under their name
/// (`ADAFRUIT_…`, `twitterBearer`), and the generic `access` and `api`.
/// Under such a name a value is secret when it is shaped like a
/// credential ([`super::values::is_credential_shaped`]); `TWITTER_HANDLE`
/// and `API_URL` keep a readable value. Keywords of up to four letters
/// only start a word (`sumologic`, not `consumo`); longer ones match
/// anywhere, as gitleaks matches them.
const KEYWORDS: [&str; 77] = [
    "access",
    "adafruit",
    "adobe",
    "airtable",
    "algolia",
    "alibaba",
    "api",
    "artifactory",
    "asana",
    "atlassian",
    "beamer",
    "bintray",
    "bitbucket",
    "bittrex",
    "cloudflare",
    "codecov",
    "cohere",
    "coinbase",
    "confluence",
    "confluent",
    "contentful",
    "contribsys",
    "datadog",
    "discord",
    "dnkey",
    "droneci",
    "dropbox",
    "etsy",
    "facebook",
    "fastly",
    "finicity",
    "finnhub",
    "flickr",
    "freshbooks",
    "gitter",
    "gocardless",
    "heroku",
    "hubspot",
    "intercom",
    "jfrog",
    "jira",
    "kraken",
    "kucoin",
    "launchdarkly",
    "linear",
    "linkedin",
    "lob",
    "looker",
    "mailchimp",
    "mailgun",
    "mapbox",
    "mattermost",
    "meraki",
    "messagebird",
    "netlify",
    "newrelic",
    "newyorktimes",
    "nytimes",
    "okta",
    "plaid",
    "privateai",
    "rapidapi",
    "sendbird",
    "sentry",
    "snyk",
    "sonar",
    "squarespace",
    "sumo",
    "telegr",
    "travis",
    "twitch",
    "twitter",
    "typeform",
    "yandex",
    "zendesk",
    "xray",
    "curl",
];

const WORD_ENDINGS: [&str; 3] = ["key", "keys", "pass"];

/// Words that contain a marker but hold nothing secret.
const HARMLESS_WORDS: [&str; 19] = [
    "author",
    "authors",
    "authored",
    "tokenizer",
    "tokenizers",
    "monkey",
    "donkey",
    "hockey",
    "turkey",
    "jockey",
    "whiskey",
    "lackey",
    "compass",
    "bypass",
    "overpass",
    "underpass",
    "trespass",
    "encompass",
    "surpass",
];

/// Whether a name holds one of the keywords secret scanners look for
/// before a credential (gitleaks' default rules: `ADAFRUIT_KEY_ID`,
/// `twitterBearer`, `SUMOLOGIC_ACCESS_ID`, `API_CLIENT`): a value under it
/// is redacted when it is shaped like a credential (one word of at least
/// ten characters that is not a path or a URL, and has a digit, mixed case
/// or letters as varied as a random string's). Folded and split as
/// [`is_secret_name`] folds and splits names.
///
/// ```
/// use tool_core::redact::{is_keyword_name, redact_pair};
///
/// assert!(is_keyword_name("TWITTER_CONSUMER"));
/// assert!(is_keyword_name("sumologicId"));
/// assert!(!is_keyword_name("CONSUMO_TOTAL"));
/// assert_eq!(redact_pair("TWITTER_CONSUMER", "xvz1evFS4wEEPTGEFPHBog"), "[redacted]");
/// assert_eq!(redact_pair("TWITTER_HANDLE", "@example"), "@example");
/// assert_eq!(redact_pair("API_URL", "https://api.example/v1"), "https://api.example/v1");
/// ```
pub fn is_keyword_name(name: &str) -> bool {
    holds_keyword(&words(name))
}

fn holds_keyword(words: &[String]) -> bool {
    let joined = words.concat();
    KEYWORDS.iter().any(|keyword| {
        if keyword.len() <= 4 {
            words.iter().any(|word| word.starts_with(keyword))
        } else {
            holds(&joined, keyword)
        }
    })
}

/// `haystack.contains(needle)` for a name's few bytes: comparing windows
/// costs less than setting up a substring searcher per marker.
fn holds(haystack: &str, needle: &str) -> bool {
    haystack
        .as_bytes()
        .windows(needle.len())
        .any(|window| window == needle.as_bytes())
}

/// What a name says of the value written under it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Naming {
    /// A secret's name ([`is_secret_name`]): the value is secret.
    Secret,
    /// A secret scanner's keyword ([`is_keyword_name`]) over a value
    /// shaped like a credential: the value is secret.
    Keyword,
    Plain,
}

/// [`is_secret_name`], then, when `credential()` says the value is shaped
/// like a credential, [`is_keyword_name`], folding the name once.
pub(super) fn naming(name: &str, credential: impl FnOnce() -> bool) -> Naming {
    let words = words(name);
    if secret_words(name, &words) {
        Naming::Secret
    } else if credential() && holds_keyword(&words) {
        Naming::Keyword
    } else {
        Naming::Plain
    }
}

/// Names the shell sets to directories, exempt only as the shell spells
/// them: `Pwd=` in a connection string is a password.
const HARMLESS_NAMES: [&str; 2] = ["PWD", "OLDPWD"];

/// Whether a variable, setting or key name looks like it holds a secret.
///
/// Compared case- and Unicode-insensitively; see the [module
/// docs](crate::redact) for the markers and how names are folded and split.
///
/// ```
/// use tool_core::redact::is_secret_name;
///
/// assert!(is_secret_name("GITHUB_TOKEN"));
/// assert!(is_secret_name("apiKey"));
/// assert!(is_secret_name("DB_PWD"));
/// assert!(is_secret_name("PASSW\u{41E}RD")); // Cyrillic О
/// assert!(!is_secret_name("PATH"));
/// assert!(!is_secret_name("COMPASS_HEADING"));
/// ```
pub fn is_secret_name(name: &str) -> bool {
    secret_words(name, &words(name))
}

fn secret_words(name: &str, words: &[String]) -> bool {
    if words.is_empty() {
        return false;
    }
    if HARMLESS_NAMES.contains(&name) {
        return false;
    }
    let meaningful: Vec<&str> = words
        .iter()
        .map(String::as_str)
        .filter(|word| !HARMLESS_WORDS.contains(word))
        .collect();
    let joined = meaningful.concat();
    LONG_MARKERS.iter().any(|marker| holds(&joined, marker))
        || meaningful.iter().any(|word| {
            WORD_MARKERS.contains(word) || WORD_ENDINGS.iter().any(|ending| word.ends_with(ending))
        })
}

/// The lower-case ASCII words of a folded name; non-Latin letters that fold
/// to no Latin letter stay in their word, so they can match nothing.
pub(super) fn words(name: &str) -> Vec<String> {
    let folded: Vec<char> = name
        .chars()
        .filter(|c| !is_invisible(*c))
        .nfkd()
        .filter(|c| !is_combining_mark(*c))
        .map(fold_confusable)
        .collect();
    let mut words = Vec::new();
    let mut word = String::new();
    for (i, &c) in folded.iter().enumerate() {
        if !c.is_alphabetic() {
            push_word(&mut words, &mut word);
            continue;
        }
        let previous = i.checked_sub(1).map(|p| folded[p]);
        let next = folded.get(i + 1).copied();
        let hump = c.is_uppercase()
            && previous.is_some_and(|p| {
                p.is_lowercase() || (p.is_uppercase() && next.is_some_and(char::is_lowercase))
            });
        if hump {
            push_word(&mut words, &mut word);
        }
        word.extend(c.to_lowercase());
    }
    push_word(&mut words, &mut word);
    words
}

fn push_word(words: &mut Vec<String>, word: &mut String) {
    if !word.is_empty() {
        words.push(std::mem::take(word));
    }
}

/// Characters that render as nothing and so can split a marker unseen.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{AD}'
            | '\u{34F}'
            | '\u{61C}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{17B4}'
            | '\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{E0000}'..='\u{E0FFF}'
    )
}

fn is_combining_mark(c: char) -> bool {
    matches!(
        c,
        '\u{300}'..='\u{36F}'
            | '\u{1AB0}'..='\u{1AFF}'
            | '\u{1DC0}'..='\u{1DFF}'
            | '\u{20D0}'..='\u{20FF}'
            | '\u{FE20}'..='\u{FE2F}'
    )
}

/// The Latin letter a non-ASCII letter is confusable with, in the letter's
/// own case, or the letter itself.
///
/// The UTS #39 skeleton is case-sensitive and its prototypes are not always
/// ASCII (`к` → `ĸ`, `І` → `l`), so the letter, then its upper and lower
/// case, are tried in turn, and a capital whose prototype is `l` is an `I`.
fn fold_confusable(c: char) -> char {
    if c.is_ascii() || !c.is_alphabetic() {
        return c;
    }
    let candidates = [Some(c), single(c.to_uppercase()), single(c.to_lowercase())];
    for candidate in candidates.into_iter().flatten() {
        let candidate_text = candidate.to_string();
        let mut prototype =
            unicode_security::skeleton(&candidate_text).filter(|p| !is_combining_mark(*p));
        if let (Some(latin), None) = (prototype.next(), prototype.next())
            && latin.is_ascii_alphabetic()
        {
            let latin = if latin == 'l' && candidate.is_uppercase() {
                'I'
            } else {
                latin
            };
            return if c.is_uppercase() {
                latin.to_ascii_uppercase()
            } else if c.is_lowercase() {
                latin.to_ascii_lowercase()
            } else {
                latin
            };
        }
    }
    c
}

fn single(mut chars: impl Iterator<Item = char>) -> Option<char> {
    match (chars.next(), chars.next()) {
        (Some(c), None) => Some(c),
        _ => None,
    }
}
