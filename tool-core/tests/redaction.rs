//! The redaction contract: which names and values are hidden, which stay
//! readable, in pairs, free text and JSON.

use proptest::prelude::*;
use serde_json::json;
use tool_core::redact::{
    REDACTED, is_secret_name, looks_secret, redact_json, redact_pair, redact_text,
};

/// `(name, value, redacted, why)`.
const TABLE: &[(&str, &str, bool, &str)] = &[
    // Secret names, the obvious ones.
    ("PASSWORD", "hunter2", true, "plain marker"),
    ("DB_PASSWORD", "hunter2", true, "marker as a word"),
    ("dbPassword", "hunter2", true, "camelCase"),
    ("MYSQL_PASSWD", "hunter2", true, "passwd"),
    ("GPG_PASSPHRASE", "correct horse", true, "passphrase"),
    ("CLIENT_SECRET", "s3cr3t", true, "secret"),
    ("clientSecret", "s3cr3t", true, "secret, camelCase"),
    ("GITHUB_TOKEN", "ghp_abc", true, "token"),
    ("accessToken", "abc", true, "token, camelCase"),
    ("API_KEY", "abc", true, "key as a word"),
    ("apiKey", "abc", true, "key after a camelCase hump"),
    ("APIKey", "abc", true, "key after an acronym"),
    ("APIKEY", "abc", true, "key ending a word"),
    ("AWS_SECRET_ACCESS_KEY", "abc", true, "secret and key"),
    ("HASH_SALT", "abc", true, "salt"),
    (
        "GOOGLE_APPLICATION_CREDENTIALS",
        "/etc/gcp.json",
        true,
        "credential; a path, redacted all the same",
    ),
    ("BASIC_AUTH", "user:pw", true, "auth"),
    (
        "HTTP_AUTHORIZATION",
        "Basic dXNlcjpwYXNz",
        true,
        "auth inside a longer word",
    ),
    ("OAUTH_BEARER", "abc", true, "bearer"),
    ("SESSION_COOKIE", "abc", true, "session and cookie"),
    ("sessionId", "abc", true, "session, camelCase"),
    ("JWT", "abc", true, "jwt"),
    (
        "SENTRY_DSN",
        "https://abc@o1.ingest.sentry.io/1",
        true,
        "dsn",
    ),
    (
        "SQL_CONNECTION_STRING",
        "Server=db",
        true,
        "connection string across a separator",
    ),
    ("SLACK_WEBHOOK", "abc", true, "webhook"),
    (
        "PRIVATE_KEY_PATH",
        "/etc/key.pem",
        true,
        "private: fails closed on a path",
    ),
    // Secret names that slip through naive lists.
    ("DB_PWD", "hunter2", true, "*_PWD"),
    ("SMTP_PASS", "hunter2", true, "*_PASS"),
    ("PGPASS", "hunter2", true, "PGPASS: pass ending a word"),
    ("REDIS_PW", "hunter2", true, "pw as a word"),
    ("GITHUB_PAT", "abc", true, "*_PAT"),
    ("gitlabPat", "abc", true, "pat, camelCase"),
    ("SIM_PIN", "1234", true, "pin as a word"),
    ("MASTERKEY", "abc", true, "key ending an unseparated name"),
    (
        "SSH_AUTH_SOCK",
        "/tmp/ssh-x/agent.1",
        true,
        "auth: fails closed on a socket path",
    ),
    ("XDG_SESSION_TYPE", "wayland", true, "session: fails closed"),
    // Unicode tricks on names.
    ("PASSW\u{41E}RD", "hunter2", true, "Cyrillic capital O"),
    (
        "p\u{430}ssw\u{43E}rd",
        "hunter2",
        true,
        "Cyrillic small a and o",
    ),
    (
        "\u{FF34}\u{FF2F}\u{FF2B}\u{FF25}\u{FF2E}",
        "abc",
        true,
        "fullwidth TOKEN",
    ),
    (
        "\u{FF50}\u{FF41}\u{FF53}\u{FF53}\u{FF57}\u{FF4F}\u{FF52}\u{FF44}",
        "abc",
        true,
        "fullwidth password",
    ),
    ("SE\u{200D}CRET", "abc", true, "zero-width joiner inside"),
    ("API\u{200B}_KEY", "abc", true, "zero-width space inside"),
    ("\u{FEFF}TOKEN", "abc", true, "byte-order mark in front"),
    ("TO\u{2060}KEN", "abc", true, "word joiner inside"),
    ("TO\u{AD}KEN", "abc", true, "soft hyphen inside"),
    ("pr\u{131}vate_data", "abc", true, "Turkish dotless i"),
    ("SESS\u{130}ON", "abc", true, "Turkish dotted capital I"),
    (
        "\u{391}\u{3A1}\u{399}_\u{39A}\u{395}\u{3A5}",
        "abc",
        true,
        "Greek capitals spelling API_KEY",
    ),
    ("s\u{435}ssion", "abc", true, "Cyrillic small ie"),
    ("p\u{E4}ssword", "abc", true, "accent dropped"),
    // Secret values under harmless names.
    (
        "DATABASE_URL",
        "postgres://app:hunter2@db:5432/app",
        true,
        "URL user-info",
    ),
    (
        "REPO_URL",
        "https://x-access-token:abc@github.com/o/r.git",
        true,
        "token as URL user-info",
    ),
    ("PROXY", "user:pw@proxy:3128", true, "scheme-less user-info"),
    (
        "API_ENDPOINT",
        "https://api.example.com/v1?password=hunter2",
        true,
        "?password=",
    ),
    (
        "CALLBACK",
        "https://x.example/cb?a=1&access_token=abc",
        true,
        "&access_token=",
    ),
    (
        "BLOB_URL",
        "https://a.blob.core.windows.net/c?sv=2022&sig=abc%2Bdef",
        true,
        "SAS sig=",
    ),
    (
        "STORAGE",
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=bXlrZXk=;EndpointSuffix=core.windows.net",
        true,
        "AccountKey=",
    ),
    (
        "SQLSERVER",
        "Server=db;Database=app;User Id=sa;Pwd=hunter2;",
        true,
        "Pwd= pair",
    ),
    (
        "PG",
        "host=db port=5432 user=app password=hunter2",
        true,
        "libpq pairs",
    ),
    (
        "SETTINGS_BLOB",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
        true,
        "PEM block under a harmless name",
    ),
    (
        "NOTES",
        "ghp_1234567890abcdefghijABCDEFGHIJ123456",
        true,
        "GitHub classic token",
    ),
    (
        "CI_VALUE",
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
        true,
        "GitHub fine-grained token",
    ),
    ("GL", "glpat-9aB3dE5fG7hJ1kL2mN4p", true, "GitLab token"),
    (
        "BOT",
        "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOp",
        true,
        "Slack bot token",
    ),
    (
        "STRIPE",
        "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
        true,
        "Stripe live key",
    ),
    (
        "OPENAI",
        "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXyZ",
        true,
        "OpenAI-style key",
    ),
    ("AWS_ID", "AKIAIOSFODNN7EXAMPLE", true, "AWS access key id"),
    (
        "MAPS",
        "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW",
        true,
        "Google API key",
    ),
    (
        "X_HEADER",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl",
        true,
        "JWT",
    ),
    (
        "NPMRC",
        "npm_abcdefghijklmnopqrstuvwxyz0123456789",
        true,
        "npm token",
    ),
    (
        "UPLOAD",
        "pypi-AgEIcHlwaS5vcmcCJGE0ZjM1YzQ2LTRmMzktNGQ4",
        true,
        "PyPI token",
    ),
    (
        "MAIL",
        "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",
        true,
        "SendGrid key",
    ),
    (
        "NOTIFY_URL",
        "https://hooks.slack.com/services/T000/B000/XXXXXXXX",
        true,
        "Slack webhook",
    ),
    (
        "ALERTS",
        "https://discord.com/api/webhooks/123/abcDEF",
        true,
        "Discord webhook",
    ),
    (
        "RANDOM_VALUE",
        "a8Fk2LqZ9xPw3TnB7vRc1MdY5sHe",
        true,
        "random-looking string",
    ),
    ("HEADER", "Bearer abcdefghijklmnop", true, "bearer token"),
    // Ordinary values stay readable.
    ("PATH", "/usr/local/bin:/usr/bin:/bin", false, "path list"),
    ("HOME", "/home/me", false, "path"),
    ("LANG", "en_US.UTF-8", false, "locale"),
    ("RUST_LOG", "info,tool_core=debug", false, "log filter"),
    ("PORT", "8080", false, "port"),
    (
        "FEATURE_FLAGS",
        "new_ui,dark_mode,beta-search",
        false,
        "feature flags",
    ),
    ("VERSION", "1.42.0-rc.1+build.7", false, "version"),
    ("PWD", "/work/app", false, "the shell's working directory"),
    ("OLDPWD", "/tmp", false, "the shell's previous directory"),
    ("PATTERN", "*.rs", false, "pat inside a word"),
    ("COMPASS_HEADING", "270", false, "pass inside compass"),
    ("MONKEY", "banana", false, "key inside monkey"),
    ("KEYBOARD_LAYOUT", "us", false, "key starting a word"),
    (
        "GIT_AUTHOR_NAME",
        "Ada Lovelace",
        false,
        "author is not auth",
    ),
    (
        "TOKENIZERS_PARALLELISM",
        "false",
        false,
        "tokenizer is not token",
    ),
    ("PASSENGER_COUNT", "4", false, "pass starting a word"),
    (
        "GIT_COMMIT",
        "9fceb02d0ae598e95dc970b74767f19372d61af8",
        false,
        "hex digest",
    ),
    (
        "REQUEST_ID",
        "550e8400-e29b-41d4-a716-446655440000",
        false,
        "UUID",
    ),
    (
        "HOMEPAGE",
        "https://example.com/docs?page=2#top",
        false,
        "URL without credentials",
    ),
    (
        "DATABASE_URL",
        "postgres://db:5432/app",
        false,
        "URL without user-info",
    ),
    ("EMAIL", "ada@example.com", false, "e-mail address"),
    (
        "GIT_REMOTE",
        "git@github.com:org/repo.git",
        false,
        "SSH remote",
    ),
    (
        "NO_PROXY",
        "localhost,127.0.0.1,.internal",
        false,
        "host list",
    ),
    ("TERM", "xterm-256color", false, "terminal"),
    (
        "JAVA_OPTS",
        "-Xmx2g -Dfile.encoding=UTF-8",
        false,
        "JVM options",
    ),
    ("TZ", "Europe/Berlin", false, "time zone"),
    (
        "ENTRY_POINT",
        "parseHttp2ResponseHeaderBlockFromStream",
        false,
        "long camelCase identifier",
    ),
    ("SPINNER", "dots", false, "pin inside a word"),
    // Issue 25: names the table missed, the rule set's keywords, and
    // lower-case tokens of published formats.
    (
        "NPM_CONFIG_REGISTRY_CRED",
        "val-npm-registry-cred",
        true,
        "cred",
    ),
    ("SMTP_PWD", "hunter2", true, "pwd"),
    ("KEY_PASSPHRASE_FILE", "/run/gpg", true, "passphrase"),
    ("GITLAB_PRIVATE", "abc", true, "private"),
    ("RELEASE_SIGNING", "abc", true, "signing"),
    ("CREDIT_LIMIT", "5000", false, "cred only as a word"),
    ("DESIGNING_TEAM", "ux", false, "signing only as a word"),
    (
        "OPENAI",
        "sk-proj-abcdefghijklmnopqrstuvwxyz012345",
        true,
        "sk-proj- in lower case",
    ),
    (
        "HF_HUB",
        "hf_abcdefghijklmnopqrstuvwxyz",
        true,
        "hf_ in lower case",
    ),
    (
        "TWITTER_CONSUMER",
        "xvz1evFS4wEEPTGEFPHBog",
        true,
        "keyword, credential-shaped",
    ),
    (
        "SUMOLOGIC_ACCESS_ID",
        "suMP3wT8j0tpKd",
        true,
        "keyword starting a word",
    ),
    (
        "ASANA_CLIENT",
        "1204567890123456",
        true,
        "keyword, a long number",
    ),
    (
        "TWITTER_HANDLE",
        "@example",
        false,
        "keyword, not credential-shaped",
    ),
    ("API_URL", "https://api.example/v1", false, "keyword, a URL"),
    (
        "ACCESS_LOG",
        "/var/log/nginx/access.log",
        false,
        "keyword, a path",
    ),
    ("API_TIMEOUT", "30000", false, "keyword, a short number"),
    (
        "CONSUMO_TOTAL",
        "a1b2c3d4e5f6g7",
        false,
        "a short keyword inside a word",
    ),
];

