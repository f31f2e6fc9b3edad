//! Front matter: finding it between `---` lines and reading it into a small
//! YAML tree that remembers where each value was written.
//!
//! The tree is built from saphyr-parser's events rather than a full YAML
//! library so that every node keeps its position, and so that aliases and
//! anchors can be refused outright: a front matter never needs them, and
//! refusing them is what makes alias bombs ("billion laughs") impossible.

use saphyr_parser::{Event, Marker, Parser, ScalarStyle};

use crate::skills::diagnostic::{Code, Diagnostic, Position};
use crate::skills::locate::Locate;

/// The largest front matter read, in bytes. Real ones are a few hundred bytes;
/// the bound keeps a hostile file from costing more than a glance.
pub const MAX_FRONT_MATTER_BYTES: usize = 64 * 1024;

/// Deeper nesting than any front matter needs; bounded so that neither the
/// reader nor dropping the tree can exhaust the stack.
const MAX_DEPTH: usize = 32;

/// Why the front matter could not be read at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum FrontMatterError {
    #[error("the file must start with a `---` line that opens the YAML front matter")]
    Missing,
    #[error("the front matter is never closed: add a `---` line between it and the body")]
    Unterminated,
    #[error(
        "the front matter is larger than {max} bytes: keep it to the fields and move text into the body"
    )]
    TooLarge { max: usize },
    #[error("invalid YAML in the front matter: {message}")]
    Syntax { message: String, position: Position },
    #[error("YAML aliases and anchors are not accepted in the front matter: write the value out")]
    Alias { position: Position },
    #[error(
        "the front matter must be a mapping of keys to values such as `name: my-skill`, not {found}"
    )]
    NotAMapping {
        found: &'static str,
        position: Position,
    },
    #[error("the front matter nests deeper than {max} levels")]
    TooDeep { max: usize, position: Position },
}

impl FrontMatterError {
    fn code(&self) -> Code {
        match self {
            FrontMatterError::Missing => Code::MissingFrontMatter,
            FrontMatterError::Unterminated => Code::UnterminatedFrontMatter,
            FrontMatterError::TooLarge { .. } => Code::FrontMatterTooLarge,
            FrontMatterError::Syntax { .. } => Code::YamlSyntax,
            FrontMatterError::Alias { .. } => Code::YamlAlias,
            FrontMatterError::NotAMapping { .. } => Code::NotAMapping,
            FrontMatterError::TooDeep { .. } => Code::YamlTooDeep,
        }
    }

    fn position(&self) -> Position {
        match self {
            FrontMatterError::Missing
            | FrontMatterError::Unterminated
            | FrontMatterError::TooLarge { .. } => Position::START,
            FrontMatterError::Syntax { position, .. }
            | FrontMatterError::Alias { position }
            | FrontMatterError::NotAMapping { position, .. }
            | FrontMatterError::TooDeep { position, .. } => *position,
        }
    }

    pub(crate) fn to_diagnostic(&self) -> Diagnostic {
        Diagnostic::new(self.code(), self.position(), self.to_string())
    }
}

/// A YAML value with the place it was written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Node {
    pub(crate) kind: NodeKind,
    pub(crate) position: Position,
    /// Character range of the value in the front matter; scalars only need it.
    start_char: usize,
    end_char: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum NodeKind {
    Scalar(Scalar),
    Sequence(Vec<Node>),
    Mapping(Vec<(Node, Node)>),
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Scalar {
    pub(crate) text: String,
    /// Only plain (unquoted, untagged-as-string) scalars can be null, a number
    /// or a boolean.
    plain: bool,
}

/// What a scalar means under the YAML 1.2 core schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ScalarKind {
    Null,
    Bool,
    Number,
    Text,
}

impl Scalar {
    pub(crate) fn kind(&self) -> ScalarKind {
        if !self.plain {
            return ScalarKind::Text;
        }
        let t = self.text.as_str();
        match t {
            "" | "~" | "null" | "Null" | "NULL" => ScalarKind::Null,
            "true" | "True" | "TRUE" | "false" | "False" | "FALSE" => ScalarKind::Bool,
            ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" | "-.inf" | "-.Inf"
            | "-.INF" | ".nan" | ".NaN" | ".NAN" => ScalarKind::Number,
            _ if is_number(t) => ScalarKind::Number,
            _ => ScalarKind::Text,
        }
    }
}

