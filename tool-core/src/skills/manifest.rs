//! Reading a whole `SKILL.md`: the front matter's fields, checked against the
//! Agent Skills specification, and the Markdown body.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::skills::allowed_tools::{self, AllowedTools};
use crate::skills::description::check_description;
use crate::skills::diagnostic::{Code, Diagnostic, Position};
use crate::skills::distance::distance;
use crate::skills::examples::{self, CallExamples};
use crate::skills::yaml::{
    FrontMatter, Node, NodeKind, ScalarKind, read_front_matter, to_json_object,
};

const MAX_NAME_CHARS: usize = 64;
const MAX_DESCRIPTION_CHARS: usize = 1024;
const MAX_COMPATIBILITY_CHARS: usize = 500;

const NAME: &str = "name";
const DESCRIPTION: &str = "description";
const LICENSE: &str = "license";
const COMPATIBILITY: &str = "compatibility";
const METADATA: &str = "metadata";
const ALLOWED_TOOLS: &str = "allowed-tools";
const FIELDS: [&str; 6] = [
    NAME,
    DESCRIPTION,
    LICENSE,
    COMPATIBILITY,
    METADATA,
    ALLOWED_TOOLS,
];

/// The fields of a `SKILL.md`, as read. A field that was present but
/// unusable is `None` (or left out of `metadata`), with a diagnostic.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillManifest {
    /// `name`, even when it breaks the naming rules (see the diagnostics).
    pub name: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// `license`.
    pub license: Option<String>,
    /// `compatibility`.
    pub compatibility: Option<String>,
    /// `metadata`: string keys to string values.
    pub metadata: BTreeMap<String, String>,
    /// `allowed-tools`.
    pub allowed_tools: AllowedTools,
    /// The call examples and scope kinds read out of `metadata`
    /// (docs/skills-examples.md); [`check_examples`](crate::skills::check_examples)
    /// runs them.
    #[serde(default)]
    pub examples: CallExamples,
    /// The Markdown after the front matter.
    pub body: String,
    /// The front matter whole, as JSON (what the MCP Skills extension
    /// lists): every field as written, the ones above and any other.
    #[serde(default)]
    pub front_matter: serde_json::Map<String, serde_json::Value>,
}

/// The outcome of reading a `SKILL.md`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[must_use = "the report says whether the skill may be used"]
pub struct SkillReport {
    /// `None` when the front matter could not be read at all.
    pub manifest: Option<SkillManifest>,
    /// Everything found, in file order.
    pub diagnostics: Vec<Diagnostic>,
}

