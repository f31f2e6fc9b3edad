//! `tokenize` against a frozen copy of the tokenizer it replaced
//! (`tokenizer_reference/`): for every input, the same patterns, the same
//! diagnostics (code, message and position) in the same order. The rewrite
//! was for speed only (BENCHMARKS.md, "Skills: tokenizer"), so any difference
//! is a bug in it.

mod tokenizer_reference;

use proptest::prelude::*;
use tool_core::skills::tokenize;

/// Characters the tokenizer treats specially, and multi-byte ones that move
/// columns differently from bytes (`é`, an emoji) or separate tokens
/// (no-break space, line separator, ideographic space, next line).
fn tricky_text() -> impl Strategy<Value = String> {
    "[A-Za-z_:*()\\\\,. \t\r\n\u{b}\u{c}é😀\u{a0}\u{2028}\u{3000}\u{85}-]{0,120}"
}

/// A tool name, well-formed or not: MCP names with empty, doubled or
/// wildcard parts, stars, backslashes, non-ASCII letters, long names.
fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        "(Read|Bash|Write|Edit|Grep|WebFetch|mcp__srv|mcp__srv__\\*|mcp__srv__two|mcp__files___read|mcp____x|mcp__a____b|mcp__)",
        "[A-Za-z_.*\\\\é😀-]{0,24}",
        "mcp__[a-z_]{0,6}(__[a-z_*]{0,6})?",
        Just(String::new()),
    ]
}

/// What may follow a name: nothing, a scope (nested, escaped, spread over
/// lines, empty, `*`, unterminated) or stray text after it.
fn tail() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        "\\((git diff:\\*|\\*| \\* |src/\\*\\*| |echo \\(a b\\) c|x\\\\\\)|a\\\\\\\\|é y|a\nb)\\)",
        "\\([a-z \\\\()\n*é]{0,16}\\)?[a-z),(]?",
        "\\)[a-z]{0,3}",
    ]
}

/// A separator run: spaces, commas, line breaks, Unicode spaces.
fn separator() -> impl Strategy<Value = String> {
    "[ ,\t\r\n\u{a0}\u{3000}]{1,3}"
}

/// Fields of well-formed and malformed tokens; long enough, with repeats, to
/// cross from the duplicate check's scan to its hash index.
fn tokens() -> impl Strategy<Value = String> {
    proptest::collection::vec((name(), tail(), separator()), 0..40).prop_map(|parts| {
        parts
            .into_iter()
            .map(|(name, tail, separator)| format!("{name}{tail}{separator}"))
            .collect()
    })
}

fn same_as_reference(text: &str) -> Result<(), TestCaseError> {
    let (patterns, diagnostics) = tokenize(text);
    let (old_patterns, old_diagnostics) = tokenizer_reference::tokenize(text);
    prop_assert_eq!(patterns, old_patterns, "patterns of {:?}", text);
    prop_assert_eq!(diagnostics, old_diagnostics, "diagnostics of {:?}", text);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    fn any_text_tokenizes_as_before(text in any::<String>()) {
        same_as_reference(&text)?;
    }

    #[test]
    fn tricky_text_tokenizes_as_before(text in tricky_text()) {
        same_as_reference(&text)?;
    }
}

proptest! {
    // Fewer cases: each is a field of up to 40 generated tokens.
    #![proptest_config(ProptestConfig::with_cases(4_000))]

    #[test]
    fn token_lists_tokenize_as_before(text in tokens()) {
        same_as_reference(&text)?;
    }
}

/// Fields that reach every diagnostic and both duplicate checks.
#[test]
fn known_fields_tokenize_as_before() {
    let many: String = (0..40)
        .map(|n| format!("T{} Bash(x{}) ", n % 25, n % 7))
        .collect();
    for text in [
        "",
        "Read Grep Bash(git diff:*)",
        "Read, Grep,\nBash(git log:*)",
        "Bash(echo (a b) c) Bash(x\\)) Bash(a\\\\) Bash(a\\(b)",
        "Bash(x\\) Read",
        "Bash(x",
        "(x) ) Read) Bash(x)y Bash(x)) Bash()",
        "mcp__srv__* mcp__srv(x) mcp__srv__*(x) mcp__ mcp____x mcp__a____b",
        "Re*ad Re\\ad Re#ad é😀(x) Read Read Bash(*) Bash Bash( * )",
        "Read\u{a0}Grep\u{3000}Bash(a\u{2028}b)\u{85}Write",
        "Read\r\n  Grep\n\n\tBash(a\nb)\n  Write",
        &many,
    ] {
        let old = tokenizer_reference::tokenize(text);
        assert_eq!(tokenize(text), old, "{text:?}");
    }
}
