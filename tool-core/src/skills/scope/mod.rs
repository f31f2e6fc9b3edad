//! Scoped grants: which values of a tool's scope argument a pattern admits.
//!
//! A pattern is read by the kind of argument the tool declares
//! (`#[tool(scope(path = "file"))]`), never by guessing from the pattern's
//! text (docs/scopes.md):
//!
//! - [`ScopeKind::Command`]: one simple command, matched word by word;
//!   `git diff:*` admits `git diff` and `git diff --stat`, never
//!   `git diffx` or `git diff; rm -rf ~`;
//! - [`ScopeKind::Path`]: a relative path, `*` within one segment and `**`
//!   across segments; absolute paths, drive letters, backslashes, NUL and
//!   `.`/`..` segments are never admitted;
//! - [`ScopeKind::Text`]: exact, or `*` wildcards over the whole value.
//!
//! A pattern is compiled once, on its first use, and kept with it: a grant
//! holds its patterns, so a run compiles each once, not at every call.

mod command;
mod path;
mod text;

use std::cmp::Ordering;
use std::hash::{Hash, Hasher};
use std::sync::OnceLock;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::ScopeKind;

/// The text of one scope, as written between the parentheses (unescaped,
/// trimmed). Never `*`: `Tool(*)` is the whole tool and has no scope.
pub struct ScopePattern {
    text: String,
    compiled: OnceLock<Matcher>,
}

impl ScopePattern {
    /// A scope pattern from its text.
    pub fn new(text: impl Into<String>) -> Self {
        ScopePattern {
            text: text.into(),
            compiled: OnceLock::new(),
        }
    }

    /// The text as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether a call whose scope argument, of kind `kind`, is `value`
    /// falls within this scope.
    pub fn admits(&self, kind: ScopeKind, value: &str) -> bool {
        let matcher = self
            .compiled
            .get_or_init(|| Matcher::compile(kind, &self.text));
        if matcher.kind() == kind {
            matcher.admits(value)
        } else {
            // One pattern serves one tool, so one kind; a second kind is
            // compiled afresh rather than read with the wrong rules.
            Matcher::compile(kind, &self.text).admits(value)
        }
    }

    /// Why this pattern can never admit a value of `kind`, if it cannot
    /// (an absolute path pattern, a command pattern with an operator).
    pub fn problem(&self, kind: ScopeKind) -> Option<&'static str> {
        match kind {
            ScopeKind::Command => command::Pattern::compile(&self.text).err(),
            ScopeKind::Path => path::Pattern::compile(&self.text).err(),
            _ => None,
        }
    }
}

/// A pattern compiled for one kind of argument.
enum Matcher {
    Command(Result<command::Pattern, &'static str>),
    Path(Result<path::Pattern, &'static str>),
    Text(text::Pattern),
}

impl Matcher {
    fn compile(kind: ScopeKind, text: &str) -> Matcher {
        match kind {
            ScopeKind::Command => Matcher::Command(command::Pattern::compile(text)),
            ScopeKind::Path => Matcher::Path(path::Pattern::compile(text)),
            ScopeKind::Text => Matcher::Text(text::Pattern::compile(text)),
        }
    }

    fn kind(&self) -> ScopeKind {
        match self {
            Matcher::Command(_) => ScopeKind::Command,
            Matcher::Path(_) => ScopeKind::Path,
            Matcher::Text(_) => ScopeKind::Text,
        }
    }

    /// A pattern that cannot be compiled admits nothing: a broken grant
    /// narrows, never widens.
    fn admits(&self, value: &str) -> bool {
        match self {
            Matcher::Command(pattern) => pattern.as_ref().is_ok_and(|p| p.admits(value)),
            Matcher::Path(pattern) => pattern.as_ref().is_ok_and(|p| p.admits(value)),
            Matcher::Text(pattern) => pattern.admits(value),
        }
    }
}

impl Clone for ScopePattern {
    fn clone(&self) -> Self {
        ScopePattern::new(self.text.clone())
    }
}

impl std::fmt::Debug for ScopePattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("ScopePattern").field(&self.text).finish()
    }
}

impl PartialEq for ScopePattern {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl Eq for ScopePattern {}

impl PartialOrd for ScopePattern {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for ScopePattern {
    fn cmp(&self, other: &Self) -> Ordering {
        self.text.cmp(&other.text)
    }
}

impl Hash for ScopePattern {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.text.hash(state);
    }
}

impl Serialize for ScopePattern {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.text.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ScopePattern {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(ScopePattern::new)
    }
}

/// `*` matches any run of characters; every other character matches itself.
/// Linear backtracking on the last `*`, so no pattern takes exponential time.
/// Walks the value in place (byte offsets of its characters): a gated call
/// of a scoped tool allocates nothing here.
fn wildcard(pattern: &[char], value: &str) -> bool {
    let p = pattern;
    let (mut pi, mut vi) = (0, 0);
    // The last `*` seen, and the offset in the value it was tried from.
    let mut star: Option<(usize, usize)> = None;
    while let Some(c) = value[vi..].chars().next() {
        match p.get(pi) {
            Some('*') => {
                star = Some((pi, vi));
                pi += 1;
            }
            Some(expected) if *expected == c => {
                pi += 1;
                vi += c.len_utf8();
            }
            _ => match star {
                Some((sp, sv)) => {
                    // Let that `*` take one more character and retry.
                    let taken = value[sv..].chars().next().map_or(1, char::len_utf8);
                    pi = sp + 1;
                    vi = sv + taken;
                    star = Some((sp, vi));
                }
                None => return false,
            },
        }
    }
    p.get(pi..)
        .is_some_and(|rest| rest.iter().all(|c| *c == '*'))
}
