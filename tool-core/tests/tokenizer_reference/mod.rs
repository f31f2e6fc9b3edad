//! The `allowed-tools` tokenizer as it was before it was rewritten for speed
//! (a frozen copy, public API only): `tokenizer_differential.rs` checks that
//! `tool_core::skills::tokenize` still returns exactly what this returns.
//! One deliberate change since: an empty scope followed by a stray `)` or
//! text (`Bash())`) is reported too (issue 25).

use std::borrow::Cow;
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::hash::BuildHasher;

use tool_core::skills::{Code, Diagnostic, Position, ScopePattern, ToolPattern, ToolTarget};

/// What the old `tokenize` returned for `text`.
pub fn tokenize(text: &str) -> (Vec<ToolPattern>, Vec<Diagnostic>) {
    let mut out = Tokens::default();
    out.tokenize(text, &mut StringLocator::new(text));
    (out.patterns, out.diagnostics)
}

fn diagnostic(code: Code, position: Position, message: impl Into<String>) -> Diagnostic {
    Diagnostic {
        code,
        message: message.into(),
        position,
    }
}

/// Positions inside a string that stands alone: line 1 is its first line.
struct StringLocator<'a> {
    text: &'a str,
    last: (usize, Position),
}

impl<'a> StringLocator<'a> {
    fn new(text: &'a str) -> Self {
        StringLocator {
            text,
            last: (0, Position::START),
        }
    }

    fn locate(&mut self, offset: usize, _snippet: &str) -> Position {
        let (from, from_position) = if self.last.0 <= offset {
            self.last
        } else {
            (0, Position::START)
        };
        let position = match self.text.get(from..offset) {
            Some(between) => advance(from_position, between),
            None => Position::START,
        };
        self.last = (offset, position);
        position
    }
}

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

#[derive(Default)]
struct Tokens {
    patterns: Vec<ToolPattern>,
    diagnostics: Vec<Diagnostic>,
    /// Once `patterns` is long: the index of the first grant with each hash,
    /// to fold duplicates without a quadratic scan or a copy of each grant.
    seen: Option<HashMap<u64, usize>>,
}

fn is_separator(c: char) -> bool {
    c.is_whitespace() || c == ','
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}

/// The character at byte offset `i` of `text` (always a char boundary).
/// Scanning by offset rather than through a copy of the text's characters
/// lets names and most scopes be borrowed: the tokenizer allocates only for
/// the patterns it returns.
fn char_at(text: &str, i: usize) -> Option<char> {
    match text.as_bytes().get(i) {
        Some(&b) if b.is_ascii() => Some(char::from(b)),
        Some(_) => text.get(i..).and_then(|rest| rest.chars().next()),
        None => None,
    }
}

/// At most the first 16 characters of a name: enough to find it again in a
/// quoted or block scalar's source.
fn snippet(name: &str) -> &str {
    let end = name.char_indices().nth(16).map_or(name.len(), |(i, _)| i);
    name.get(..end).unwrap_or(name)
}

/// What follows a token's name.
enum Tail<'t> {
    /// Nothing: the token is a bare name.
    Bare,
    /// A well-formed scope, and the offset of its `(`.
    Scope { scope: Cow<'t, str>, open: usize },
    /// A `)` that closes nothing, at this offset.
    Stray(usize),
    /// A `(` that is never closed, and the offset of the `\` of an escaped
    /// `)` that would have closed it.
    Unterminated {
        open: usize,
        escaped_close: Option<usize>,
    },
    /// A scope, then the character `found` at `offset` with no separator.
    AfterScope {
        scope: Cow<'t, str>,
        open: usize,
        offset: usize,
        found: char,
    },
}

impl Tail<'_> {
    fn open(&self) -> Option<usize> {
        match self {
            Tail::Scope { open, .. }
            | Tail::Unterminated { open, .. }
            | Tail::AfterScope { open, .. } => Some(*open),
            Tail::Bare | Tail::Stray(_) => None,
        }
    }
}

/// `from` moved right by the characters of `prefix`, which holds no line
/// break (a tool name never does).
fn shifted(from: Position, prefix: &str) -> Position {
    Position {
        line: from.line,
        column: from.column + prefix.chars().count(),
    }
}

impl Tokens {
    fn error(&mut self, code: Code, position: Position, message: String) {
        self.diagnostics.push(diagnostic(code, position, message));
    }

