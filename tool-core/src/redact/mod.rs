//! Redaction of secrets in what a tool returns: settings, environment
//! variables, configuration, logs.
//!
//! Whatever a tool returns leaves the host, so every tool that shows names
//! and values, or free text that may hold them, goes through this module:
//!
//! - [`redact_pair`] for a name and its value (an environment variable, a
//!   setting): the value is replaced whole by [`REDACTED`] when the name
//!   looks secret ([`is_secret_name`]) or the value does ([`looks_secret`]);
//! - [`redact_text`] for free text (log lines, `KEY=value` and `key: value`
//!   lines, URLs): each secret-looking piece is replaced, the rest kept;
//! - [`redact_json`] for structured output: values under secret-looking
//!   keys are replaced, every other string goes through [`redact_text`].
//!
//! The rules fail closed. Where a name or a value is ambiguous it counts as
//! secret: redacting a harmless value costs the reader one detail, a leaked
//! secret cannot be taken back. A secret is always replaced whole, never
//! masked in part, so nothing of it (length, prefix, last digits) gets out.
//! Redact before any length cap: a cut made first could split a secret so
//! that no rule recognises the part that is left.
//!
//! # Names
//!
//! Names are compared case- and Unicode-insensitively: invisible
//! characters are dropped, compatibility forms and accents folded, and
//! letters of other scripts mapped to the Latin letters they look like
//! (the Unicode confusables table), so `PASSWОRD` with a Cyrillic `О`,
//! fullwidth `ＴＯＫＥＮ` or `SE\u{200D}CRET` with a zero-width joiner
//! are all secret. Long markers (`password`, `secret`, `token`, `auth`,
//! `session`, `credential`, …) match anywhere in a name; short ones (`pass`,
//! `pwd`, `pat`, `key`, `pin`, …) only as whole words of it, so `PATH`,
//! `PATTERN`, `COMPASS` and `MONKEY` stay readable while `DB_PWD`,
//! `SMTP_PASS`, `PGPASS`, `GITHUB_PAT` and `apiKey` do not.
//!
//! # Values
//!
//! A value is secret whatever its name when it holds URL user-info
//! (`postgres://app:pw@db/app`, and `user:pw@proxy:3128`), a secret query
//! parameter or connection-string pair (`?password=`, `&access_token=`,
//! `AccountKey=`, `Pwd=`), a PEM block, a webhook URL (Slack, Discord,
//! Microsoft Teams), a token with the published prefix of a well-known
//! format (`ghp_`, `github_pat_`, `glpat-`, `xoxb-`, `sk_live_`, `sk-…`,
//! `AKIA…`, `AIza…`, `npm_`, `pypi-`, `SG.`, `hf_`, …: the fixed prefixes
//! of gitleaks' default rules), a JSON Web Token (`eyJ….eyJ…`), or a long
//! run of letters and digits that looks random (mixed case and digits,
//! switching often; not the base64 of an image's data URL). Paths,
//! versions, hex digests, UUIDs, ports and flags stay readable.
//!
//! Under a name that holds a secret scanner's keyword (a service's name,
//! `access`, `api`: [`is_keyword_name`]) a value is secret when it is
//! shaped like a credential: `TWITTER_CONSUMER=xvz1evFS4wEEPTGEFPHBog` is
//! redacted, `TWITTER_HANDLE=@example` is not. docs/redaction.md measures
//! all of this against gitleaks' rules.
//!
//! ```
//! use tool_core::redact::{REDACTED, redact_pair};
//!
//! assert_eq!(redact_pair("SMTP_PASS", "hunter2"), REDACTED);
//! assert_eq!(redact_pair("NOTES", "ghp_1234567890abcdefghijABCDEFGHIJ123456"), REDACTED);
//! assert_eq!(redact_pair("PATH", "/usr/local/bin:/usr/bin"), "/usr/local/bin:/usr/bin");
//! ```

use std::borrow::Cow;

use serde_json::{Map, Value};

mod names;
mod text;
mod values;

pub use names::{is_keyword_name, is_secret_name};
pub use text::redact_text;

/// What replaces a secret: the whole value, or each secret piece of a text.
pub const REDACTED: &str = "[redacted]";

