//! Text scopes: exact, or `*` over any run of characters.

/// A compiled text pattern.
pub(super) struct Pattern(Vec<char>);

impl Pattern {
    pub(super) fn compile(text: &str) -> Pattern {
        Pattern(text.chars().collect())
    }

    pub(super) fn admits(&self, value: &str) -> bool {
        // NUL never names anything a person meant; it only truncates later.
        !value.contains('\0') && super::wildcard(&self.0, value)
    }
}