    fn tokenize(&mut self, text: &str, loc: &mut StringLocator<'_>) {
        let mut first_comma = None;
        let mut i = 0;
        while let Some(c) = char_at(text, i) {
            if is_separator(c) {
                if c == ',' && first_comma.is_none() {
                    first_comma = Some(loc.locate(i, ","));
                }
                i += c.len_utf8();
                continue;
            }
            let offset = i;
            let (name, tail) = scan_token(text, &mut i);
            self.token(offset, name, tail, loc);
        }
        if let Some(position) = first_comma {
            self.diagnostics.push(diagnostic(
                Code::CommaSeparated,
                position,
                "`allowed-tools` separates tools with commas; the specification separates them \
                 with spaces: write `Read Grep` rather than `Read, Grep`",
            ));
        }
    }

    /// Checks one scanned token, reporting every malformed part of it (the
    /// name's, the parentheses', the escapes'), each where it is, and keeps
    /// it only when nothing is malformed. Places are located left to right,
    /// as a locator that searches the source needs.
    fn token(&mut self, offset: usize, name: &str, tail: Tail<'_>, loc: &mut StringLocator<'_>) {
        let position = (!name.is_empty()).then(|| loc.locate(offset, snippet(name)));
        let open = tail.open().map(|open| loc.locate(open, "("));
        let target = match (position, open) {
            (Some(position), _) => self.target(name, position),
            (None, Some(open)) => {
                self.error(
                    Code::ScopeWithoutTool,
                    open,
                    "this scope has no tool name before it: write the tool first, as in \
                     `Bash(git status)`"
                        .to_owned(),
                );
                None
            }
            (None, None) => None,
        };
        let scope = match tail {
            Tail::Bare => None,
            Tail::Stray(at) => {
                let at = loc.locate(at, ")");
                return self.stray_paren(at);
            }
            Tail::Unterminated { escaped_close, .. } => {
                self.error(
                    Code::UnterminatedParen,
                    open.unwrap_or(Position::START),
                    "this `(` is never closed: add the `)` that ends the scope, or write `\\(` \
                     for a literal parenthesis"
                        .to_owned(),
                );
                if let Some(at) = escaped_close {
                    let at = loc.locate(at, "\\)");
                    self.error(
                        Code::BadEscape,
                        at,
                        "this `\\` escapes the `)` after it, so the scope never ends: write \
                         `\\\\)` to end the scope after a backslash, or remove the `\\`"
                            .to_owned(),
                    );
                }
                return;
            }
            Tail::AfterScope {
                scope,
                offset,
                found,
                ..
            } => {
                // Issue 25 (the one change since the freeze): `Bash())`
                // reports the empty scope as well as what follows it.
                if scope.trim().is_empty() {
                    let shown = if name.is_empty() { "Tool" } else { name };
                    self.error(
                        Code::EmptyScope,
                        open.unwrap_or(Position::START),
                        format!(
                            "`{shown}()` has an empty scope: write `{shown}` or `{shown}(*)` for \
                             the whole tool, or put the allowed argument between the parentheses"
                        ),
                    );
                }
                let at = loc.locate(offset, found.encode_utf8(&mut [0; 4]));
                if found == ')' {
                    return self.stray_paren(at);
                }
                return self.error(
                    Code::TextAfterScope,
                    at,
                    format!(
                        "unexpected `{found}` right after the scope's `)`: separate tokens with a \
                         space"
                    ),
                );
            }
            Tail::Scope { scope, .. } => Some(scope),
        };
        let at_open = open.unwrap_or(Position::START);
        let scope = match scope.as_deref().map(str::trim) {
            None | Some("*") => None,
            Some("") => {
                let shown = if name.is_empty() { "Tool" } else { name };
                return self.error(
                    Code::EmptyScope,
                    at_open,
                    format!(
                        "`{shown}()` has an empty scope: write `{shown}` or `{shown}(*)` for the \
                         whole tool, or put the allowed argument between the parentheses"
                    ),
                );
            }
            Some(scoped) => {
                if let Some(ToolTarget::McpServer(server)) = &target {
                    return self.error(
                        Code::ScopeOnServer,
                        at_open,
                        format!(
                            "a scope cannot apply to every tool of the MCP server `{server}`: \
                             name one tool, as in `mcp__{server}__tool({scoped})`"
                        ),
                    );
                }
                Some(ScopePattern::new(scoped))
            }
        };
        let (Some(target), Some(position)) = (target, position) else {
            return;
        };
        let pattern = ToolPattern {
            target,
            scope,
            position,
        };
        if self.is_duplicate(&pattern) {
            self.diagnostics.push(diagnostic(
                Code::DuplicateToken,
                position,
                format!("`{pattern}` is listed more than once: remove the repetition"),
            ));
            return;
        }
        self.patterns.push(pattern);
    }

