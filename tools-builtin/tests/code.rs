//! The `code` group: administrators only, reads stay inside the source
//! root, secrets never shown, dotfiles and key material read like missing
//! files.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::{ADMIN, CLARA, EVERYONE, NILS, PETRA, assert_no_secret, call_with, cx_on, text};
use serde_json::{Value, json};
use site_model::{MemorySite, NOT_FOUND};
use tool_core::{DataClass, Effect, ScopeKind};

/// A source root made for one test, removed when dropped.
struct TempRoot(PathBuf);

impl TempRoot {
    fn new() -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "tools-builtin-code-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(path.join("root")).unwrap();
        TempRoot(path)
    }

    /// The source root (inside the temporary folder, so a link can point
    /// next to it, outside the root).
    fn root(&self) -> PathBuf {
        self.0.join("root")
    }

    fn write(&self, relative: &str, contents: &str) {
        let path = self.0.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, contents).unwrap();
    }

    fn call(&self, tool: &str, arguments: Value) -> String {
        let site = MemorySite::demo().with_source_root(self.root());
        match call_with(tool, arguments, &cx_on(Arc::new(site), ADMIN)) {
            Ok(text) => text,
            Err(error) => error.model_text(),
        }
    }
}

impl Drop for TempRoot {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn symlink(target: &Path, link: &Path) {
    std::os::unix::fs::symlink(target, link).unwrap();
}

#[test]
fn the_code_tools_are_confidential_admin_read_tools() {
    let registry = common::registry();
    for tool in ["read_source", "search_code"] {
        let declaration = registry.get(tool).expect(tool).declaration();
        assert_eq!(declaration.group, tools_builtin::groups::CODE);
        assert_eq!(declaration.effect, Effect::Read);
        assert!(declaration.requires_admin, "{tool}");
        assert_eq!(declaration.data, DataClass::Confidential);
    }
    let scope = registry
        .get("read_source")
        .unwrap()
        .declaration()
        .scope
        .clone();
    let scope = scope.expect("read_source has a scoped path");
    assert_eq!(
        (scope.property.as_ref(), scope.kind),
        ("path", ScopeKind::Path)
    );
}

#[test]
fn read_source_shows_numbered_lines_of_a_file() {
    let output = text("read_source", json!({"path": "app/Cart.php"}), ADMIN);
    assert!(output.starts_with("app/Cart.php: lines 1-"), "{output}");
    assert!(output.contains("\n1: <?php\n"), "{output}");
    assert!(output.contains(": final class Cart"), "{output}");
    let part = text(
        "read_source",
        json!({"path": "app/Cart.php", "start": 3, "count": 2}),
        ADMIN,
    );
    let lines: Vec<_> = part.lines().collect();
    assert_eq!(lines.len(), 3, "{part}");
    assert!(
        lines[0].starts_with("app/Cart.php: lines 3-4 of "),
        "{part}"
    );
    assert!(lines[1].starts_with("3: "));
}

#[test]
fn read_source_caps_at_500_lines_and_reports_the_line_count() {
    let temp = TempRoot::new();
    let body: String = (1..=700).map(|n| format!("line {n}\n")).collect();
    temp.write("root/long.txt", &body);
    let default = temp.call("read_source", json!({"path": "long.txt"}));
    assert_eq!(default.lines().count(), 201);
    assert!(
        default.starts_with("long.txt: lines 1-200 of 700"),
        "{default}"
    );
    let over = temp.call("read_source", json!({"path": "long.txt", "count": 501}));
    assert_eq!(over.lines().count(), 501);
    assert!(over.starts_with("long.txt: lines 1-500 of 700"));
    assert!(over.ends_with("500: line 500"));
    let past = temp.call("read_source", json!({"path": "long.txt", "start": 701}));
    assert!(past.contains("the file has 700 lines"), "{past}");
}

#[test]
fn editors_are_denied_the_code_tools_neutrally() {
    for name in [PETRA, NILS, CLARA, "nobody"] {
        assert_eq!(
            text("read_source", json!({"path": "app/Cart.php"}), name),
            NOT_FOUND
        );
        assert_eq!(
            text("read_source", json!({"path": ".env"}), name),
            NOT_FOUND
        );
        assert_eq!(
            text("search_code", json!({"pattern": "Cart"}), name),
            NOT_FOUND
        );
    }
}

#[test]
fn unreadable_files_read_exactly_like_missing_ones() {
    let missing = text("read_source", json!({"path": "app/Nothing.php"}), ADMIN);
    assert_eq!(missing, NOT_FOUND);
    for path in [
        ".env",
        "config/private.pem",
        "config/.env",
        "nothing.txt",
        "../Cargo.toml",
        "../demo/site.json",
        "config/../.env",
        "/etc/passwd",
        "./app/Cart.php",
        "app//Cart.php",
        "app",
        "C:/x",
        "~/x",
    ] {
        assert_eq!(
            text("read_source", json!({"path": path}), ADMIN),
            missing,
            "{path}"
        );
    }
}

#[test]
fn read_source_follows_no_symbolic_link() {
    let temp = TempRoot::new();
    temp.write("outside/secret.txt", "OUTSIDE-THE-ROOT\n");
    temp.write("root/inside.txt", "inside\n");
    temp.write("root/.env", "API_TOKEN=DEMO-SECRET-appkey-Zm9vYmFyYmF6\n");
    temp.write("root/.git/config", "[core]\n");
    let root = temp.root();
    symlink(&temp.0.join("outside/secret.txt"), &root.join("escape.txt"));
    symlink(&temp.0.join("outside"), &root.join("escape-dir"));
    symlink(
        Path::new("../outside/secret.txt"),
        &root.join("relative.txt"),
    );
    symlink(Path::new(".env"), &root.join("notes.txt"));
    symlink(Path::new(".git"), &root.join("lib"));
    symlink(Path::new("inside.txt"), &root.join("alias.txt"));
    assert!(
        temp.call("read_source", json!({"path": "inside.txt"}))
            .contains("1: inside")
    );
    for path in [
        "escape.txt",
        "escape-dir/secret.txt",
        "relative.txt",
        "notes.txt",
        "lib/config",
        "alias.txt",
        "../outside/secret.txt",
    ] {
        let output = temp.call("read_source", json!({"path": path}));
        assert_eq!(output, NOT_FOUND, "{path}");
    }
    let search = temp.call("search_code", json!({"pattern": "OUTSIDE"}));
    assert!(search.contains("0 in total"), "{search}");
    let search = temp.call("search_code", json!({"pattern": "DEMO-SECRET"}));
    assert!(search.contains("0 in total"), "{search}");
    let search = temp.call("search_code", json!({"pattern": "core"}));
    assert!(search.contains("0 in total"), "{search}");
}

#[test]
fn no_demo_secret_is_shown_by_read_source() {
    for path in [
        "README.md",
        "app/Cart.php",
        "config/app.yaml",
        "public/js/menu.js",
    ] {
        let output = text("read_source", json!({"path": path}), ADMIN);
        assert!(!output.starts_with(NOT_FOUND), "{path}: {output}");
        assert_no_secret("read_source", &output);
    }
    for path in [".env", "config/private.pem"] {
        for name in EVERYONE {
            assert_no_secret(
                "read_source",
                &text("read_source", json!({"path": path}), name),
            );
        }
    }
}

#[test]
fn no_demo_secret_is_shown_by_search_code() {
    let mut patterns: Vec<&str> = site_model::demo::SECRETS.to_vec();
    patterns.extend([
        "DEMO-SECRET",
        "SECRET",
        "PRIVATE KEY",
        "APP_KEY",
        "AWS",
        "GITHUB_TOKEN",
        "ghp_",
        "DB_PASSWORD",
        "MIIE",
    ]);
    for name in EVERYONE {
        for pattern in &patterns {
            let output = text("search_code", json!({"pattern": pattern}), name);
            assert_no_secret("search_code", &output);
        }
        for regex in [".", ".*", "[A-Za-z0-9]{20,}", "="] {
            let output = text(
                "search_code",
                json!({"pattern": regex, "regex": true}),
                name,
            );
            assert_no_secret("search_code", &output);
            assert!(!output.contains(".env:"), "{output}");
            assert!(!output.contains("private.pem"), "{output}");
        }
    }
}

#[test]
fn credential_lines_in_ordinary_files_are_value_redacted() {
    let temp = TempRoot::new();
    temp.write(
        "root/config/settings.php",
        "<?php\n$db_password = 'DEMO-SECRET-envdb-83kd02';\nDB_PASSWORD=DEMO-SECRET-envdb-83kd02\n$port = 5432;\n",
    );
    let read = temp.call("read_source", json!({"path": "config/settings.php"}));
    assert_no_secret("read_source", &read);
    assert!(read.contains("3: DB_PASSWORD=[redacted]"), "{read}");
    assert!(read.contains("4: $port = 5432;"), "{read}");
    let search = temp.call(
        "search_code",
        json!({"pattern": "password", "ignore_case": true}),
    );
    assert_no_secret("search_code", &search);
    assert!(
        search.contains("config/settings.php:3: DB_PASSWORD=[redacted]"),
        "{search}"
    );
    assert!(search.contains("2 in total"), "{search}");
}

#[test]
fn search_code_finds_lines_as_path_line_text() {
    let output = text("search_code", json!({"pattern": "function add"}), ADMIN);
    assert!(output.starts_with("app/Cart.php:"), "{output}");
    assert!(
        output.contains(":15:     public function add(string $sku"),
        "{output}"
    );
    assert!(output.ends_with("matching lines: 1 in total"), "{output}");
    let root = site_model::demo::source_root();
    assert!(!output.contains(&*root.to_string_lossy()));
}

#[test]
fn search_code_is_literal_unless_regex_is_asked_for() {
    let temp = TempRoot::new();
    temp.write("root/a.txt", "abc\na.c\n100%\n");
    let literal = temp.call("search_code", json!({"pattern": "a.c"}));
    assert!(
        literal.contains("a.txt:2: a.c") && literal.contains("1 in total"),
        "{literal}"
    );
    let regex = temp.call("search_code", json!({"pattern": "a.c", "regex": true}));
    assert!(
        regex.contains("a.txt:1: abc") && regex.contains("2 in total"),
        "{regex}"
    );
    let invalid = temp.call("search_code", json!({"pattern": "(", "regex": true}));
    assert!(invalid.starts_with("not a valid pattern"), "{invalid}");
    let multi_line = temp.call("search_code", json!({"pattern": "abc\\na", "regex": true}));
    assert!(!multi_line.contains("a.txt:"), "{multi_line}");
}

#[test]
fn search_code_caps_at_50_lines_and_reports_the_total() {
    let temp = TempRoot::new();
    let body: String = (1..=40).map(|n| format!("needle {n}\n")).collect();
    temp.write("root/a.txt", &body);
    temp.write("root/b/b.txt", &body);
    let output = temp.call("search_code", json!({"pattern": "needle"}));
    let lines: Vec<_> = output.lines().collect();
    assert_eq!(lines.len(), 51, "{output}");
    assert_eq!(lines[0], "a.txt:1: needle 1");
    assert_eq!(lines[49], "b/b.txt:10: needle 10");
    assert_eq!(
        lines[50],
        "matching lines: showing 50 of 80; narrow the query to see the rest"
    );
}

#[test]
fn search_code_skips_dependency_build_and_dot_folders() {
    let temp = TempRoot::new();
    temp.write("root/src/own.php", "needle\n");
    for folder in [
        "vendor",
        "node_modules",
        "target",
        "build",
        "dist",
        ".git",
        ".cache",
    ] {
        temp.write(&format!("root/{folder}/x.php"), "needle\n");
        temp.write(&format!("root/src/{folder}/y.php"), "needle\n");
    }
    temp.write("root/keys/server.key", "needle\n");
    temp.write("root/credentials.json", "needle\n");
    temp.write("root/binary.bin", "needle\0\n");
    let output = temp.call("search_code", json!({"pattern": "needle"}));
    assert_eq!(output, "src/own.php:1: needle\nmatching lines: 1 in total");
}
