//! The scanning pass of the `allowed-tools` tokenizer: splits the text into
//! tokens (a name and what follows it) and keeps the line and column of the
//! place it has reached as it goes, so no place is searched for or counted
//! again afterwards.
//!
//! It works on bytes: separators, parentheses, backslashes and name
//! characters are ASCII, and no byte of a multi-byte UTF-8 character is, so
//! every offset it stops at is a char boundary. A table classifies each ASCII
//! byte; only a non-ASCII character is decoded, because a few of them are
//! white space and separate tokens.

use std::borrow::Cow;

use crate::skills::diagnostic::Position;

/// A letter, digit, `_`, `-` or `.`: may appear in a tool name.
const NAME: u8 = 0;
/// An ASCII separator (white space or `,`) or a parenthesis: ends a name.
const BREAK: u8 = 1;
/// Any other ASCII character.
const OTHER: u8 = 2;
/// A byte of a multi-byte character.
const WIDE: u8 = 3;

/// The class of every byte.
static CLASS: [u8; 256] = classes();

/// The bytes a scope's scan must look at: `(`, `)`, `\`, a line break, and
/// every byte of a multi-byte character (columns count characters, not
/// bytes). Every other byte is stepped over with one table lookup.
static IN_SCOPE: [bool; 256] = scope_bytes();

const fn scope_bytes() -> [bool; 256] {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = b >= 0x80 || matches!(b as u8, b'(' | b')' | b'\\' | b'\n');
        b += 1;
    }
    table
}

const fn classes() -> [u8; 256] {
    let mut table = [WIDE; 256];
    let mut b = 0;
    while b < 0x80 {
        table[b as usize] = match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' | b'-' | b'.' => NAME,
            // The ASCII characters `char::is_whitespace` accepts, and `,`.
            b'\t'..=b'\r' | b' ' | b',' | b'(' | b')' => BREAK,
            _ => OTHER,
        };
        b += 1;
    }
    table
}

/// White space or a comma: what separates tokens.
fn is_separator(c: char) -> bool {
    c.is_whitespace() || c == ','
}

/// About how many tokens `text` holds, to allocate their list once: one
/// more than its spaces, commas and line breaks. That is more than the
/// tokens when they are separated by `, ` or a scope holds spaces, and it is
/// capped so that a field of nothing but spaces allocates little.
pub(super) fn expected_tokens(text: &str) -> usize {
    // Counted in byte-sized sums over blocks of at most 255 bytes, which the
    // compiler turns into vector instructions (a sum per byte does not).
    let separators: usize = text
        .as_bytes()
        .chunks(255)
        .map(|block| {
            let count = block.iter().fold(0u8, |count, &b| {
                count + u8::from((b == b' ') | (b == b',') | (b == b'\n'))
            });
            usize::from(count)
        })
        .sum();
    (separators + 1).min(64)
}

/// One token: a name (possibly empty) and what follows it.
pub(super) struct Token<'t> {
    pub(super) name: &'t str,
    /// Where the token starts: its name's first character when it has one.
    pub(super) at: Position,
    /// The name holds only letters, digits, `_`, `-` and `.`, so it needs
    /// no character-by-character check.
    pub(super) plain: bool,
    pub(super) tail: Tail<'t>,
}

/// What follows a token's name.
pub(super) enum Tail<'t> {
    /// Nothing: the token is a bare name.
    Bare,
    /// A well-formed scope, and where its `(` is.
    Scope { scope: Cow<'t, str>, open: Position },
    /// A `)` that closes nothing, here.
    Stray(Position),
    /// A `(` that is never closed, and where the `\` of an escaped `)` that
    /// would have closed it is.
    Unterminated {
        open: Position,
        escaped_close: Option<Position>,
    },
    /// A scope, then the character `found` at `at` with no separator.
    AfterScope {
        scope: Cow<'t, str>,
        open: Position,
        at: Position,
        found: char,
    },
}

impl Tail<'_> {
    pub(super) fn open(&self) -> Option<Position> {
        match self {
            Tail::Scope { open, .. }
            | Tail::Unterminated { open, .. }
            | Tail::AfterScope { open, .. } => Some(*open),
            Tail::Bare | Tail::Stray(_) => None,
        }
    }
}

/// A left-to-right pass over one string. Positions are 1-based line and
/// column within it, columns counted in characters.
pub(super) struct Scanner<'t> {
    text: &'t str,
    /// The byte offset reached.
    i: usize,
    line: usize,
    /// The byte offset where `line` starts.
    line_start: usize,
    /// How many bytes between `line_start` and `i` continue a multi-byte
    /// character: the column is the bytes before `i` on the line less these.
    continuations: usize,
}

impl<'t> Scanner<'t> {
    pub(super) fn new(text: &'t str) -> Self {
        Scanner {
            text,
            i: 0,
            line: 1,
            line_start: 0,
            continuations: 0,
        }
    }

    /// The position of byte `offset`, which lies on the current line with no
    /// byte continuing a character between `i` and it.
    fn position_of(&self, offset: usize) -> Position {
        Position {
            line: self.line,
            column: offset - self.line_start - self.continuations + 1,
        }
    }

    fn position(&self) -> Position {
        self.position_of(self.i)
    }

    /// A line break ends before `start`, where the next line starts.
    fn new_line(&mut self, start: usize) {
        self.line += 1;
        self.line_start = start;
        self.continuations = 0;
    }