impl Node {
    /// The value as JSON, read by the YAML 1.2 core schema as a YAML
    /// library reads it: null, booleans, numbers (a number JSON cannot
    /// hold, `.inf` or `.nan`, as its text), text, sequences as arrays,
    /// mappings as objects keyed by each key's text (the first of a
    /// repeated key kept).
    pub(crate) fn to_json(&self) -> serde_json::Value {
        use serde_json::Value;
        match &self.kind {
            NodeKind::Scalar(scalar) => match scalar.kind() {
                ScalarKind::Null => Value::Null,
                ScalarKind::Bool => Value::Bool(scalar.text.eq_ignore_ascii_case("true")),
                ScalarKind::Number => number(&scalar.text),
                ScalarKind::Text => Value::String(scalar.text.clone()),
            },
            NodeKind::Sequence(items) => Value::Array(items.iter().map(Node::to_json).collect()),
            NodeKind::Mapping(entries) => Value::Object(to_json_object(entries)),
        }
    }
}

/// A mapping's entries as a JSON object (see [`Node::to_json`]).
pub(crate) fn to_json_object(
    entries: &[(Node, Node)],
) -> serde_json::Map<String, serde_json::Value> {
    let mut object = serde_json::Map::new();
    for (key, value) in entries {
        let key = match &key.kind {
            NodeKind::Scalar(scalar) => scalar.text.clone(),
            _ => key.to_json().to_string(),
        };
        object.entry(key).or_insert_with(|| value.to_json());
    }
    object
}

/// A core-schema number as JSON: an integer (decimal, `0x`, `0o`) when it
/// is one, else a float; its text when JSON has no such number.
fn number(text: &str) -> serde_json::Value {
    let (negative, unsigned) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let integer = if let Some(hex) = unsigned.strip_prefix("0x") {
        i64::from_str_radix(hex, 16).ok()
    } else if let Some(oct) = unsigned.strip_prefix("0o") {
        i64::from_str_radix(oct, 8).ok()
    } else {
        unsigned.parse::<i64>().ok()
    };
    if let Some(integer) = integer {
        return serde_json::Value::from(if negative { -integer } else { integer });
    }
    text.parse::<f64>()
        .ok()
        .and_then(serde_json::Number::from_f64)
        .map_or_else(
            || serde_json::Value::String(text.to_owned()),
            serde_json::Value::Number,
        )
}

fn is_number(t: &str) -> bool {
    let unsigned = t.strip_prefix(['-', '+']).unwrap_or(t);
    if let Some(hex) = unsigned.strip_prefix("0x") {
        return !hex.is_empty() && hex.chars().all(|c| c.is_ascii_hexdigit());
    }
    if let Some(oct) = unsigned.strip_prefix("0o") {
        return !oct.is_empty() && oct.chars().all(|c| ('0'..='7').contains(&c));
    }
    // `f64::from_str` alone would also take `inf` and `NaN`, which YAML reads as text.
    unsigned.starts_with(|c: char| c.is_ascii_digit() || c == '.')
        && unsigned.chars().any(|c| c.is_ascii_digit())
        && t.parse::<f64>().is_ok()
}

impl NodeKind {
    pub(crate) fn describe(&self) -> &'static str {
        match self {
            NodeKind::Scalar(s) => match s.kind() {
                ScalarKind::Null => "null",
                ScalarKind::Bool => "a boolean",
                ScalarKind::Number => "a number",
                ScalarKind::Text => "a string",
            },
            NodeKind::Sequence(_) => "a list",
            NodeKind::Mapping(_) => "a mapping",
        }
    }
}

/// A front matter that was found, read and is a mapping.
#[derive(Debug)]
pub(crate) struct FrontMatter<'a> {
    yaml: &'a str,
    /// Byte offset of each character of `yaml`, plus one past the end, because
    /// the parser counts characters and slicing needs bytes.
    char_bytes: Vec<usize>,
    pub(crate) entries: Vec<(Node, Node)>,
    pub(crate) body: &'a str,
}

/// File line of the front matter's first line: line 1 is the opening `---`.
const FIRST_YAML_LINE: usize = 2;

fn file_position(marker: &Marker) -> Position {
    Position {
        line: marker.line() + FIRST_YAML_LINE - 1,
        column: marker.col() + 1,
    }
}

