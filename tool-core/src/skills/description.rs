//! Whether a `description` routes: it is what a model reads to decide
//! whether to use a skill, so it should open with what the skill does, say
//! when to use it, and be at least a sentence long. These are warnings: the
//! skill still works, but a model may pass it over or pick it wrongly.
//!
//! The rules were tuned on the corpus of real skill files that the tests
//! load; `docs/skills-descriptions.md` records what they flag there.

use crate::skills::diagnostic::{Code, Diagnostic, Position};

/// Fewer words than this cannot hold both what a skill does and when to
/// use it; the shortest real description that holds both has 13.
pub(crate) const MIN_DESCRIPTION_WORDS: usize = 8;

/// Opening words that say when (or whether) to use the skill rather than
/// what it does: `Use when …`, `When the user …`, `Before editing …`.
const WHEN_OPENERS: &[&str] = &[
    "use",
    "used",
    "when",
    "whenever",
    "if",
    "before",
    "after",
    "invoke",
    "trigger",
    "triggers",
    "activate",
    "activates",
];

/// Verbs that, followed closely by one of [`WHEN_LINKS`], make a when
/// clause: `Use when`, `Use this skill for`, `Activates after`, `Load at`.
const WHEN_VERBS: &[&str] = &[
    "use",
    "used",
    "invoke",
    "invoked",
    "activate",
    "activates",
    "trigger",
    "triggers",
    "triggered",
    "load",
];

const WHEN_LINKS: &[&str] = &[
    "when", "whenever", "before", "after", "for", "if", "to", "on", "during", "at", "in",
];

/// How many words after a verb of [`WHEN_VERBS`] its link may come:
/// `Use this skill proactively when` reaches it.
const LINK_REACH: usize = 4;

/// Checks a non-empty description written at `at`. A description mostly in
/// a script other than Latin is not checked: the rules read English.
pub(crate) fn check_description(text: &str, at: Position) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    if !mostly_latin(text) {
        return found;
    }
    let words: Vec<(&str, usize)> = words(text).collect();
    if opens_with_when(&words) {
        found.push(Diagnostic::new(
            Code::DescriptionOpensWithoutWhat,
            at,
            "`description` opens with when to use the skill, not with what it does, and the \
             opening is what a model reads first: start with what the skill does (`Reviews \
             diffs for security bugs.`), then say when (`Use when …`)",
        ));
    }
    if !says_when(text, &words) {
        found.push(Diagnostic::new(
            Code::DescriptionWithoutWhen,
            at,
            "`description` never says when to use the skill, so a model cannot tell when to \
             pick it: add a clause such as `Use when the user asks to …`, `Use before …` or \
             `Use for …`",
        ));
    }
    let count = text.split_whitespace().count();
    if count < MIN_DESCRIPTION_WORDS {
        found.push(Diagnostic::new(
            Code::DescriptionTooShort,
            at,
            format!(
                "`description` has {count} word(s), fewer than a useful sentence \
                 ({MIN_DESCRIPTION_WORDS}): say what the skill does and when to use it, as in \
                 `Reviews diffs for security bugs. Use when a change touches authentication.`"
            ),
        ));
    }
    found
}

/// At least four in five letters are ASCII.
fn mostly_latin(text: &str) -> bool {
    let (mut letters, mut ascii) = (0usize, 0usize);
    for c in text.chars().filter(|c| c.is_alphabetic()) {
        letters += 1;
        ascii += usize::from(c.is_ascii());
    }
    ascii * 5 >= letters * 4
}

/// The words of `text` (letters, digits and `'`), each with the byte offset
/// just past it.
fn words(text: &str) -> impl Iterator<Item = (&str, usize)> {
    let is_word = |c: char| c.is_alphanumeric() || c == '\'';
    text.char_indices()
        .filter(move |&(i, c)| is_word(c) && !text[..i].ends_with(is_word))
        .map(move |(start, _)| {
            let end = text[start..]
                .find(|c: char| !is_word(c))
                .map_or(text.len(), |n| start + n);
            (&text[start..end], end)
        })
}

fn is_one_of(word: &str, list: &[&str]) -> bool {
    list.iter().any(|w| w.eq_ignore_ascii_case(word))
}

fn opens_with_when(words: &[(&str, usize)]) -> bool {
    let w = |i: usize| words.get(i).map_or("", |(w, _)| *w);
    let is = |i: usize, word: &str| w(i).eq_ignore_ascii_case(word);
    is_one_of(w(0), WHEN_OPENERS)
        // `This skill should be used when …`, `This skill is used for …`
        || (is(0, "this")
            && is(1, "skill")
            && ((is(2, "should") || is(2, "must")) && is(3, "be") && is(4, "used")
                || is(2, "is") && is(3, "used")))
        // `You MUST use this before …`
        || (is(0, "you") && (is(1, "must") || is(1, "should")))
        || ((is(0, "only") || is(0, "always")) && is(1, "use"))
}

fn says_when(text: &str, words: &[(&str, usize)]) -> bool {
    let opens_with_condition = words
        .first()
        .is_some_and(|(w, _)| is_one_of(w, &["before", "if", "after"]));
    opens_with_condition
        || words.iter().enumerate().any(|(i, (word, end))| {
            is_one_of(word, &["when", "whenever"])
                || (is_one_of(word, WHEN_VERBS)
                    && words[i + 1..]
                        .iter()
                        .take(LINK_REACH)
                        .any(|(w, _)| is_one_of(w, WHEN_LINKS)))
                // A label: `TRIGGERS - create plugin`, `Triggers: trailmark summary`.
                || (is_one_of(word, &["trigger", "triggers"])
                    && text[*end..]
                        .trim_start()
                        .starts_with([':', '-', '—', '–']))
        })
}