#[test]
fn table_has_enough_rows_of_both_kinds() {
    assert!(TABLE.len() >= 60, "{} rows", TABLE.len());
    assert!(TABLE.iter().filter(|row| !row.2).count() >= 20);
}

#[test]
fn redact_pair_follows_the_table() {
    let mut wrong = Vec::new();
    for &(name, value, redacted, why) in TABLE {
        let shown = redact_pair(name, value);
        let expected = if redacted { REDACTED } else { value };
        if shown != expected {
            wrong.push(format!("{name:?}={value:?} ({why}): got {shown:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn env_lines_of_the_table_redact_the_same_way_in_text() {
    let mut wrong = Vec::new();
    for &(name, value, redacted, why) in TABLE {
        let line = format!("{name}={value}");
        let shown = redact_text(&line);
        let ok = if redacted {
            value.len() < 4 || !shown.contains(value)
        } else {
            shown == line
        };
        if !ok {
            wrong.push(format!("{line:?} ({why}): got {shown:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn keyword_names_redact_credential_shaped_values_in_json_and_text() {
    let value = json!({
        "twitter_consumer": "xvz1evFS4wEEPTGEFPHBog",
        "discord_client": 695192489165589974u64,
        "twitter_handle": "@example",
        "api_url": "https://api.example/v1",
    });
    assert_eq!(
        redact_json(&value),
        json!({
            "twitter_consumer": REDACTED,
            "discord_client": REDACTED,
            "twitter_handle": "@example",
            "api_url": "https://api.example/v1",
        })
    );
    assert_eq!(
        redact_text("twitter_consumer: xvz1evFS4wEEPTGEFPHBog\ntwitter_handle: example"),
        "twitter_consumer: [redacted]\ntwitter_handle: example"
    );
    // A value that starts with `=`, glued to the name's `=`.
    assert_eq!(
        redact_text("DB_PASSWORD==abc=def"),
        "DB_PASSWORD=[redacted]"
    );
    assert_eq!(redact_text("if a == b"), "if a == b");
}

#[test]
fn names_and_values_are_judged_separately() {
    assert!(is_secret_name("DB_PWD"));
    assert!(!looks_secret("hunter2"));
    assert!(!is_secret_name("DATABASE_URL"));
    assert!(looks_secret("postgres://app:hunter2@db/app"));
    assert!(!is_secret_name(""));
    assert!(!looks_secret(""));
}

#[test]
fn malformed_credential_urls_are_still_secret() {
    for value in [
        "postgres://u:p/w#x@db/x",
        "a,redis://:pw@h:6379",
        "redis://h1:6379 redis://:pw@h2:6379",
    ] {
        assert!(looks_secret(value), "{value:?}");
    }
}

#[test]
fn non_latin_names_do_not_panic_and_fold_to_nothing() {
    assert!(!is_secret_name("日本語"));
    assert!(is_secret_name("ключ_TOKEN"));
    assert_eq!(redact_pair("NAME", "é:ü@ß"), REDACTED);
}

#[test]
fn text_keeps_host_of_a_credential_url() {
    assert_eq!(
        redact_text("error: cannot reach postgres://app:hunter2@db:5432/app (timeout)"),
        "error: cannot reach postgres://[redacted]@db:5432/app (timeout)",
    );
}

#[test]
fn text_redacts_env_file_lines_and_keeps_the_others() {
    let env =
        "PORT=8080\nDB_PASSWORD=hunter2 with spaces\nexport API_KEY=\"abc def\"\nRUST_LOG=debug\n";
    assert_eq!(
        redact_text(env),
        "PORT=8080\nDB_PASSWORD=[redacted]\nexport API_KEY=\"[redacted]\"\nRUST_LOG=debug\n",
    );
}

#[test]
fn text_redacts_yaml_keys_and_blocks() {
    let yaml = "database:\n  host: db\n  password: hunter2\n  port: 5432\nprivate_key: |\n  MIIEvQIBADANBgkqhkiG9w0B\n  AQEFAASCBKcwggSjAgEAAoIB\nname: app\n";
    let shown = redact_text(yaml);
    assert_eq!(
        shown,
        "database:\n  host: db\n  password: [redacted]\n  port: 5432\nprivate_key: [redacted]\nname: app\n",
    );
}

#[test]
fn text_redacts_json_lines_flags_and_headers() {
    assert_eq!(
        redact_text(r#"{"user":"bob","password":"hun\"ter2","port":5432}"#),
        r#"{"user":"bob","password":"[redacted]","port":5432}"#,
    );
    assert_eq!(
        redact_text("run --password hunter2 --verbose"),
        "run --password [redacted] --verbose",
    );
    assert_eq!(
        redact_text("GET / with Authorization: Bearer abc.def.ghi"),
        "GET / with Authorization: [redacted]",
    );
    assert_eq!(
        redact_text("sent header Bearer abcdefghijkl to api"),
        "sent header Bearer [redacted] to api",
    );
}

#[test]
fn text_redacts_query_parameters_and_connection_pairs_only() {
    assert_eq!(
        redact_text("GET https://api.example/v1?page=2&api_key=abc123&sort=asc"),
        "GET https://api.example/v1?page=2&api_key=[redacted]&sort=asc",
    );
    assert_eq!(
        redact_text("Server=db;User Id=sa;Password=hun ter2;Encrypt=true"),
        "Server=db;User Id=sa;Password=[redacted];Encrypt=true",
    );
}

#[test]
fn text_redacts_pem_blocks_and_tokens_in_the_middle() {
    let text =
        "key follows\n-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\n-----END PRIVATE KEY-----\ndone";
    assert_eq!(redact_text(text), "key follows\n[redacted]\ndone");
    assert_eq!(
        redact_text("pushed with ghp_1234567890abcdefghijABCDEFGHIJ123456, ok"),
        "pushed with [redacted], ok",
    );
    assert_eq!(
        redact_text("unterminated -----BEGIN RSA PRIVATE KEY-----\nMIIE"),
        "unterminated [redacted]",
    );
}

#[test]
fn text_with_unicode_tricks_in_names_is_redacted() {
    assert_eq!(
        redact_text("PASSW\u{41E}RD=hunter2"),
        "PASSW\u{41E}RD=[redacted]"
    );
    assert_eq!(
        redact_text("SE\u{200D}CRET: hunter2"),
        "SE\u{200D}CRET: [redacted]"
    );
}

#[test]
fn ordinary_text_and_code_are_borrowed_unchanged() {
    for text in [
        "listening on 0.0.0.0:8080, version 1.42.0",
        "if token == expected { return; }",
        "use tool_core::redact::is_secret_name;",
        "commit 9fceb02d0ae598e95dc970b74767f19372d61af8 by ada@example.com",
        "path: /usr/local/bin",
        "Привет, мир",
        "",
    ] {
        let shown = redact_text(text);
        assert!(
            matches!(shown, std::borrow::Cow::Borrowed(_)),
            "{text:?} became {shown:?}"
        );
    }
}

#[test]
fn json_redacts_by_key_and_by_shape() {
    let value = json!({
        "env": {"PATH": "/usr/bin", "DB_PWD": "hunter2", "NOTE": "AKIAIOSFODNN7EXAMPLE"},
        "sim": {"pin": 1234, "auth_enabled": true, "session": null},
        "credentials": {"user": "a", "value": "b"},
        "logs": ["ok", "connect postgres://u:pw@db/x failed"],
        "ghp_1234567890abcdefghijABCDEFGHIJ123456": 1,
        "count": 3,
    });
    assert_eq!(
        redact_json(&value),
        json!({
            "env": {"PATH": "/usr/bin", "DB_PWD": "[redacted]", "NOTE": "[redacted]"},
            "sim": {"pin": "[redacted]", "auth_enabled": true, "session": null},
            "credentials": "[redacted]",
            "logs": ["ok", "connect postgres://[redacted]@db/x failed"],
            "[redacted]": 1,
            "count": 3,
        }),
    );
}

#[test]
fn json_without_secrets_is_unchanged() {
    let value = json!({"name": "app", "version": "1.2.3", "ports": [80, 443], "debug": false});
    assert_eq!(redact_json(&value), value);
}

/// A secret and the part of it that must not survive redaction.
fn secrets() -> impl Strategy<Value = (String, String)> {
    let whole = |s: String| (s.clone(), s);
    prop_oneof![
        "ghp_[A-Za-z0-9]{36}".prop_map(whole),
        "github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}".prop_map(whole),
        "glpat-[A-Za-z0-9_-]{20}".prop_map(whole),
        "xox[bp]-[0-9]{10,12}-[0-9]{10,12}-[A-Za-z0-9]{24}".prop_map(whole),
        "(sk|rk)_live_[A-Za-z0-9]{24}".prop_map(whole),
        "sk-(proj-)?[A-Za-z0-9]{40}Ab1".prop_map(whole),
        "A(KIA|SIA)[A-Z0-9]{16}".prop_map(whole),
        "AIza[A-Za-z0-9_-]{35}".prop_map(whole),
        "npm_[A-Za-z0-9]{36}".prop_map(whole),
        "pypi-[A-Za-z0-9_-]{60}".prop_map(whole),
        "SG\\.[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{43}".prop_map(whole),
        "eyJ[A-Za-z0-9_-]{10,30}\\.eyJ[A-Za-z0-9_-]{10,40}\\.[A-Za-z0-9_-]{10,43}".prop_map(whole),
        "[A-Za-z0-9+/]{40}".prop_map(|body| (
            format!("-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----"),
            body,
        )),
        "[A-Za-z0-9]{12}"
            .prop_map(|password| (format!("postgres://app:{password}@db/app"), password)),
        "[A-Za-z0-9]{24}".prop_map(|tail| (
            format!("https://hooks.slack.com/services/T0/B0/{tail}"),
            tail
        )),
    ]
}

proptest! {
    #[test]
    fn a_known_secret_never_survives_redact_text(
        before in "(?s).{0,40}",
        (secret, core) in secrets(),
        after in "(?s).{0,40}",
    ) {
        let text = format!("{before}{secret}{after}");
        let shown = redact_text(&text);
        prop_assert!(!shown.contains(&core), "{text:?} became {shown:?}");
        // Nor does any long piece of it.
        for window in core.as_bytes().windows(12) {
            let piece = std::str::from_utf8(window).unwrap();
            prop_assert!(!shown.contains(piece), "{piece:?} of {text:?} survived in {shown:?}");
        }
    }

    #[test]
    fn redact_text_never_panics(text in "(?s).{0,200}") {
        let _ = redact_text(&text);
        let _ = looks_secret(&text);
        let _ = is_secret_name(&text);
    }
}

/// Found by the property above: a PEM block whose `-----BEGIN` follows
/// another dash was missed, as matches of `-----` do not overlap.
#[test]
fn a_pem_block_after_a_dash_is_redacted() {
    let text = "------BEGIN RSA PRIVATE KEY-----\nA+A00aaa0a/aAAaaaaaA++0aA0+aaAaA++AaaAAa\n------END RSA PRIVATE KEY-----";
    let redacted = tool_core::redact::redact_text(text);
    assert!(!redacted.contains("A+A00aaa0a"), "{redacted}");
}
