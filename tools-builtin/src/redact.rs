//! Redaction of secrets in name/value pairs (environment variables, settings)
//! before a tool returns them to the model.
//!
//! Whatever a tool returns leaves the host, so the rules fail closed: a value
//! is hidden when its *name* looks like a secret's ([`is_secret_name`]) or when
//! the *value* looks like a URL carrying credentials
//! ([`looks_like_url_with_userinfo`]). Both checks are deliberately broad.
//! Redacting a harmless value (`MONKEY`, `GIT_AUTHOR_NAME`, `XDG_SESSION_TYPE`)
//! costs the model one detail; leaking a secret cannot be undone. A redacted
//! value is replaced whole by [`REDACTED`], never masked in part, so nothing of
//! it (length, prefix, host) gets out.

use std::borrow::Cow;

/// What [`redact`] returns in place of a secret value.
pub const REDACTED: &str = "[redacted]";

/// Words that mark a name as a secret's, in lower case.
const SECRET_MARKERS: [&str; 12] = [
    "password",
    "passwd",
    "token",
    "key",
    "secret",
    "salt",
    "dsn",
    "credential",
    "private",
    "auth",
    "cookie",
    "session",
];

/// Whether a variable or setting name looks like it holds a secret.
///
/// True when the name contains one of `password`, `passwd`, `token`, `key`,
/// `secret`, `salt`, `dsn`, `credential`, `private`, `auth`, `cookie` or
/// `session`, ignoring case, separators (`_`, `-`, `.`, …) and digits. So
/// `GITHUB_TOKEN`, `apiKey`, `APIKey`, `sessionId`, `x-auth-header`,
/// `PRIVATE_KEY`, `OAUTH2_CLIENT` and even `PASS_WORD` are secrets.
///
/// Splitting the name into words (on separators, digits and camelCase humps)
/// and comparing whole words would only ever find markers that this substring
/// search finds too, since every word is a piece of the name; so there is no
/// splitting. The substring search also matches inside longer words
/// (`MONKEY`, `AUTHOR`, `KEYBOARD_LAYOUT`): those harmless values are redacted
/// on purpose, as the price of never missing `MYAPPKEY` or `dbpassword`.
/// Dropping separators before searching likewise catches a marker written
/// across them (`PASS_WORD`), at the cost of rare matches across words.
pub fn is_secret_name(name: &str) -> bool {
    let letters: String = name
        .chars()
        .filter(char::is_ascii_alphabetic)
        .map(|letter| letter.to_ascii_lowercase())
        .collect();
    SECRET_MARKERS.iter().any(|marker| letters.contains(marker))
}

/// Whether a value looks like it carries URL credentials, wherever they are
/// in it: `postgres://user:pw@db/x`, `https://token@github.com`,
/// `a,redis://:pw@h:6379`, or a proxy written without scheme, `user:pw@proxy:3128`.
///
/// The test is deliberately simple and broad: an `@` somewhere after a `:`.
/// A real URL parser would miss credentials in the malformed values people do
/// write (unencoded `/`, `#` or spaces in a password, several URLs in one
/// value), and what it missed would leak. Values that merely resemble the
/// shape are redacted too (`mailto:a@b.example`, `https://host/@user`); an
/// e-mail address alone (`a@b.example`) and `git@host:path` are kept, as they
/// have no `:` before the `@`.
pub fn looks_like_url_with_userinfo(value: &str) -> bool {
    value
        .split_once(':')
        .is_some_and(|(_, after_colon)| after_colon.contains('@'))
}

