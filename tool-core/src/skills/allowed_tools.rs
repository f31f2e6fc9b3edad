//! The `allowed-tools` field: its three forms, its tokenizer and its patterns.
//!
//! A token is a tool name optionally followed by a parenthesised scope that
//! may hold spaces (`Bash(git diff:*)` is one token), so the field is
//! tokenized rather than split on white space; see DESIGN.md, "`allowed-tools`".

use std::borrow::Cow;
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fmt;
use std::hash::BuildHasher;

use serde::{Deserialize, Serialize};

use crate::skills::diagnostic::{Code, Diagnostic, Position};
use crate::skills::scope::ScopePattern;
use crate::skills::yaml::{FrontMatter, Locate, Node, NodeKind, ScalarKind, StringLocator};

/// What a skill says about the tools it may use.
///
/// Never an `Option<Vec<_>>`: an absent field (no opinion) and a declared empty
/// list (nothing allowed) must not be confused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum AllowedTools {
    /// The field is not there: the skill has no opinion.
    Absent,
    /// The field is there; the list may be empty, which allows nothing.
    /// Malformed tokens are left out (and reported), so they grant nothing.
    Declared(Vec<ToolPattern>),
}

/// One well-formed token of `allowed-tools`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolPattern {
    /// The tool, or every tool of one MCP server.
    pub target: ToolTarget,
    /// `None` grants the whole tool (written `Tool` or `Tool(*)`); `Some`
    /// grants only calls whose scoped argument the pattern admits.
    pub scope: Option<ScopePattern>,
    /// Where the token starts.
    pub position: Position,
}

/// What a token names.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum ToolTarget {
    /// One tool by its registered name, MCP tools (`mcp__server__tool`) included.
    Tool(String),
    /// Every tool of an MCP server, written `mcp__server` or `mcp__server__*`;
    /// holds the server part, case kept.
    McpServer(String),
}

impl fmt::Display for ToolTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolTarget::Tool(name) => f.write_str(name),
            ToolTarget::McpServer(server) => write!(f, "mcp__{server}__*"),
        }
    }
}

/// Writes the token back in a form that tokenizes to the same pattern.
impl fmt::Display for ToolPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.target)?;
        if let Some(scope) = &self.scope {
            f.write_str("(")?;
            for c in scope.as_str().chars() {
                if matches!(c, '(' | ')' | '\\') {
                    f.write_str("\\")?;
                }
                write!(f, "{c}")?;
            }
            f.write_str(")")?;
        }
        Ok(())
    }
}

/// Tokenizes one `allowed-tools` string: white-space separated tokens, or
/// comma-separated ones (with a warning). Positions are 1-based line and
/// column within `text`. Malformed tokens are left out and reported;
/// duplicates are folded.
pub fn tokenize(text: &str) -> (Vec<ToolPattern>, Vec<Diagnostic>) {
    let mut out = Tokens::default();
    out.tokenize(text, &mut StringLocator::new(text));
    (out.patterns, out.diagnostics)
}

