//! `read_skill` on any text: it must not panic (ARCHITECTURE.md, "Invariants":
//! bad input is a diagnostic, never a panic), and a report without a manifest carries an error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_core::skills::read_skill;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let report = read_skill(text, "fuzz");
    if report.manifest.is_none() {
        assert!(report.diagnostics.iter().any(|d| d.is_error()));
    }
    for d in &report.diagnostics {
        assert!(d.position.line >= 1 && d.position.column >= 1, "{d:?}");
    }
});