/// The value to show for `name`: [`REDACTED`] when the name looks like a
/// secret's or the value carries URL credentials, the value unchanged
/// otherwise.
///
/// A `Cow` so that a finer redaction can later return an owned, partly
/// masked value without changing callers.
pub fn redact<'a>(name: &str, value: &'a str) -> Cow<'a, str> {
    if is_secret_name(name) || looks_like_url_with_userinfo(value) {
        Cow::Borrowed(REDACTED)
    } else {
        Cow::Borrowed(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    macro_rules! secret_names {
        ($($test:ident: [$($name:literal),+ $(,)?];)+) => {$(
            #[test]
            fn $test() {
                $(assert!(is_secret_name($name), "{:?} not seen as a secret", $name);)+
            }
        )+};
    }

    secret_names! {
        marker_password: ["PASSWORD", "DB_PASSWORD", "password"];
        marker_passwd: ["PASSWD", "smtp_passwd"];
        marker_token: ["TOKEN", "GITHUB_TOKEN", "accessToken"];
        marker_key: ["KEY", "API_KEY", "apiKey", "APIKey"];
        marker_secret: ["SECRET", "CLIENT_SECRET", "clientSecret"];
        marker_salt: ["SALT", "PASSWORD_SALT", "hashSalt"];
        marker_dsn: ["DSN", "SENTRY_DSN", "sentryDsn"];
        marker_credential: ["CREDENTIALS", "GOOGLE_APPLICATION_CREDENTIALS", "awsCredential"];
        marker_private: ["PRIVATE", "PRIVATE_KEY", "privateKey"];
        marker_auth: ["AUTH", "BASIC_AUTH", "authorization"];
        marker_cookie: ["COOKIE", "COOKIE_SECRET", "sessionCookie"];
        marker_session: ["SESSION", "SESSION_ID", "sessionId"];
        camel_case_db_password: ["dbPassword", "DbPassword"];
        camel_case_x_auth_header: ["xAuthHeader", "X-Auth-Header", "x.auth.header"];
        camel_case_github_token: ["GitHubToken", "gitHubTOKEN"];
        upper_snake_private_key: ["PRIVATE_KEY"];
        marker_after_digits: ["OAUTH2_TOKEN", "S3KEY", "key1"];
        marker_across_separators: ["PASS_WORD", "pass-word", "Se_Cret"];
        marker_inside_longer_word_fails_closed: ["MONKEY", "GIT_AUTHOR_NAME"];
    }

    #[test]
    fn common_non_secret_names_kept() {
        for name in [
            "PATH",
            "HOME",
            "LANG",
            "TERM",
            "USER",
            "SHELL",
            "PWD",
            "TZ",
            "EDITOR",
            "HOSTNAME",
            "LC_ALL",
            "RUST_LOG",
            "DATABASE_URL",
            "",
        ] {
            assert!(!is_secret_name(name), "{name:?} seen as a secret");
        }
    }

    #[test]
    fn url_with_user_and_password_detected() {
        assert!(looks_like_url_with_userinfo("postgres://user:pw@db/x"));
    }

    #[test]
    fn url_with_token_as_user_detected() {
        assert!(looks_like_url_with_userinfo(
            "https://tok@github.com/org/repo"
        ));
    }

    #[test]
    fn url_with_password_only_in_a_list_detected() {
        assert!(looks_like_url_with_userinfo("a,redis://:pw@h:6379"));
        assert!(looks_like_url_with_userinfo(
            "redis://h1:6379 redis://:pw@h2:6379"
        ));
    }

    #[test]
    fn malformed_password_still_detected() {
        assert!(looks_like_url_with_userinfo("postgres://u:p/w#x@db/x"));
        assert!(looks_like_url_with_userinfo("user:pw@proxy:3128"));
    }

    #[test]
    fn url_without_user_info_kept() {
        for value in [
            "https://example.com/path?q=1#top",
            "redis://h:6379/0",
            "a@b.example",
            "git@github.com:org/repo.git",
            "",
        ] {
            assert!(
                !looks_like_url_with_userinfo(value),
                "{value:?} seen as credentials"
            );
        }
    }

    #[test]
    fn secret_name_redacted() {
        assert_eq!(redact("GITHUB_TOKEN", "ghp_abc"), REDACTED);
        assert_eq!(REDACTED, "[redacted]");
    }

    #[test]
    fn user_info_under_harmless_name_redacted() {
        assert_eq!(redact("DATABASE_URL", "postgres://u:p@h/db"), REDACTED);
    }

    #[test]
    fn harmless_name_and_value_kept() {
        assert_eq!(redact("DATABASE_URL", "postgres://h/db"), "postgres://h/db");
        assert_eq!(redact("PATH", "/usr/bin:/bin"), "/usr/bin:/bin");
        assert_eq!(redact("HOME", "/home/me"), "/home/me");
    }

    #[test]
    fn non_ascii_input_does_not_panic() {
        assert!(is_secret_name("ключ_TOKEN"));
        assert!(!is_secret_name("日本語"));
        assert_eq!(redact("NAME", "é:ü@ß"), REDACTED);
    }
}
