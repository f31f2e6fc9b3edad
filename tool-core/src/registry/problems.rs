//! What a registry build reports when it refuses the tools.

use std::fmt;
use std::time::Duration;

use crate::DefinitionSite;

/// Everything a registry build found wrong, all at once.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct RegistryError {
    /// Every problem, sorted by tool name.
    pub problems: Vec<BuildProblem>,
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the tool registry has {} problem(s):",
            self.problems.len()
        )?;
        for problem in &self.problems {
            write!(f, "\n  - {problem}")?;
        }
        Ok(())
    }
}

/// One problem found by [`RegistryBuilder::build`](crate::RegistryBuilder::build).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, thiserror::Error)]
#[non_exhaustive]
pub enum BuildProblem {
    /// Two tools share a name; neither is kept.
    #[error("tool name `{name}` is declared twice: in {first} and in {second}")]
    DuplicateName {
        /// The shared name.
        name: String,
        /// One definition.
        first: DefinitionSite,
        /// The other definition.
        second: DefinitionSite,
    },
    /// The name breaks `^[A-Za-z0-9_-]{1,64}$`.
    #[error("tool name `{name}` (in {site}) breaks `^[A-Za-z0-9_-]{{1,64}}$`")]
    InvalidName {
        /// The name.
        name: String,
        /// Where it was declared.
        site: DefinitionSite,
    },
    /// The group breaks `^[a-z][a-z0-9_-]{0,63}$`.
    #[error(
        "tool `{name}` (in {site}) has group `{group}`, which breaks `^[a-z][a-z0-9_-]{{0,63}}$`"
    )]
    InvalidGroup {
        /// The tool.
        name: String,
        /// Its group.
        group: String,
        /// Where it was declared.
        site: DefinitionSite,
    },
    /// The description is empty or longer than 1,024 characters.
    #[error(
        "tool `{name}` (in {site}) has a description of {length} characters: 1 to 1024 are allowed"
    )]
    InvalidDescription {
        /// The tool.
        name: String,
        /// Its length in characters.
        length: usize,
        /// Where it was declared.
        site: DefinitionSite,
    },
    /// The arguments schema's root is not `type: object`.
    #[error(
        "tool `{name}` (in {site}) has an arguments schema whose root is {found}, not an object"
    )]
    SchemaNotObject {
        /// The tool.
        name: String,
        /// Where it was declared.
        site: DefinitionSite,
        /// The root's `type`.
        found: String,
    },
    /// The schema could not be generated or compiled.
    #[error("tool `{name}` (in {site}) has an unusable schema: {reason}")]
    InvalidSchema {
        /// The tool.
        name: String,
        /// Where it was declared.
        site: DefinitionSite,
        /// Why.
        reason: String,
    },
    /// `scope` names a property the schema does not have (for instance
    /// after a serde `rename_all`).
    #[error(
        "tool `{name}` (in {site}) declares the scope argument `{scope}`, but its schema has no such property"
    )]
    ScopeNotInSchema {
        /// The tool.
        name: String,
        /// The declared scope property.
        scope: String,
        /// Where it was declared.
        site: DefinitionSite,
    },
    /// A provider form could not be made from the schema.
    #[error("tool `{name}` (in {site}) has a schema no provider form can be made of: {reason}")]
    Unexportable {
        /// The tool.
        name: String,
        /// Where it was declared.
        site: DefinitionSite,
        /// Why.
        reason: String,
    },
    /// The declared timeout is zero or longer than
    /// [`MAX_TOOL_TIMEOUT`](crate::calls::MAX_TOOL_TIMEOUT).
    #[error(
        "tool `{name}` (in {site}) declares a timeout of {timeout:?}: give more than zero and at most one hour"
    )]
    InvalidTimeout {
        /// The tool.
        name: String,
        /// Its timeout.
        timeout: Duration,
        /// Where it was declared.
        site: DefinitionSite,
    },
    /// A run-time tool declared `effect = write`, which needs the two-phase
    /// `Write` path that only derived tools have.
    #[error(
        "run-time tool `{name}` (from {site}) declares effect `write`, which run-time tools cannot have yet"
    )]
    UnsupportedDynamicWrite {
        /// The tool.
        name: String,
        /// Where it came from.
        site: DefinitionSite,
    },
}
