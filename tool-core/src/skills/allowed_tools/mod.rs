//! The `allowed-tools` field: its three forms, its tokenizer and its patterns.
//!
//! A token is a tool name optionally followed by a parenthesised scope that
//! may hold spaces (`Bash(git diff:*)` is one token), so the field is
//! tokenized rather than split on white space; see the
//! [module docs](crate::skills) and docs/skills-reference-differences.md.

mod duplicates;
mod scan;

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::skills::diagnostic::{Code, Diagnostic, Position};
use crate::skills::locate::{Locate, StringLocator};
use crate::skills::scope::ScopePattern;
#[cfg(feature = "skills")]
use crate::skills::yaml::{FrontMatter, Node, NodeKind, ScalarKind};
use duplicates::Seen;
use scan::{Scanner, Tail, Token};

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
    /// A field that cannot be read with certainty (set twice, a near-miss
    /// spelling of the key, a map, number or boolean) declares an empty
    /// list, with an error: read as absent, it would widen the run.
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
    out.tokenize(text, &mut StringLocator);
    (out.patterns, out.diagnostics)
}

/// Tokenizes `text` as [`tokenize`] does, with positions from `loc` (a
/// place in the file, for a value of the front matter).
#[cfg(feature = "skills")]
pub(crate) fn tokenize_located(
    text: &str,
    loc: &mut impl Locate,
) -> (Vec<ToolPattern>, Vec<Diagnostic>) {
    let mut out = Tokens::default();
    out.tokenize(text, loc);
    (out.patterns, out.diagnostics)
}

/// Reads the `allowed-tools` value of a front matter (`None`: key absent).
#[cfg(feature = "skills")]
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
    /// The grants of `patterns`, to fold duplicates without a copy of each.
    seen: Seen,
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}

/// `text` without white space around it. A scope rarely has any, and
/// `str::trim` decodes a character at each end to find out.
fn trim(text: &str) -> &str {
    let visible = |b: Option<&u8>| b.is_some_and(u8::is_ascii_graphic);
    if visible(text.as_bytes().first()) && visible(text.as_bytes().last()) {
        text
    } else {
        text.trim()
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
    #[cfg(feature = "skills")]
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

    #[cfg(feature = "skills")]
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

    fn error(&mut self, code: Code, position: Position, message: String) {
        self.diagnostics
            .push(Diagnostic::new(code, position, message));
    }

    fn tokenize(&mut self, text: &str, loc: &mut impl Locate) {
        self.patterns.reserve(scan::expected_tokens(text));
        let mut scanner = Scanner::new(text);
        let mut first_comma = None;
        loop {
            if let Some(at) = scanner.separators()
                && first_comma.is_none()
            {
                first_comma = Some(loc.locate(at, ","));
            }
            let Some(token) = scanner.token() else { break };
            self.token(token, loc);
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

    /// Checks one scanned token, reporting every malformed part of it (the
    /// name's, the parentheses', the escapes'), each where it is, and keeps
    /// it only when nothing is malformed. Places are located left to right,
    /// as a locator that searches the source needs.
    fn token(&mut self, token: Token<'_>, loc: &mut impl Locate) {
        let Token {
            name,
            at,
            plain,
            tail,
        } = token;
        let position = (!name.is_empty()).then(|| loc.locate(at, name));
        let open = tail.open().map(|open| loc.locate(open, "("));
        let target = match (position, open) {
            (Some(position), _) => self.target(name, plain, position),
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
                scope, at, found, ..
            } => {
                // `Bash())`: the empty scope is as malformed as the `)`.
                if trim(&scope).is_empty() {
                    self.empty_scope(name, open.unwrap_or(Position::START));
                }
                let at = loc.locate(at, found.encode_utf8(&mut [0; 4]));
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
        let scope = match scope.as_deref().map(trim) {
            None | Some("*") => None,
            Some("") => return self.empty_scope(name, at_open),
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
        let duplicate = self
            .seen
            .is_duplicate(&self.patterns, &target, scope.as_ref());
        let pattern = ToolPattern {
            target,
            scope,
            position,
        };
        if !duplicate {
            return self.patterns.push(pattern);
        }
        self.diagnostics.push(Diagnostic::new(
            Code::DuplicateToken,
            position,
            format!("`{pattern}` is listed more than once: remove the repetition"),
        ));
    }

    fn empty_scope(&mut self, name: &str, at_open: Position) {
        let shown = if name.is_empty() { "Tool" } else { name };
        self.error(
            Code::EmptyScope,
            at_open,
            format!(
                "`{shown}()` has an empty scope: write `{shown}` or `{shown}(*)` for the \
                 whole tool, or put the allowed argument between the parentheses"
            ),
        );
    }

    fn stray_paren(&mut self, at: Position) {
        self.error(
            Code::StrayParen,
            at,
            "this `)` closes no `(`: remove it, or write `\\)` for a literal parenthesis"
                .to_owned(),
        );
    }

    /// Checks a tool name written at `position` and says what it names.
    /// Every kind of fault in it is reported, each where it first occurs: an
    /// unanchored `*`, a `\` (escapes belong inside a scope), any other
    /// character no tool name has, and an MCP name with an empty or doubled
    /// part. A `plain` name (name characters only) skips the search for
    /// faulty characters: it has none.
    fn target(&mut self, name: &str, plain: bool, position: Position) -> Option<ToolTarget> {
        let mcp = mcp_parts(name);
        if plain && mcp.is_none() {
            return Some(ToolTarget::Tool(name.to_owned()));
        }
        // The one `*` that is allowed: the last character of `mcp__server__*`.
        let anchored = matches!(mcp, Some((_, Some("*")))).then(|| name.len() - 1);
        let (mut star, mut backslash, mut other) = (None, None, None);
        if !plain {
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
    // A byte search: `str::find` sets up a two-way searcher per call, which
    // costs more than the scan of a short name.
    let Some(mut end) = rest.as_bytes().windows(2).position(|w| w == b"__") else {
        return Some((rest, None));
    };
    while rest.as_bytes().get(end + 2) == Some(&b'_') {
        end += 1;
    }
    Some((rest.get(..end)?, rest.get(end + 2..)))
}