    fn stray_paren(&mut self, at: Position) {
        self.error(
            Code::StrayParen,
            at,
            "this `)` closes no `(`: remove it, or write `\\)` for a literal parenthesis"
                .to_owned(),
        );
    }

    /// Whether `pattern` grants what an earlier one does; if not, it is
    /// remembered as the next pattern pushed. A short list is scanned (most
    /// fields hold a handful of tokens, and hashing costs more than that); a
    /// long one is indexed by hash, so a hostile field is not quadratic.
    fn is_duplicate(&mut self, pattern: &ToolPattern) -> bool {
        const SCAN_AT_MOST: usize = 16;
        let same = |p: &ToolPattern| p.target == pattern.target && p.scope == pattern.scope;
        if self.patterns.len() < SCAN_AT_MOST {
            return self.patterns.iter().any(same);
        }
        let patterns = &self.patterns;
        let seen = self.seen.get_or_insert_with(|| {
            let mut seen = HashMap::with_capacity(patterns.len() * 2);
            for (n, p) in patterns.iter().enumerate() {
                let hash = seen.hasher().hash_one((&p.target, &p.scope));
                seen.entry(hash).or_insert(n);
            }
            seen
        });
        let hash = seen.hasher().hash_one((&pattern.target, &pattern.scope));
        match seen.entry(hash) {
            Entry::Vacant(slot) => {
                slot.insert(self.patterns.len());
                false
            }
            // The grant first seen with this hash is almost always this
            // one; only on a hash collision is every pattern looked at.
            Entry::Occupied(slot) => {
                self.patterns.get(*slot.get()).is_some_and(same) || self.patterns.iter().any(same)
            }
        }
    }

    /// Checks a tool name written at `position` and says what it names.
    /// Every kind of fault in it is reported, each where it first occurs: an
    /// unanchored `*`, a `\` (escapes belong inside a scope), any other
    /// character no tool name has, and an MCP name with an empty or doubled
    /// part.
    fn target(&mut self, name: &str, position: Position) -> Option<ToolTarget> {
        let mcp = mcp_parts(name);
        // The one `*` that is allowed: the last character of `mcp__server__*`.
        let anchored = matches!(mcp, Some((_, Some("*")))).then(|| name.len() - 1);
        let (mut star, mut backslash, mut other) = (None, None, None);
        for (k, c) in name.char_indices() {
            if is_name_char(c) || Some(k) == anchored {
                continue;
            }
            match c {
                '*' => star = star.or(Some(k)),
                '\\' => backslash = backslash.or(Some(k)),
                _ => other = other.or(Some((k, c))),
            }
        }
        let expected = match mcp {
            None => "a tool name",
            Some((_, None | Some("*"))) => "an MCP server name (`mcp__server` or `mcp__server__*`)",
            Some(_) => "an MCP tool name (`mcp__server__tool`)",
        };
        let mut faults: Vec<(usize, Code, String)> = Vec::new();
        if let Some(k) = star {
            faults.push((
                k,
                Code::UnanchoredWildcard,
                format!(
                    "`{name}` uses `*` in a tool name, which grants nothing: name each tool, or \
                     grant one MCP server's tools with `mcp__server__*`"
                ),
            ));
        }
        if let Some(k) = backslash {
            faults.push((
                k,
                Code::BadEscape,
                format!(
                    "`{name}` has a `\\` outside a scope, where nothing is escaped: `\\(`, `\\)` \
                     and `\\\\` only mean something between a scope's parentheses; remove it"
                ),
            ));
        }
        if let Some((k, c)) = other {
            faults.push((
                k,
                Code::InvalidToolName,
                format!(
                    "`{name}` is not {expected}: `{c}` cannot appear in it; tool names use \
                     letters, digits, `_`, `-` and `.`"
                ),
            ));
        }
        if let Some((server, tool)) = mcp {
            let why = if server.is_empty() || tool == Some("") {
                Some("a part of it is empty")
            } else if server.contains("__") {
                Some("the server part holds `__`, which separates server and tool")
            } else {
                None
            };
            if let Some(why) = why {
                faults.push((
                    0,
                    Code::InvalidToolName,
                    format!(
                        "`{name}` is not {expected}: {why}; tool names use letters, digits, `_`, \
                         `-` and `.`"
                    ),
                ));
            }
        }
        if faults.is_empty() {
            return Some(match mcp {
                Some((server, None | Some("*"))) => ToolTarget::McpServer(server.to_owned()),
                _ => ToolTarget::Tool(name.to_owned()),
            });
        }
        faults.sort_by_key(|(k, _, _)| *k);
        for (k, code, message) in faults {
            let at = shifted(position, name.get(..k).unwrap_or_default());
            self.error(code, at, message);
        }
        None
    }
}

