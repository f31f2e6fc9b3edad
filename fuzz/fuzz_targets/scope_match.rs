//! Scope matching of any pattern against any value, by every kind: it must
//! not panic, and what it admits must keep each kind's promise.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_core::ScopeKind;
use tool_core::skills::ScopePattern;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (pattern, value) = text.split_once('\n').unwrap_or((text, ""));
    let pattern = ScopePattern::new(pattern);
    if pattern.admits(ScopeKind::Command, value) {
        // One simple command: no operator, substitution or redirection.
        for c in [';', '&', '|', '$', '`', '<', '>', '(', ')', '\n', '\r', '\0'] {
            assert!(!value.contains(c), "command admitted {value:?}");
        }
    }
    if pattern.admits(ScopeKind::Path, value) {
        // A clean relative path: it cannot climb or be absolute.
        assert!(!value.starts_with('/') && !value.starts_with('~'), "{value:?}");
        assert!(!value.contains('\\') && !value.contains('\0'), "{value:?}");
        assert!(
            value.split('/').all(|s| !s.is_empty() && s != "." && s != ".."),
            "path admitted {value:?}"
        );
    }
    let _ = pattern.admits(ScopeKind::Text, value);
});
