//! What a tool declares about itself, and where it was declared.

use std::borrow::Cow;
use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// A tool's declaration: the keys of `#[tool(...)]` plus its description.
///
/// Const-constructible (`Cow::Borrowed`) so that the derive can put it in a
/// `'static` registration; owned for tools added at run time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Declaration {
    /// The wire name, `^[A-Za-z0-9_-]{1,64}$`.
    pub name: Cow<'static, str>,
    /// The family switched on and off together.
    pub group: Cow<'static, str>,
    /// What the model reads: the doc comment, at most 1,024 characters.
    pub description: Cow<'static, str>,
    /// A display title for people.
    pub title: Option<Cow<'static, str>>,
    /// Offered to administrators only.
    pub requires_admin: bool,
    /// The network reach the tool needs.
    pub egress: Egress,
    /// Whether it changes anything.
    pub effect: Effect,
    /// Whether it ships enabled.
    pub shipped: Shipped,
    /// The argument scoped grants are matched against, and what it is.
    pub scope: Option<Scope>,
    /// The class of data the tool returns (gate 8).
    pub data: DataClass,
    /// Whether what the tool returns can carry text written by others
    /// (gate 9). Absent in declarations stored before it existed: read as
    /// [`Content::Untrusted`], the strictest.
    #[serde(default)]
    pub content: Content,
    /// How long a call may run without progress
    /// ([`calls`](crate::calls)); `None` takes the host's default.
    #[serde(default)]
    pub timeout: Option<Duration>,
    /// Whether calling twice does what calling once does, so a call that
    /// failed [transiently](crate::ToolError::Transient) may be retried.
    /// Read tools are, write tools are not, unless they declare otherwise.
    #[serde(default)]
    pub idempotent: bool,
    /// Whether a call may run as a task the client polls (MCP's tasks
    /// extension), rather than answering in the request.
    #[serde(default)]
    pub task: TaskSupport,
}

/// Whether a tool's call may run as a task the client polls (MCP's tasks
/// extension, `execution.taskSupport`): a promise about how the tool is
/// called, not about what it may do, so no gate reads it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskSupport {
    /// Always answered in the request (the default).
    #[default]
    Forbidden,
    /// As a task where the client asks for tasks, else in the request.
    Optional,
    /// Only as a task: a client that cannot poll one is refused.
    Required,
}

/// A tool's scope argument: the JSON property a scoped grant such as
/// `read_source(src/**)` is matched against, and its kind, which decides
/// how the pattern is read.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Scope {
    /// The JSON property, a string argument of the tool.
    pub property: Cow<'static, str>,
    /// What the argument is.
    pub kind: ScopeKind,
}

/// What a scope argument is. A pattern's meaning comes from here, never from
/// the pattern's text (docs/scopes.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ScopeKind {
    /// One simple shell command, matched word by word.
    Command,
    /// A relative path inside the tool's root, matched segment by segment.
    Path,
    /// Any other text (an identifier, a URL): exact or `*` wildcards.
    Text,
}

impl fmt::Display for ScopeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ScopeKind::Command => "command",
            ScopeKind::Path => "path",
            ScopeKind::Text => "text",
        })
    }
}

/// The class of what a tool returns, least to most sensitive. A run's
/// trust-zone ceiling admits the tools whose class is at or below it
/// (gate 8). A tool that declares none counts as [`DataClass::Personal`].
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum DataClass {
    /// Anyone may see it (a page tree of a public site).
    Public,
    /// For the organisation, not secret (versions, log levels).
    Internal,
    /// Business data that must stay in the zone (settings, source code).
    Confidential,
    /// Data about people; the strictest class, and the default.
    #[default]
    Personal,
}

impl std::str::FromStr for DataClass {
    type Err = String;

