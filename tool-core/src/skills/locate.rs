//! Positions in the file of places found in a value: what the
//! `allowed-tools` tokenizer reports its diagnostics at. Kept apart from the
//! YAML reader so the tokenizer builds without it (feature `skills`).

use crate::skills::diagnostic::Position;

/// Turns a place in some value into a position in the file.
pub(crate) trait Locate {
    /// `at` is the place in the value, counted from its own start (line 1,
    /// column 1), and `snippet` the text found there; a locator that cannot
    /// map places exactly looks for its first characters in the source
    /// instead. Places are located left to right.
    fn locate(&mut self, at: Position, snippet: &str) -> Position;
}

/// Positions inside a string that stands alone: line 1 is its first line,
/// so a place in it is its position.
pub(crate) struct StringLocator;

impl Locate for StringLocator {
    fn locate(&mut self, at: Position, _snippet: &str) -> Position {
        at
    }
}