/// Finds the front matter and the body, without reading the YAML.
fn split(text: &str) -> Result<(&str, &str), FrontMatterError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let opening = lines.next().ok_or(FrontMatterError::Missing)?;
    if !is_fence(opening) {
        return Err(FrontMatterError::Missing);
    }
    let yaml_start = opening.len();
    let mut offset = yaml_start;
    for line in lines {
        if offset - yaml_start > MAX_FRONT_MATTER_BYTES {
            return Err(FrontMatterError::TooLarge {
                max: MAX_FRONT_MATTER_BYTES,
            });
        }
        if is_fence(line) {
            let yaml = text.get(yaml_start..offset).unwrap_or_default();
            let body = text.get(offset + line.len()..).unwrap_or_default();
            return Ok((yaml, body));
        }
        offset += line.len();
    }
    if offset - yaml_start > MAX_FRONT_MATTER_BYTES {
        return Err(FrontMatterError::TooLarge {
            max: MAX_FRONT_MATTER_BYTES,
        });
    }
    Err(FrontMatterError::Unterminated)
}

fn is_fence(line: &str) -> bool {
    line.trim_end() == "---"
}

enum Frame {
    Sequence {
        items: Vec<Node>,
        start: Marker,
    },
    Mapping {
        entries: Vec<(Node, Node)>,
        key: Option<Node>,
        start: Marker,
    },
}

/// Reads the front matter of a `SKILL.md`.
pub(crate) fn read_front_matter(text: &str) -> Result<FrontMatter<'_>, FrontMatterError> {
    let (yaml, body) = split(text)?;
    let root = parse_tree(yaml)?;
    let entries = match root {
        Some(Node {
            kind: NodeKind::Mapping(entries),
            ..
        }) => entries,
        Some(other) => {
            return Err(FrontMatterError::NotAMapping {
                found: other.kind.describe(),
                position: other.position,
            });
        }
        None => {
            return Err(FrontMatterError::NotAMapping {
                found: "nothing",
                position: Position {
                    line: FIRST_YAML_LINE,
                    column: 1,
                },
            });
        }
    };
    let mut char_bytes: Vec<usize> = yaml.char_indices().map(|(i, _)| i).collect();
    char_bytes.push(yaml.len());
    Ok(FrontMatter {
        yaml,
        char_bytes,
        entries,
        body,
    })
}

fn parse_tree(yaml: &str) -> Result<Option<Node>, FrontMatterError> {
    let mut stack: Vec<Frame> = Vec::new();
    let mut root: Option<Node> = None;
    for event in Parser::new_from_str(yaml) {
        let (event, span) = event.map_err(|e| FrontMatterError::Syntax {
            message: e.info().to_owned(),
            position: file_position(e.marker()),
        })?;
        let refuse_anchor = |anchor: usize| {
            if anchor == 0 {
                Ok(())
            } else {
                Err(FrontMatterError::Alias {
                    position: file_position(&span.start),
                })
            }
        };
        let open = |stack: &Vec<Frame>| {
            if stack.len() >= MAX_DEPTH {
                Err(FrontMatterError::TooDeep {
                    max: MAX_DEPTH,
                    position: file_position(&span.start),
                })
            } else {
                Ok(())
            }
        };
        let done = match event {
            Event::Alias(_) => {
                return Err(FrontMatterError::Alias {
                    position: file_position(&span.start),
                });
            }
            Event::Scalar(text, style, anchor, tag) => {
                refuse_anchor(anchor)?;
                let tagged_str = tag.is_some_and(|t| t.suffix == "str");
                Node {
                    kind: NodeKind::Scalar(Scalar {
                        text: text.into_owned(),
                        plain: style == ScalarStyle::Plain && !tagged_str,
                    }),
                    position: file_position(&span.start),
                    start_char: span.start.index(),
                    end_char: span.end.index(),
                }
            }
            Event::SequenceStart(anchor, _) => {
                refuse_anchor(anchor)?;
                open(&stack)?;
                stack.push(Frame::Sequence {
                    items: Vec::new(),
                    start: span.start,
                });
                continue;
            }
            Event::MappingStart(anchor, _) => {
                refuse_anchor(anchor)?;
                open(&stack)?;
                stack.push(Frame::Mapping {
                    entries: Vec::new(),
                    key: None,
                    start: span.start,
                });
                continue;
            }
            Event::SequenceEnd | Event::MappingEnd => match stack.pop() {
                Some(Frame::Sequence { items, start }) => {
                    container(NodeKind::Sequence(items), start)
                }
                Some(Frame::Mapping { entries, start, .. }) => {
                    container(NodeKind::Mapping(entries), start)
                }
                None => continue,
            },
            Event::Nothing
            | Event::StreamStart
            | Event::StreamEnd
            | Event::DocumentStart(_)
            | Event::DocumentEnd => continue,
        };
        match stack.last_mut() {
            Some(Frame::Sequence { items, .. }) => items.push(done),
            Some(Frame::Mapping { entries, key, .. }) => match key.take() {
                Some(k) => entries.push((k, done)),
                None => *key = Some(done),
            },
            None if root.is_none() => root = Some(done),
            None => {
                return Err(FrontMatterError::Syntax {
                    message: "more than one YAML document: remove the `...` line".to_owned(),
                    position: done.position,
                });
            }
        }
    }
    Ok(root)
}

