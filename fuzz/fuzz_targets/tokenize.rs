//! `tokenize` on any text: it must not panic, and every position it reports
//! must lie within the text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_core::skills::tokenize;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (patterns, diagnostics) = tokenize(text);
    let lines = text.split('\n').count();
    let positions = patterns
        .iter()
        .map(|p| p.position)
        .chain(diagnostics.iter().map(|d| d.position));
    for position in positions {
        assert!(position.line >= 1 && position.line <= lines, "{position:?}");
        assert!(position.column >= 1, "{position:?}");
    }
    // Writing a pattern back and reading it again gives the same pattern.
    for pattern in &patterns {
        let written = pattern.to_string();
        let (again, _) = tokenize(&written);
        assert_eq!(again.len(), 1, "{written:?}");
        assert_eq!(again[0].target, pattern.target, "{written:?}");
        assert_eq!(again[0].scope, pattern.scope, "{written:?}");
    }
});