/// Whether a value looks secret by its shape alone, whatever its name.
///
/// True when [`redact_text`] would redact any part of it, or when an `@`
/// follows a `:` anywhere in it (credentials in a URL, even a malformed
/// one: `postgres://u:p/w#x@db`, `a,redis://:pw@h:6379`). The second test is
/// broad on purpose and also catches `mailto:a@b.example`; an e-mail address
/// alone and `git@host:org/repo` have no `:` before the `@` and stay
/// readable.
///
/// ```
/// use tool_core::redact::looks_secret;
///
/// assert!(looks_secret("https://api.example/v1?api_key=abc123"));
/// assert!(looks_secret("DefaultEndpointsProtocol=https;AccountName=a;AccountKey=bXk="));
/// assert!(looks_secret("AKIAIOSFODNN7EXAMPLE"));
/// assert!(!looks_secret("1.42.0"));
/// assert!(!looks_secret("git@github.com:org/repo.git"));
/// ```
pub fn looks_secret(value: &str) -> bool {
    value
        .split_once(':')
        .is_some_and(|(_, after_colon)| after_colon.contains('@'))
        || !text::secret_spans(value).is_empty()
}

/// The value to show for `name`: [`REDACTED`] when the name or the value
/// looks secret, or the name holds a secret scanner's keyword
/// ([`is_keyword_name`]) and the value is shaped like a credential; the
/// value unchanged otherwise. Never a partial mask.
///
/// ```
/// use tool_core::redact::{REDACTED, redact_pair};
///
/// assert_eq!(redact_pair("GITHUB_TOKEN", "x"), REDACTED);
/// assert_eq!(redact_pair("DATABASE_URL", "postgres://u:p@h/db"), REDACTED);
/// assert_eq!(redact_pair("DATABASE_URL", "postgres://h/db"), "postgres://h/db");
/// ```
pub fn redact_pair<'a>(name: &str, value: &'a str) -> Cow<'a, str> {
    if is_secret_name(name) || looks_secret(value) || names_credential(name, value) {
        Cow::Borrowed(REDACTED)
    } else {
        Cow::Borrowed(value)
    }
}

/// A copy of `value` with its secrets redacted.
///
/// Under an object key that looks secret ([`is_secret_name`]) a string,
/// number, array or object is replaced whole by the string [`REDACTED`], as
/// is a credential-shaped string or number under a key that holds a secret
/// scanner's keyword ([`redact_named`]);
/// `null` and booleans are kept, as they cannot carry a secret
/// (`"auth_enabled": true` stays readable). Every other string, and every
/// key, goes through [`redact_text`].
///
/// ```
/// use serde_json::json;
/// use tool_core::redact::redact_json;
///
/// let settings = json!({
///     "database": {"host": "db", "port": 5432, "password": "hunter2"},
///     "log": "login ok, token=abc123",
///     "credentials": ["a", "b"],
///     "tls": {"enabled": true},
/// });
/// assert_eq!(
///     redact_json(&settings),
///     json!({
///         "database": {"host": "db", "port": 5432, "password": "[redacted]"},
///         "log": "login ok, token=[redacted]",
///         "credentials": "[redacted]",
///         "tls": {"enabled": true},
///     }),
/// );
/// ```
pub fn redact_json(value: &Value) -> Value {
    match value {
        Value::String(text) => Value::String(redact_text(text).into_owned()),
        Value::Array(items) => Value::Array(items.iter().map(redact_json).collect()),
        Value::Object(object) => {
            let mut redacted = Map::with_capacity(object.len());
            for (key, item) in object {
                redacted.insert(redact_text(key).into_owned(), redact_named(key, item));
            }
            Value::Object(redacted)
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => value.clone(),
    }
}

/// A copy of `value` as [`redact_json`] shows it under the object key
/// `name`: replaced whole by the string [`REDACTED`] when the name looks
/// secret, or holds a secret scanner's keyword ([`is_keyword_name`]) and
/// the value (a string or a number) is shaped like a credential; `null`
/// and booleans kept; otherwise [`redact_json`] of the value. For a value
/// shown under its name outside an object, as a record's field.
///
/// ```
/// use serde_json::json;
/// use tool_core::redact::redact_named;
///
/// assert_eq!(redact_named("password", &json!("hunter2")), json!("[redacted]"));
/// assert_eq!(redact_named("discord_client", &json!(695192489165589974u64)), json!("[redacted]"));
/// assert_eq!(redact_named("discord_channel", &json!("general")), json!("general"));
/// ```
pub fn redact_named(name: &str, value: &Value) -> Value {
    let credential = || match value {
        Value::String(text) => names_credential(name, text),
        Value::Number(number) => names_credential(name, &number.to_string()),
        _ => false,
    };
    match value {
        Value::Null | Value::Bool(_) => value.clone(),
        _ if is_secret_name(name) || credential() => Value::String(REDACTED.to_owned()),
        _ => redact_json(value),
    }
}

/// Whether `name` holds a secret scanner's keyword and `value` is shaped
/// like a credential.
fn names_credential(name: &str, value: &str) -> bool {
    values::is_credential_shaped(value) && is_keyword_name(name)
}
