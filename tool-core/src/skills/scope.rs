//! Scoped grants: which values of a tool's `scope` argument a pattern admits.
//!
//! The forms, tried in this order (DESIGN.md, "`allowed-tools`"):
//!
//! - `prefix:*`: the value equals the prefix, or is the prefix, a space and
//!   more (`git diff:*` admits `git diff` and `git diff --stat`, not `git diffx`);
//! - a path (a `/` and no white space): gitignore style, `*` within one
//!   segment and `**` across segments, the value normalised first;
//! - a pattern with `*`: each `*` stands for any text, across the whole value;
//! - anything else: the exact value.

use globset::{GlobBuilder, GlobMatcher};
use serde::{Deserialize, Serialize};

/// The text of one scope, as written between the parentheses (unescaped,
/// trimmed). Never `*`: `Tool(*)` is the whole tool and has no scope.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ScopePattern(String);

impl ScopePattern {
    /// A scope pattern from its text.
    pub fn new(text: impl Into<String>) -> Self {
        ScopePattern(text.into())
    }

    /// The text as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether a call whose scoped argument is `value` falls within this scope.
    pub fn admits(&self, value: &str) -> bool {
        let pattern = self.0.as_str();
        if let Some(prefix) = pattern.strip_suffix(":*") {
            return wildcard(prefix, value) || wildcard(&format!("{prefix} *"), value);
        }
        if is_path_pattern(pattern) {
            return path_admits(pattern, value);
        }
        wildcard(pattern, value)
    }
}

fn is_path_pattern(pattern: &str) -> bool {
    pattern.contains('/') && !pattern.chars().any(char::is_whitespace)
}

/// `*` matches any run of characters, `/` and spaces included; every other
/// character matches itself. Linear backtracking on the last `*`, so no
/// pattern can take exponential time.
fn wildcard(pattern: &str, value: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let v: Vec<char> = value.chars().collect();
    let (mut pi, mut vi) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while vi < v.len() {
        match p.get(pi) {
            Some('*') => {
                star = Some((pi, vi));
                pi += 1;
            }
            Some(c) if *c == v[vi] => {
                pi += 1;
                vi += 1;
            }
            _ => match star {
                Some((sp, sv)) => {
                    pi = sp + 1;
                    vi = sv + 1;
                    star = Some((sp, sv + 1));
                }
                None => return false,
            },
        }
    }
    p.get(pi..)
        .is_some_and(|rest| rest.iter().all(|c| *c == '*'))
}

fn path_admits(pattern: &str, value: &str) -> bool {
    let Some(value) = normalise_value(value) else {
        return false;
    };
    // A pattern globset refuses grants nothing rather than failing the call.
    compile_path(pattern).is_some_and(|m| m.is_match(value))
}

fn compile_path(pattern: &str) -> Option<GlobMatcher> {
    let mut escaped = String::with_capacity(pattern.len());
    let absolute = pattern.starts_with('/');
    let segments: Vec<&str> = pattern
        .split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect();
    if absolute {
        escaped.push('/');
    }
    for (n, segment) in segments.iter().enumerate() {
        if n > 0 {
            escaped.push('/');
        }
        // Only `*` and `**` are wildcards in a scope; `?`, `[` and `{` are text.
        for c in segment.chars() {
            if matches!(c, '?' | '[' | ']' | '{' | '}' | '\\') {
                escaped.push('\\');
            }
            escaped.push(c);
        }
    }
    GlobBuilder::new(&escaped)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .ok()
        .map(|g| g.compile_matcher())
}

/// Resolves `.` and `..` lexically. A value that climbs above where it starts
/// is refused (`None`), so `..` can never carry a value out of a pattern's base.
fn normalise_value(value: &str) -> Option<String> {
    let mut kept: Vec<&str> = Vec::new();
    for segment in value.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                kept.pop()?;
            }
            s => kept.push(s),
        }
    }
    let joined = kept.join("/");
    Some(if value.starts_with('/') {
        format!("/{joined}")
    } else {
        joined
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcard_basics() {
        assert!(wildcard("a*c", "abbbc"));
        assert!(wildcard("*", ""));
        assert!(!wildcard("a*c", "abbb"));
        assert!(wildcard("**", "x/y"));
    }

    #[test]
    fn normalise_refuses_climbing() {
        assert_eq!(normalise_value("a/./b/../c"), Some("a/c".to_owned()));
        assert_eq!(normalise_value("a/../../c"), None);
        assert_eq!(normalise_value("/tmp//x"), Some("/tmp/x".to_owned()));
    }
}