    /// The class as [`Display`](fmt::Display) writes it; anything else
    /// is refused with the four names.
    fn from_str(text: &str) -> Result<Self, String> {
        match text.trim() {
            "public" => Ok(DataClass::Public),
            "internal" => Ok(DataClass::Internal),
            "confidential" => Ok(DataClass::Confidential),
            "personal" => Ok(DataClass::Personal),
            other => Err(format!(
                "`{other}` is not a data class: public, internal, confidential or personal"
            )),
        }
    }
}

impl fmt::Display for DataClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DataClass::Public => "public",
            DataClass::Internal => "internal",
            DataClass::Confidential => "confidential",
            DataClass::Personal => "personal",
        })
    }
}

/// Whether what a tool returns can carry text written by someone other
/// than the host: a page body, a log line, a file name, a search hit, a
/// fetched response. Such text may try to instruct the model (prompt
/// injection), so a run that has read it is exposed (gate 9,
/// [`Exposure`](crate::exposure::Exposure)). A tool that declares none
/// counts as [`Content::Untrusted`], the strictest, as an undeclared data
/// class counts as [`DataClass::Personal`].
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Content {
    /// Only what the host itself composes: numbers, states, names it
    /// chose, structure. Nothing a visitor, an editor or another site
    /// wrote.
    Trusted,
    /// May carry text others wrote; the default.
    #[default]
    Untrusted,
}

impl fmt::Display for Content {
    /// The word of its serialized form: `trusted`, `untrusted`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Content::Trusted => "trusted",
            Content::Untrusted => "untrusted",
        })
    }
}

/// Whether a tool changes anything. There is no third, unclassified state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    /// Reads only; implements [`Execute`](crate::Execute).
    Read,
    /// Changes something; implements [`Write`](crate::Write) and every call
    /// waits for a person's approval.
    Write,
}

impl fmt::Display for Effect {
    /// The word of its serialized form: `read`, `write`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Effect::Read => "read",
            Effect::Write => "write",
        })
    }
}

/// The network reach a tool needs, or a group is granted. There is no
/// "any host".
///
/// Serialized in snake case (`"none"`, `"own_site"`), the words of the
/// `egress = "…"` key of `#[tool(...)]`.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Egress {
    /// No network at all; the default for every tool and every group.
    #[default]
    None,
    /// Only the host's own configured sites.
    OwnSite,
}

impl fmt::Display for Egress {
    /// The word of its serialized form: `none`, `own_site`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Egress::None => "none",
            Egress::OwnSite => "own_site",
        })
    }
}

impl Egress {
    /// Whether a group with this scope may offer a tool that declares
    /// `declared`: a tool whose egress is wider than its group's is never
    /// offered (gate 4).
    pub fn permits(self, declared: Egress) -> bool {
        match (self, declared) {
            (_, Egress::None) | (Egress::OwnSite, Egress::OwnSite) => true,
            (Egress::None, Egress::OwnSite) => false,
        }
    }
}

/// A tool's state when no administrator has overridden it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Shipped {
    /// Offered unless an administrator disables it.
    Enabled,
    /// Offered only after an administrator enables it.
    Disabled,
}

impl fmt::Display for Shipped {
    /// The word of its serialized form: `enabled`, `disabled`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Shipped::Enabled => "enabled",
            Shipped::Disabled => "disabled",
        })
    }
}

/// Where a tool was declared, so that a duplicate name can name both places.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct DefinitionSite {
    /// The declaring package (`CARGO_PKG_NAME`).
    pub crate_name: &'static str,
    /// `module_path!()` at the declaration.
    pub module_path: &'static str,
    /// `file!()` at the declaration.
    pub file: &'static str,
    /// `line!()` at the declaration.
    pub line: u32,
}

impl fmt::Display for DefinitionSite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}:{})", self.crate_name, self.file, self.line)
    }
}

/// The derive checks the same rules at compile time (one definition, the
/// `tool-rules` crate); these check tools added at run time.
pub use tool_rules::{is_valid_group_name, is_valid_tool_name};