/// Reads the `allowed-tools` value of a front matter (`None`: key absent).
pub(crate) fn from_yaml(
    node: Option<&Node>,
    fm: &FrontMatter<'_>,
) -> (AllowedTools, Vec<Diagnostic>) {
    let Some(node) = node else {
        return (AllowedTools::Absent, Vec::new());
    };
    let mut out = Tokens::default();
    match &node.kind {
        NodeKind::Scalar(s) => match s.kind() {
            ScalarKind::Null => out.declares_nothing(node.position, "has no value"),
            ScalarKind::Text if s.text.trim().is_empty() => {
                out.declares_nothing(node.position, "is empty")
            }
            ScalarKind::Text => out.tokenize(&s.text, &mut fm.locator(node)),
            ScalarKind::Bool | ScalarKind::Number => out.wrong_type(node),
        },
        NodeKind::Mapping(_) => out.wrong_type(node),
        NodeKind::Sequence(items) if items.is_empty() => {
            out.declares_nothing(node.position, "is an empty list")
        }
        NodeKind::Sequence(items) => {
            for item in items {
                match &item.kind {
                    NodeKind::Scalar(s) if s.kind() == ScalarKind::Text => {
                        out.tokenize(&s.text, &mut fm.locator(item))
                    }
                    other => out.diagnostics.push(Diagnostic::new(
                        Code::ListItemNotString,
                        item.position,
                        format!(
                            "`allowed-tools` list items must be tool names, but this one is {}: \
                             quote it or remove it",
                            other.describe()
                        ),
                    )),
                }
            }
        }
    }
    (AllowedTools::Declared(out.patterns), out.diagnostics)
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

/// How a token ended.
enum Scanned<'t> {
    /// Well formed: the name, and the scope with the offset of its `(`.
    Token {
        name: &'t str,
        scope: Option<(Cow<'t, str>, usize)>,
    },
    /// Malformed; already reported.
    Refused,
}

impl Tokens {
    fn declares_nothing(&mut self, position: Position, what: &str) {
        self.diagnostics.push(Diagnostic::new(
            Code::NoToolsDeclared,
            position,
            format!(
                "`allowed-tools` {what}, so this skill allows no tools at all: \
                 list the tools it needs, or remove the key to express no opinion"
            ),
        ));
    }

    fn wrong_type(&mut self, node: &Node) {
        self.diagnostics.push(Diagnostic::new(
            Code::AllowedToolsWrongType,
            node.position,
            format!(
                "`allowed-tools` must be a string of tool names or a list of them, not {}; \
                 nothing is allowed from it",
                node.kind.describe()
            ),
        ));
    }

    fn error(&mut self, code: Code, position: Position, message: String) -> Scanned<'static> {
        self.diagnostics
            .push(Diagnostic::new(code, position, message));
        Scanned::Refused
    }

    fn tokenize(&mut self, text: &str, loc: &mut dyn Locate) {
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
            let scanned = self.scan_token(text, &mut i, loc);
            if let Scanned::Token { name, scope } = scanned {
                let position = loc.locate(offset, snippet(name));
                self.push_token(name, scope, position, loc);
            }
        }
        if let Some(position) = first_comma {
            self.diagnostics.push(Diagnostic::new(
                Code::CommaSeparated,
                position,
                "`allowed-tools` separates tools with commas; the specification separates them \
                 with spaces: write `Read Grep` rather than `Read, Grep`",
            ));
        }
    }

    /// Scans one token from byte `*i` of `text`, leaving `*i` on the
    /// separator after it.
    fn scan_token<'t>(
        &mut self,
        text: &'t str,
        i: &mut usize,
        loc: &mut dyn Locate,
    ) -> Scanned<'t> {
        let start = *i;
        while let Some(c) = char_at(text, *i) {
            if is_separator(c) || c == '(' || c == ')' {
                break;
            }
            *i += c.len_utf8();
        }
        let name = text.get(start..*i).unwrap_or_default();
        match char_at(text, *i) {
            Some(')') => {
                let offset = *i;
                skip_to_separator(text, i);
                let position = loc.locate(offset, ")");
                self.error(
                    Code::StrayParen,
                    position,
                    "this `)` closes no `(`: remove it, or write `\\)` for a literal parenthesis"
                        .to_owned(),
                )
            }
            Some('(') => {
                let open = *i;
                *i += 1;
                let Some(scope) = scan_scope(text, i) else {
                    let position = loc.locate(open, "(");
                    return self.error(
                        Code::UnterminatedParen,
                        position,
                        "this `(` is never closed: add the `)` that ends the scope, or write `\\(` \
                         for a literal parenthesis"
                            .to_owned(),
                    );
                };
                match char_at(text, *i) {
                    Some(c) if !is_separator(c) => {
                        let (code, what) = if c == ')' {
                            (Code::StrayParen, "this `)` closes no `(`: remove it, or write `\\)` for a literal parenthesis".to_owned())
                        } else {
                            (
                                Code::TextAfterScope,
                                format!(
                                    "unexpected `{c}` right after the scope's `)`: separate tokens with a space"
                                ),
                            )
                        };
                        let offset = *i;
                        skip_to_separator(text, i);
                        let found = text.get(offset..offset + c.len_utf8()).unwrap_or_default();
                        let position = loc.locate(offset, found);
                        self.error(code, position, what)
                    }
                    _ => Scanned::Token {
                        name,
                        scope: Some((scope, open)),
                    },
                }
            }
            _ => Scanned::Token { name, scope: None },
        }
    }

    fn push_token(
        &mut self,
        name: &str,
        scope: Option<(Cow<'_, str>, usize)>,
        position: Position,
        loc: &mut dyn Locate,
    ) {
        let open = scope.as_ref().map(|(_, open)| *open);
        let Some(target) = self.target(name, open, position, loc) else {
            return;
        };
        let scope = match scope {
            None => None,
            Some((text, open)) => match text.trim() {
                "" => {
                    let position = loc.locate(open, "(");
                    self.error(
                        Code::EmptyScope,
                        position,
                        format!(
                            "`{name}()` has an empty scope: write `{name}` or `{name}(*)` for the \
                             whole tool, or put the allowed argument between the parentheses"
                        ),
                    );
                    return;
                }
                "*" => None,
                scoped => {
                    if let ToolTarget::McpServer(server) = &target {
                        let position = loc.locate(open, "(");
                        self.error(
                            Code::ScopeOnServer,
                            position,
                            format!(
                                "a scope cannot apply to every tool of the MCP server `{server}`: \
                                 name one tool, as in `mcp__{server}__tool({scoped})`"
                            ),
                        );
                        return;
                    }
                    Some(ScopePattern::new(scoped))
                }
            },
        };
        let pattern = ToolPattern {
            target,
            scope,
            position,
        };
        if self.is_duplicate(&pattern) {
            self.diagnostics.push(Diagnostic::new(
                Code::DuplicateToken,
                position,
                format!("`{pattern}` is listed more than once: remove the repetition"),
            ));
            return;
        }
        self.patterns.push(pattern);
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

    /// Checks a tool name as written and says what it names.
    fn target(
        &mut self,
        name: &str,
        open: Option<usize>,
        position: Position,
        loc: &mut dyn Locate,
    ) -> Option<ToolTarget> {
        if name.is_empty() {
            let position = loc.locate(open.unwrap_or(0), "(");
            self.error(
                Code::ScopeWithoutTool,
                position,
                "this scope has no tool name before it: write the tool first, as in `Bash(git status)`"
                    .to_owned(),
            );
            return None;
        }
        if let Some((server, tool)) = mcp_parts(name) {
            if server.is_empty() || server.contains("__") || !server.chars().all(is_name_char) {
                return self.bad_name(
                    name,
                    position,
                    "an MCP server name (`mcp__server` or `mcp__server__tool`)",
                );
            }
            return match tool {
                None | Some("*") => Some(ToolTarget::McpServer(server.to_owned())),
                Some(tool) if !tool.is_empty() && tool.chars().all(is_name_char) => {
                    Some(ToolTarget::Tool(name.to_owned()))
                }
                Some(_) => self.bad_name(name, position, "an MCP tool name (`mcp__server__tool`)"),
            };
        }
        if name.chars().all(is_name_char) {
            Some(ToolTarget::Tool(name.to_owned()))
        } else {
            self.bad_name(name, position, "a tool name")
        }
    }

    fn bad_name(&mut self, name: &str, position: Position, expected: &str) -> Option<ToolTarget> {
        if name.contains('*') {
            self.error(
                Code::UnanchoredWildcard,
                position,
                format!(
                    "`{name}` uses `*` in a tool name, which grants nothing: name each tool, or \
                     grant one MCP server's tools with `mcp__server__*`"
                ),
            );
        } else {
            let bad = name.chars().find(|c| !is_name_char(*c));
            let why = match bad {
                Some(c) => format!("`{c}` cannot appear in it"),
                None => "a part of it is empty".to_owned(),
            };
            self.error(
                Code::InvalidToolName,
                position,
                format!(
                    "`{name}` is not {expected}: {why}; tool names use letters, digits, `_`, `-` and `.`"
                ),
            );
        }
        None
    }
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
pub(crate) fn mcp_parts(name: &str) -> Option<(&str, Option<&str>)> {
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
/// after that `)`. `None` when the input ends first.
///
/// Works on bytes: `(`, `)` and `\\` are ASCII, and no byte of a multi-byte
/// UTF-8 character is ASCII, so every offset found is a char boundary. A
/// scope without escapes, the usual case, is borrowed.
fn scan_scope<'t>(text: &'t str, i: &mut usize) -> Option<Cow<'t, str>> {
    let bytes = text.as_bytes();
    let start = *i;
    let mut depth = 1usize;
    let mut escaped = false;
    while let Some(&b) = bytes.get(*i) {
        *i += 1;
        match b {
            b'\\' => {
                if let Some(b'(' | b')' | b'\\') = bytes.get(*i) {
                    escaped = true;
                    *i += 1;
                }
            }
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    let raw = text.get(start..*i - 1).unwrap_or_default();
                    return Some(if escaped {
                        Cow::Owned(unescape(raw))
                    } else {
                        Cow::Borrowed(raw)
                    });
                }
            }
            _ => {}
        }
    }
    None
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