impl SkillReport {
    /// Whether the file is a valid skill: no diagnostic is an error.
    pub fn is_valid(&self) -> bool {
        self.manifest.is_some() && !self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Reads a `SKILL.md` found in the folder `folder_name`, whose name the
/// skill's `name` must equal. Never panics, whatever `text` holds.
pub fn read_skill(text: &str, folder_name: &str) -> SkillReport {
    let fm = match read_front_matter(text) {
        Ok(fm) => fm,
        Err(e) => {
            return SkillReport {
                manifest: None,
                diagnostics: vec![e.to_diagnostic()],
            };
        }
    };
    let mut reader = Reader {
        diagnostics: Vec::new(),
    };
    let manifest = reader.manifest(&fm, folder_name);
    let mut diagnostics = reader.diagnostics;
    diagnostics.sort_by_key(|d| d.position);
    SkillReport {
        manifest: Some(manifest),
        diagnostics,
    }
}

/// Whether an unknown key is a near miss of `allowed-tools`: the same
/// letters once case, `-`, `_`, spaces and dots are set aside
/// (`allowed_tools`, `allowedTools`, `Allowed-Tools`, `allowed tools`), or
/// within two edits of them (`allowed-tool`, `alowed-tools`).
fn is_near_allowed_tools(key: &str) -> bool {
    const LETTERS: &str = "allowedtools";
    let letters: String = key
        .chars()
        .filter(|c| !matches!(c, '-' | '_' | ' ' | '.'))
        .flat_map(char::to_lowercase)
        .collect();
    letters == LETTERS || distance(&letters, LETTERS).is_some_and(|d| d <= 2)
}

struct Reader {
    diagnostics: Vec<Diagnostic>,
}

impl Reader {
    fn report(&mut self, code: Code, position: Position, message: String) {
        self.diagnostics
            .push(Diagnostic::new(code, position, message));
    }

    fn manifest(&mut self, fm: &FrontMatter<'_>, folder_name: &str) -> SkillManifest {
        let mut fields: BTreeMap<&str, &Node> = BTreeMap::new();
        let mut seen: BTreeSet<&str> = BTreeSet::new();
        // Set when `allowed-tools` cannot be read with certainty: then the
        // skill declares zero tools, since reading it as absent (no opinion)
        // would widen every run it takes part in.
        let mut allowed_tools_unsure = false;
        for (key, value) in &fm.entries {
            let NodeKind::Scalar(k) = &key.kind else {
                self.report(
                    Code::WrongType,
                    key.position,
                    format!("keys must be field names, not {}", key.kind.describe()),
                );
                continue;
            };
            let k = k.text.as_str();
            if k == ALLOWED_TOOLS && seen.contains(k) {
                allowed_tools_unsure = true;
                let first = fields.get(ALLOWED_TOOLS).map_or(0, |n| n.position.line);
                self.report(
                    Code::AllowedToolsTwice,
                    key.position,
                    format!(
                        "`allowed-tools` is set more than once (first value on line {first}), so \
                         which list counts is uncertain and this skill allows no tools at all: \
                         keep one list"
                    ),
                );
                continue;
            }
            if !seen.insert(k) {
                self.report(
                    Code::DuplicateKey,
                    key.position,
                    format!("`{k}` is set more than once: keep one"),
                );
                continue;
            }
            match FIELDS.iter().find(|f| **f == k) {
                Some(field) => {
                    fields.insert(field, value);
                }
                None if is_near_allowed_tools(k) => {
                    allowed_tools_unsure = true;
                    self.report(
                        Code::AllowedToolsMisspelled,
                        key.position,
                        format!(
                            "`{k}` looks like a misspelling of `allowed-tools`; left unread it \
                             would put no limit on the tools, so this skill allows no tools at \
                             all: rename the key to `allowed-tools`"
                        ),
                    );
                }
                None => self.report(
                    Code::UnknownField,
                    key.position,
                    format!(
                        "unknown field `{k}`: the specification defines `name`, `description`, \
                         `license`, `compatibility`, `metadata` and `allowed-tools`; move other \
                         data under `metadata`"
                    ),
                ),
            }
        }

        let name = fields.get(NAME).and_then(|n| self.text(NAME, n));
        match (&name, fields.get(NAME)) {
            (Some(name), Some(node)) => self.check_name(name, folder_name, node.position),
            (_, None) => self.report(
                Code::MissingName,
                Position::START,
                format!("`name` is required: add `name: {folder_name}`"),
            ),
            (None, Some(node)) => self.report(
                Code::MissingName,
                node.position,
                format!("`name` has no usable value: write `name: {folder_name}`"),
            ),
        }

        let description = fields
            .get(DESCRIPTION)
            .and_then(|n| self.text(DESCRIPTION, n));
        let at = fields
            .get(DESCRIPTION)
            .map_or(Position::START, |n| n.position);
        match &description {
            Some(d) if d.trim().is_empty() => self.report(
                Code::MissingDescription,
                at,
                "`description` is empty: say what the skill does and when to use it".to_owned(),
            ),
            Some(d) if d.chars().count() > MAX_DESCRIPTION_CHARS => self.report(
                Code::DescriptionTooLong,
                at,
                format!(
                    "`description` has {} characters, more than {MAX_DESCRIPTION_CHARS}: shorten \
                     it and move details into the body",
                    d.chars().count()
                ),
            ),
            Some(d) => self.diagnostics.extend(check_description(d, at)),
            None => self.report(
                Code::MissingDescription,
                at,
                "`description` is required: say what the skill does and when to use it".to_owned(),
            ),
        }

        let license = fields.get(LICENSE).and_then(|n| self.text(LICENSE, n));
        let compatibility = fields
            .get(COMPATIBILITY)
            .and_then(|n| self.text(COMPATIBILITY, n).map(|c| (c, n.position)));
        if let Some((c, at)) = &compatibility {
            let chars = c.chars().count();
            if c.trim().is_empty() || chars > MAX_COMPATIBILITY_CHARS {
                self.report(
                    Code::InvalidCompatibility,
                    *at,
                    format!(
                        "`compatibility` must hold 1 to {MAX_COMPATIBILITY_CHARS} characters, not \
                         {chars}: state only the requirements, or remove the field"
                    ),
                );
            }
        }
        let metadata = fields
            .get(METADATA)
            .map(|n| self.metadata(n))
            .unwrap_or_default();
        let examples = match fields.get(METADATA) {
            Some(node) => {
                let (examples, found) = examples::from_metadata(node, fm);
                self.diagnostics.extend(found);
                examples
            }
            None => CallExamples::default(),
        };

        let allowed_tools = if allowed_tools_unsure {
            AllowedTools::Declared(Vec::new())
        } else {
            let (allowed_tools, found) =
                allowed_tools::from_yaml(fields.get(ALLOWED_TOOLS).copied(), fm);
            self.diagnostics.extend(found);
            allowed_tools
        };

        SkillManifest {
            name,
            description,
            license,
            compatibility: compatibility.map(|(c, _)| c),
            metadata,
            allowed_tools,
            examples,
            body: fm.body.to_owned(),
            front_matter: to_json_object(&fm.entries),
        }
    }

    /// A field that holds text. Numbers and booleans are taken as written,
    /// with a warning; null and collections are not text.
    fn text(&mut self, field: &str, node: &Node) -> Option<String> {
        match &node.kind {
            NodeKind::Scalar(s) => match s.kind() {
                ScalarKind::Text => Some(s.text.clone()),
                ScalarKind::Null => None,
                ScalarKind::Bool | ScalarKind::Number => {
                    self.report(
                        Code::ScalarTakenAsText,
                        node.position,
                        format!(
                            "`{field}` is {}, taken as the text `{}`: quote it to say so",
                            node.kind.describe(),
                            s.text
                        ),
                    );
                    Some(s.text.clone())
                }
            },
            other => {
                self.report(
                    Code::WrongType,
                    node.position,
                    format!("`{field}` must be text, not {}", other.describe()),
                );
                None
            }
        }
    }

    fn check_name(&mut self, name: &str, folder_name: &str, at: Position) {
        let chars = name.chars().count();
        let problem = if chars == 0 {
            Some("is empty".to_owned())
        } else if chars > MAX_NAME_CHARS {
            Some(format!(
                "has {chars} characters, more than {MAX_NAME_CHARS}"
            ))
        } else if name.chars().any(|c| c.is_uppercase()) {
            Some(format!(
                "must be lowercase: write `{}`",
                name.to_lowercase()
            ))
        } else if let Some(c) = name
            .chars()
            .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-'))
        {
            Some(format!(
                "contains `{c}`: use only the letters a-z, digits and `-`"
            ))
        } else if name.starts_with('-') || name.ends_with('-') {
            Some("must not start or end with `-`".to_owned())
        } else if name.contains("--") {
            Some("must not contain `--`".to_owned())
        } else {
            None
        };
        if let Some(problem) = problem {
            self.report(Code::InvalidName, at, format!("`name` `{name}` {problem}"));
        } else if name != folder_name {
            self.report(
                Code::NameFolderMismatch,
                at,
                format!(
                    "`name` `{name}` differs from the folder `{folder_name}`: rename one to match \
                     the other"
                ),
            );
        }
    }

    fn metadata(&mut self, node: &Node) -> BTreeMap<String, String> {
        let NodeKind::Mapping(entries) = &node.kind else {
            self.report(
                Code::WrongType,
                node.position,
                format!(
                    "`metadata` must be a mapping of names to text, such as `author: me`, not {}",
                    node.kind.describe()
                ),
            );
            return BTreeMap::new();
        };
        let mut out = BTreeMap::new();
        for (key, value) in entries {
            let key_text = match &key.kind {
                NodeKind::Scalar(s) if s.kind() != ScalarKind::Null => s.text.clone(),
                other => {
                    self.report(
                        Code::WrongType,
                        key.position,
                        format!("`metadata` keys must be text, not {}", other.describe()),
                    );
                    continue;
                }
            };
            if out.contains_key(&key_text) {
                self.report(
                    Code::DuplicateKey,
                    key.position,
                    format!("`metadata.{key_text}` is set more than once: keep one"),
                );
                continue;
            }
            let field = format!("metadata.{key_text}");
            match self.text(&field, value) {
                Some(v) => {
                    out.insert(key_text, v);
                }
                None if matches!(&value.kind, NodeKind::Scalar(_)) => self.report(
                    Code::WrongType,
                    value.position,
                    format!("`{field}` has no value: give it text or remove it"),
                ),
                None => {}
            }
        }
        out
    }
}
