//! Command scopes: one simple command, matched word by word.
//!
//! The value is refused outright, whatever the pattern, when it holds any
//! character a shell gives a meaning beyond "word": control operators
//! (`;` `&` `|`, newlines), substitutions and expansions (`$`, backticks),
//! redirections (`<` `>`), grouping (`(` `)` `{` `}`), or any other control
//! character. This is stricter than a shell (a `;` inside quotes is refused
//! too): a false refusal costs one call, a false admission runs a second
//! command. What is left is split into words by `shlex` (POSIX quoting),
//! which refuses unbalanced quotes.

/// Characters that make a value more than one simple command.
const FORBIDDEN: &[char] = &[
    ';', '&', '|', '<', '>', '$', '`', '(', ')', '{', '}', '\n', '\r',
];

/// A compiled command pattern: its words, each with `*` wildcards inside
/// the word, and whether further words may follow (`:*`).
pub(super) struct Pattern {
    words: Vec<Vec<char>>,
    open_ended: bool,
}

impl Pattern {
    pub(super) fn compile(text: &str) -> Result<Pattern, &'static str> {
        let (words, open_ended) = match text.strip_suffix(":*") {
            Some(prefix) => (prefix, true),
            None => (text, false),
        };
        let words = split(words).ok_or(
            "a command pattern must be one simple command: no operators, substitutions, redirections or unbalanced quotes",
        )?;
        if words.is_empty() && !open_ended {
            return Err("a command pattern needs at least one word");
        }
        Ok(Pattern {
            words: words.iter().map(|w| w.chars().collect()).collect(),
            open_ended,
        })
    }

    pub(super) fn admits(&self, value: &str) -> bool {
        let Some(words) = split(value) else {
            return false;
        };
        let fixed = self.words.len();
        let count_ok = if self.open_ended {
            words.len() >= fixed
        } else {
            words.len() == fixed
        };
        count_ok
            && self
                .words
                .iter()
                .zip(&words)
                .all(|(pattern, word)| super::wildcard(pattern, word))
    }
}

/// The words of one simple command, or `None` when the text is anything
/// else.
fn split(text: &str) -> Option<Vec<String>> {
    let refused = text
        .chars()
        .any(|c| FORBIDDEN.contains(&c) || (c.is_control() && c != '\t'));
    if refused {
        return None;
    }
    shlex::split(text)
}