fn container(kind: NodeKind, start: Marker) -> Node {
    Node {
        kind,
        position: file_position(&start),
        start_char: start.index(),
        end_char: start.index(),
    }
}

impl FrontMatter<'_> {
    /// The source text of a node as written, quotes and indentation included.
    fn source(&self, node: &Node) -> &str {
        let start = self.char_bytes.get(node.start_char).copied();
        let end = self.char_bytes.get(node.end_char).copied();
        match (start, end) {
            (Some(s), Some(e)) if s <= e => self.yaml.get(s..e).unwrap_or_default(),
            _ => "",
        }
    }

    /// Maps places in a scalar's value back to places in the file.
    pub(crate) fn locator<'n>(&'n self, node: &'n Node) -> ScalarLocator<'n> {
        let source = self.source(node);
        ScalarLocator {
            source,
            start: node.position,
            direct: matches!(&node.kind, NodeKind::Scalar(s) if s.text == source),
            cursor: 0,
            last: (0, node.position),
        }
    }
}

/// Counts from the last place located when it lies before `offset`, so a
/// left-to-right pass costs linear time however many tokens it has.
fn advance_from(
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

/// Positions inside a YAML scalar. A plain one-line scalar is its own source,
/// so places map exactly; quoted and block scalars change the text (escapes,
/// folding, indentation), so the snippet's first 16 characters are looked up
/// in the source, left to right, and the scalar's own position is the
/// fallback.
pub(crate) struct ScalarLocator<'a> {
    source: &'a str,
    start: Position,
    direct: bool,
    cursor: usize,
    last: (usize, Position),
}

impl Locate for ScalarLocator<'_> {
    fn locate(&mut self, at: Position, snippet: &str) -> Position {
        if self.direct {
            return within(self.start, at);
        }
        let snippet = first_chars(snippet);
        let found = if snippet.is_empty() {
            None
        } else {
            // A bounded window keeps hostile input linear: each lookup reads at
            // most SEARCH_WINDOW bytes past the previous token.
            let mut end = (self.cursor + SEARCH_WINDOW).min(self.source.len());
            while !self.source.is_char_boundary(end) {
                end -= 1;
            }
            self.source
                .get(self.cursor..end)
                .and_then(|window| window.find(snippet))
                .map(|i| i + self.cursor)
        };
        match found {
            Some(offset) => {
                // Past the snippet, so that a repeated name (`Bash(a) Bash(b)`)
                // is found at its next place rather than at the same one again.
                self.cursor = offset + snippet.len();
                advance_from(self.source, self.start, &mut self.last, offset)
            }
            None => self.start,
        }
    }
}

const SEARCH_WINDOW: usize = 4096;

/// At most the first 16 characters of `snippet`: enough of a name to find
/// it again in a quoted or block scalar's source.
fn first_chars(snippet: &str) -> &str {
    let end = snippet
        .char_indices()
        .nth(16)
        .map_or(snippet.len(), |(i, _)| i);
    snippet.get(..end).unwrap_or(snippet)
}

/// The position of `at`, a place in a text that starts at `start`.
fn within(start: Position, at: Position) -> Position {
    if at.line == 1 {
        Position {
            line: start.line,
            column: start.column + at.column - 1,
        }
    } else {
        Position {
            line: start.line + at.line - 1,
            column: at.column,
        }
    }
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
