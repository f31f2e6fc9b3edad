//! Which files under the source root the code tools never read, whatever
//! an administrator asks: they read like files that do not exist.

/// File-name endings of key material and credential stores.
const SECRET_SUFFIXES: &[&str] = &[
    ".pem",
    ".key",
    ".p12",
    ".pfx",
    ".jks",
    ".keystore",
    ".der",
    ".p8",
    ".gpg",
    ".pgp",
    ".kdbx",
    ".ppk",
    ".secret",
    ".secrets",
    ".tfstate",
    ".tfvars",
];

/// File-name beginnings of private keys and credential files.
const SECRET_PREFIXES: &[&str] = &[
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    "credentials",
    "secrets.",
    "htpasswd",
    "service-account",
    "service_account",
];

/// Whole file names that hold credentials.
const SECRET_NAMES: &[&str] = &["auth.json", "known_hosts", "authorized_keys", "shadow"];

/// Whether the code tools refuse `path` (a relative path, `/`-separated):
/// any segment that starts with `.` (`.env`, `.git/…`, `.ssh/…`), key
/// material (`*.pem`, `*.key`, `id_rsa*`, `*.p12`, …) and credential files
/// (`credentials*`, `*.secret`, `secrets.*`, `auth.json`, …). Compared
/// without regard to case.
pub fn is_unreadable(path: &str) -> bool {
    let mut segments = path.split('/');
    if segments.clone().any(|segment| segment.starts_with('.')) {
        return true;
    }
    let name = segments.next_back().unwrap_or("").to_lowercase();
    SECRET_SUFFIXES.iter().any(|suffix| name.ends_with(suffix))
        || SECRET_PREFIXES
            .iter()
            .any(|prefix| name.starts_with(prefix))
        || SECRET_NAMES.contains(&name.as_str())
}

/// Whether a folder is skipped by `search_code`: dependencies and build
/// output, which are not the site's own code and drown real matches.
pub fn is_skipped_folder(name: &str) -> bool {
    name.starts_with('.')
        || matches!(
            name,
            "vendor" | "node_modules" | "target" | "build" | "dist" | "bower_components"
        )
}

/// The segments of a clean relative path, or `None`: not empty, no leading
/// `/` or `~`, no drive letter, no backslash or control character, no
/// empty, `.` or `..` segment (the rules of a scoped path argument).
pub(super) fn clean_segments(path: &str) -> Option<Vec<&str>> {
    let bytes = path.as_bytes();
    let refused = path.is_empty()
        || path.starts_with('/')
        || path.starts_with('~')
        || (bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':')
        || path.chars().any(|c| c == '\\' || c.is_control());
    if refused {
        return None;
    }
    let segments: Vec<&str> = path.split('/').collect();
    segments
        .iter()
        .all(|s| !s.is_empty() && *s != "." && *s != "..")
        .then_some(segments)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dotfiles_keys_and_credentials_are_unreadable() {
        for path in [
            ".env",
            ".env.local",
            "config/.htpasswd",
            ".git/config",
            "config/private.pem",
            "certs/SERVER.KEY",
            "keys/id_rsa",
            "keys/id_ed25519.pub",
            "store.p12",
            "config/credentials.json",
            "app/db.secret",
            "config/secrets.yaml",
            "auth.json",
        ] {
            assert!(is_unreadable(path), "{path}");
        }
        for path in [
            "README.md",
            "app/Cart.php",
            "config/app.yaml",
            "keyboard.js",
            "monkey.txt",
        ] {
            assert!(!is_unreadable(path), "{path}");
        }
    }

    #[test]
    fn only_clean_relative_paths_pass() {
        assert_eq!(
            clean_segments("app/Cart.php"),
            Some(vec!["app", "Cart.php"])
        );
        for path in [
            "",
            "/etc/passwd",
            "../x",
            "a/../b",
            "a//b",
            "./a",
            "~/x",
            "C:x",
            "a\\b",
            "a\0b",
        ] {
            assert_eq!(clean_segments(path), None, "{path:?}");
        }
    }
}