/// Scans one token from byte `*i` of `text`, leaving `*i` on the separator
/// after it: its name (possibly empty) and what follows the name.
fn scan_token<'t>(text: &'t str, i: &mut usize) -> (&'t str, Tail<'t>) {
    let start = *i;
    while let Some(c) = char_at(text, *i) {
        if is_separator(c) || c == '(' || c == ')' {
            break;
        }
        *i += c.len_utf8();
    }
    let name = text.get(start..*i).unwrap_or_default();
    let tail = match char_at(text, *i) {
        Some(')') => {
            let offset = *i;
            skip_to_separator(text, i);
            Tail::Stray(offset)
        }
        Some('(') => {
            let open = *i;
            *i += 1;
            match scan_scope(text, i) {
                Err(escaped_close) => Tail::Unterminated {
                    open,
                    escaped_close,
                },
                Ok(scope) => match char_at(text, *i) {
                    Some(found) if !is_separator(found) => {
                        let offset = *i;
                        skip_to_separator(text, i);
                        Tail::AfterScope {
                            scope,
                            open,
                            offset,
                            found,
                        }
                    }
                    _ => Tail::Scope { scope, open },
                },
            }
        }
        _ => Tail::Bare,
    };
    (name, tail)
}

/// Splits `mcp__server__tool` into its server and tool parts (`None` when
/// `name` is not an MCP name; no tool part for `mcp__server`).
///
/// The server part may hold single underscores (`files_x`) and end in one
/// (`files_`), so the separator is the **last** two underscores of the first
/// run of two or more: `mcp__files___read` is the tool `read` of the server
/// `files_`, never a tool of `files`. Read this way, `mcp__esim_` and
/// `mcp__esim___*` name one server (found by fuzzing: the second was once
/// refused), and a server-wide grant is matched on this exact part, never on
/// a prefix of the name. A server part that still holds `__` (from a run of
/// four or more) names no server anyone can grant.
fn mcp_parts(name: &str) -> Option<(&str, Option<&str>)> {
    let rest = name.strip_prefix("mcp__")?;
    let Some(mut end) = rest.find("__") else {
        return Some((rest, None));
    };
    while rest.as_bytes().get(end + 2) == Some(&b'_') {
        end += 1;
    }
    Some((rest.get(..end)?, rest.get(end + 2..)))
}

/// Reads a scope from byte `*i` (just after its `(`) up to the matching `)`,
/// counting nested pairs and honouring `\(`, `\)` and `\\`, and leaves `*i`
/// after that `)`. When the input ends first: `Err` with the offset of the
/// `\` of the last escaped `)` that would otherwise have closed the scope.
///
/// Works on bytes: `(`, `)` and `\\` are ASCII, and no byte of a multi-byte
/// UTF-8 character is ASCII, so every offset found is a char boundary. A
/// scope without escapes, the usual case, is borrowed.
fn scan_scope<'t>(text: &'t str, i: &mut usize) -> Result<Cow<'t, str>, Option<usize>> {
    let bytes = text.as_bytes();
    let start = *i;
    let mut depth = 1usize;
    let mut escaped = false;
    let mut escaped_close = None;
    while let Some(&b) = bytes.get(*i) {
        *i += 1;
        match b {
            b'\\' => {
                if let Some(&next @ (b'(' | b')' | b'\\')) = bytes.get(*i) {
                    if next == b')' && depth == 1 {
                        escaped_close = Some(*i - 1);
                    }
                    escaped = true;
                    *i += 1;
                }
            }
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    let raw = text.get(start..*i - 1).unwrap_or_default();
                    return Ok(if escaped {
                        Cow::Owned(unescape(raw))
                    } else {
                        Cow::Borrowed(raw)
                    });
                }
            }
            _ => {}
        }
    }
    Err(escaped_close)
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

fn skip_to_separator(text: &str, i: &mut usize) {
    while let Some(c) = char_at(text, *i).filter(|c| !is_separator(*c)) {
        *i += c.len_utf8();
    }
}
