//! Diagnostics: what a reader of a `SKILL.md` found, where, and how bad it is.

use std::fmt;

use serde::{Deserialize, Serialize};

/// How much a diagnostic matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The file is still usable as read; the author should look.
    Warning,
    /// The file, or the part of it named, is refused.
    Error,
}

/// A place in a file: 1-based line and 1-based column, counted in characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Position {
    /// Line, from 1.
    pub line: usize,
    /// Column, from 1, in Unicode scalar values.
    pub column: usize,
}

impl Position {
    /// The first character of a file.
    pub const START: Position = Position { line: 1, column: 1 };
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

macro_rules! codes {
    ($($(#[$doc:meta])* $variant:ident = $id:literal, $severity:ident;)*) => {
        /// A stable diagnostic code; the table in the [module docs](crate::skills)
        /// lists them all. Codes are never reused for another meaning.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[non_exhaustive]
        pub enum Code {
            $($(#[$doc])* $variant,)*
        }

        impl Code {
            /// Every code, in table order.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// The stable identifier, such as `S001`.
            pub fn id(self) -> &'static str {
                match self {
                    $(Code::$variant => $id,)*
                }
            }

            /// The severity that this code always carries.
            pub fn severity(self) -> Severity {
                match self {
                    $(Code::$variant => Severity::$severity,)*
                }
            }
        }
    };
}

codes! {
    /// The file does not start with a `---` line.
    MissingFrontMatter = "S001", Error;
    /// No closing `---` line after the front matter.
    UnterminatedFrontMatter = "S002", Error;
    /// The front matter is larger than [`MAX_FRONT_MATTER_BYTES`](crate::skills::MAX_FRONT_MATTER_BYTES).
    FrontMatterTooLarge = "S003", Error;
    /// The front matter is not valid YAML.
    YamlSyntax = "S004", Error;
    /// A YAML alias or anchor: refused so that alias bombs cannot expand.
    YamlAlias = "S005", Error;
    /// The front matter is not a mapping of keys to values.
    NotAMapping = "S006", Error;
    /// The YAML nests deeper than the reader follows.
    YamlTooDeep = "S007", Error;
    /// A key appears twice in one mapping.
    DuplicateKey = "S008", Error;
    /// A key the specification does not define.
    UnknownField = "S010", Error;
    /// `name` is missing.
    MissingName = "S011", Error;
    /// `name` breaks the specification's rules for names.
    InvalidName = "S012", Error;
    /// `name` differs from the skill's folder name.
    NameFolderMismatch = "S013", Error;
    /// `description` is missing or empty.
    MissingDescription = "S014", Error;
    /// `description` is longer than 1,024 characters.
    DescriptionTooLong = "S015", Error;
    /// `compatibility` is empty or longer than 500 characters.
    InvalidCompatibility = "S016", Error;
    /// A field holds the wrong kind of YAML value.
    WrongType = "S017", Error;
    /// A number or boolean where text is expected: taken as its text.
    ScalarTakenAsText = "S018", Warning;
    /// `allowed-tools` is null or empty: it declares zero tools.
    NoToolsDeclared = "S020", Warning;
    /// `allowed-tools` separates tokens with commas.
    CommaSeparated = "S021", Warning;
    /// `allowed-tools` is a map, number or boolean.
    AllowedToolsWrongType = "S022", Error;
    /// An `allowed-tools` list item is not a string.
    ListItemNotString = "S023", Error;
    /// A `(` is never closed.
    UnterminatedParen = "S024", Error;
    /// A `)` closes nothing.
    StrayParen = "S025", Error;
    /// An empty scope, `Tool()`.
    EmptyScope = "S026", Error;
    /// A scope with no tool name before it.
    ScopeWithoutTool = "S027", Error;
    /// A `*` in a tool name that is not `mcp__server__*`.
    UnanchoredWildcard = "S028", Error;
    /// A tool name with characters no tool name has.
    InvalidToolName = "S029", Error;
    /// The same token twice; folded into one.
    DuplicateToken = "S030", Warning;
    /// Text right after a scope's `)`.
    TextAfterScope = "S031", Error;
    /// A scope on a whole MCP server.
    ScopeOnServer = "S032", Error;
    /// `allowed-tools` is set more than once: the skill allows no tools.
    AllowedToolsTwice = "S033", Error;
    /// A near-miss spelling of `allowed-tools` (`allowed_tools`,
    /// `allowedTools`, …): the skill allows no tools.
    AllowedToolsMisspelled = "S034", Error;
    /// A `\` outside a scope, or one that escapes the `)` meant to close it.
    BadEscape = "S035", Error;
    /// No registered tool has this name.
    UnresolvedTool = "S040", Warning;
    /// A scope on a tool that has no `scope` field: it cannot be enforced.
    UnenforceableScope = "S041", Warning;
    /// No registered tool belongs to this MCP server.
    UnresolvedServer = "S042", Warning;
    /// `description` opens with when to use the skill, not what it does.
    DescriptionOpensWithoutWhat = "S050", Warning;
    /// `description` never says when to use the skill.
    DescriptionWithoutWhen = "S051", Warning;
    /// `description` is shorter than a useful sentence.
    DescriptionTooShort = "S052", Warning;
    /// A call example that `allowed-tools` must admit is refused.
    ExampleRefused = "S060", Error;
    /// A call example that `allowed-tools` must refuse is admitted.
    ExampleAdmitted = "S061", Error;
    /// A call example, or a scope kind stated for the examples, cannot be read.
    MalformedExample = "S062", Error;
    /// A call example cannot be checked: the kind of its tool's scope
    /// argument is unknown.
    ExampleUnchecked = "S063", Warning;
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// One finding: a code, a message a person can act on, and where. Its
/// severity is its code's ([`Diagnostic::severity`]); the serialized form
/// carries it too, so a stored diagnostic stands alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The stable code.
    pub code: Code,
    /// What is wrong and how to fix it.
    pub message: String,
    /// Where, in the file (or in the string handed to the tokenizer).
    pub position: Position,
}

impl Diagnostic {
    pub(crate) fn new(code: Code, position: Position, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            message: message.into(),
            position,
        }
    }

    /// How much it matters: always its code's severity.
    pub fn severity(&self) -> Severity {
        self.code.severity()
    }

    /// Whether this diagnostic refuses what it names.
    pub fn is_error(&self) -> bool {
        self.severity() == Severity::Error
    }
}

/// The serialized form: `severity` first, as it always was.
#[derive(Serialize, Deserialize)]
#[serde(rename = "Diagnostic")]
struct Stored<M> {
    severity: Severity,
    code: Code,
    message: M,
    position: Position,
}

impl Serialize for Diagnostic {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Stored {
            severity: self.severity(),
            code: self.code,
            message: self.message.as_str(),
            position: self.position,
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Diagnostic {
    /// Refuses a stored severity that is not the code's: the two cannot
    /// disagree in a value this crate made.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let stored = Stored::<String>::deserialize(deserializer)?;
        if stored.severity != stored.code.severity() {
            return Err(serde::de::Error::custom(format!(
                "diagnostic {} has severity {:?}, not {:?}",
                stored.code,
                stored.code.severity(),
                stored.severity
            )));
        }
        Ok(Diagnostic {
            code: stored.code,
            message: stored.message,
            position: stored.position,
        })
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = match self.severity() {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(
            f,
            "{}: {level}[{}]: {}",
            self.position, self.code, self.message
        )
    }
}