    /// The character at `i`, which is a char boundary.
    fn char_here(&self) -> Option<char> {
        self.text.get(self.i..).and_then(|rest| rest.chars().next())
    }

    /// Moves past `c`, a character that is not a line break.
    fn step_over(&mut self, c: char) {
        self.i += c.len_utf8();
        self.continuations += c.len_utf8() - 1;
    }

    /// Moves past the separators at `i`; where the first comma among them
    /// is, if there is one.
    pub(super) fn separators(&mut self) -> Option<Position> {
        let bytes = self.text.as_bytes();
        let mut comma = None;
        while let Some(&b) = bytes.get(self.i) {
            match b {
                b' ' | b'\t' | b'\x0b' | b'\x0c' | b'\r' => self.i += 1,
                b'\n' => {
                    self.i += 1;
                    self.new_line(self.i);
                }
                b',' => {
                    comma = comma.or_else(|| Some(self.position()));
                    self.i += 1;
                }
                0..=0x7f => break,
                _ => match self.char_here() {
                    Some(c) if c.is_whitespace() => self.step_over(c),
                    _ => break,
                },
            }
        }
        comma
    }

    /// Scans the token at `i` (not a separator), leaving `i` on the
    /// separator after it; `None` at the end of the text.
    pub(super) fn token(&mut self) -> Option<Token<'t>> {
        let text = self.text;
        let start = self.i;
        if start >= text.len() {
            return None;
        }
        let at = self.position();
        let plain = self.name();
        let name = text.get(start..self.i).unwrap_or_default();
        let tail = match text.as_bytes().get(self.i) {
            Some(b')') => {
                let at = self.position();
                self.skip_to_separator();
                Tail::Stray(at)
            }
            Some(b'(') => {
                let open = self.position();
                self.i += 1;
                match self.scope() {
                    Err(escaped_close) => Tail::Unterminated {
                        open,
                        escaped_close,
                    },
                    Ok(scope) => match self.char_here() {
                        Some(found) if !is_separator(found) => {
                            let at = self.position();
                            self.skip_to_separator();
                            Tail::AfterScope {
                                scope,
                                open,
                                at,
                                found,
                            }
                        }
                        _ => Tail::Scope { scope, open },
                    },
                }
            }
            _ => Tail::Bare,
        };
        Some(Token {
            name,
            at,
            plain,
            tail,
        })
    }

    /// Moves past a name, up to a separator or parenthesis; whether it held
    /// only name characters.
    fn name(&mut self) -> bool {
        let bytes = self.text.as_bytes();
        let mut plain = true;
        loop {
            // The usual name is all name characters: a tight loop over them.
            let mut i = self.i;
            while let Some(&b) = bytes.get(i)
                && CLASS[usize::from(b)] == NAME
            {
                i += 1;
            }
            self.i = i;
            let Some(&b) = bytes.get(i) else {
                return plain;
            };
            match CLASS[usize::from(b)] {
                OTHER => self.i += 1,
                WIDE => match self.char_here() {
                    Some(c) if !c.is_whitespace() => self.step_over(c),
                    _ => return plain,
                },
                _ => return plain,
            }
            plain = false;
        }
    }

    /// Reads a scope from `i` (just after its `(`) up to the matching `)`,
    /// counting nested pairs and honouring `\(`, `\)` and `\\`, and leaves
    /// `i` after that `)`. When the text ends first: `Err` with where the
    /// `\` of the last escaped `)` that would otherwise have closed the
    /// scope is. A scope without escapes, the usual case, is borrowed.
    fn scope(&mut self) -> Result<Cow<'t, str>, Option<Position>> {
        let text = self.text;
        let bytes = text.as_bytes();
        let start = self.i;
        let mut i = start;
        let mut depth = 1usize;
        let mut escaped = false;
        let mut escaped_close = None;
        while let Some(&b) = bytes.get(i) {
            i += 1;
            if !IN_SCOPE[usize::from(b)] {
                continue;
            }
            match b {
                b'\\' => {
                    if let Some(&next @ (b'(' | b')' | b'\\')) = bytes.get(i) {
                        if next == b')' && depth == 1 {
                            escaped_close = Some(self.position_of(i - 1));
                        }
                        escaped = true;
                        i += 1;
                    }
                }
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        self.i = i;
                        let raw = text.get(start..i - 1).unwrap_or_default();
                        return Ok(if escaped {
                            Cow::Owned(unescape(raw))
                        } else {
                            Cow::Borrowed(raw)
                        });
                    }
                }
                b'\n' => self.new_line(i),
                _ if b & 0xC0 == 0x80 => self.continuations += 1,
                _ => {}
            }
        }
        self.i = i;
        Err(escaped_close)
    }

    /// Moves to the next separator (or the end), over parentheses too.
    fn skip_to_separator(&mut self) {
        while let Some(c) = self.char_here().filter(|c| !is_separator(*c)) {
            self.step_over(c);
        }
    }
}

/// `\(`, `\)` and `\\` to the character they escape; any other backslash is
/// literal (Windows paths, shell escapes).
fn unescape(raw: &str) -> String {
    let mut scope = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('\\', Some(&next @ ('(' | ')' | '\\'))) => {
                scope.push(next);
                chars.next();
            }
            _ => scope.push(c),
        }
    }
    scope
}
