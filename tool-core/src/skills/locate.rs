//! Positions in the file of places found in a value: what the
//! `allowed-tools` tokenizer reports its diagnostics at. Kept apart from the
//! YAML reader so the tokenizer builds without it (feature `skills`).

use crate::skills::diagnostic::Position;

/// Turns a byte offset in some value into a position in the file.
pub(crate) trait Locate {
    /// `snippet` is the text found at `offset` in the value; a locator that
    /// cannot map offsets exactly looks for it in the source instead.
    fn locate(&mut self, offset: usize, snippet: &str) -> Position;
}

/// Positions inside a string that stands alone: line 1 is its first line.
pub(crate) struct StringLocator<'a> {
    text: &'a str,
    last: (usize, Position),
}

impl<'a> StringLocator<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        StringLocator {
            text,
            last: (0, Position::START),
        }
    }
}

impl Locate for StringLocator<'_> {
    fn locate(&mut self, offset: usize, _snippet: &str) -> Position {
        advance_from(self.text, Position::START, &mut self.last, offset)
    }
}

/// Counts from the last place located when it lies before `offset`, so a
/// left-to-right pass costs linear time however many tokens it has.
pub(crate) fn advance_from(
    text: &str,
    start: Position,
    last: &mut (usize, Position),
    offset: usize,
) -> Position {
    let (from, from_position) = if last.0 <= offset { *last } else { (0, start) };
    let position = match text.get(from..offset) {
        Some(between) => advance(from_position, between),
        None => start,
    };
    *last = (offset, position);
    position
}

/// The position after `text` when it starts at `from`. One pass over the
/// bytes: a `\n` starts a line, and every byte that does not continue a
/// UTF-8 character is one more column (columns count characters).
fn advance(from: Position, text: &str) -> Position {
    let mut position = from;
    for &b in text.as_bytes() {
        if b == b'\n' {
            position.line += 1;
            position.column = 1;
        } else if b & 0xC0 != 0x80 {
            position.column += 1;
        }
    }
    position
}
