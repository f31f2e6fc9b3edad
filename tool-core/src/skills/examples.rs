//! Call examples that prove what a skill's `allowed-tools` admits
//! (docs/skills-examples.md). Under the specification's `metadata` map a
//! skill lists calls its `allowed-tools` must admit and calls it must
//! refuse, written like tokens (`Bash(git diff --stat)`) and read by the
//! `allowed-tools` tokenizer. Checking them against a host's tools is
//! [`check_examples`](crate::skills::check_examples)'s.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::ScopeKind;
use crate::skills::allowed_tools::{ToolPattern, ToolTarget, tokenize_located};
use crate::skills::diagnostic::{Code, Diagnostic, Position};
use crate::skills::yaml::{FrontMatter, Node, NodeKind, ScalarKind};

/// The `metadata` key listing calls that `allowed-tools` must admit.
pub const ADMITS_KEY: &str = "allowed-tools-admits";
/// The `metadata` key listing calls that `allowed-tools` must refuse.
pub const REFUSES_KEY: &str = "allowed-tools-refuses";
/// The prefix of a `metadata` key stating the scope kind of a tool a host
/// may not register: `allowed-tools-kind-Bash: command`.
pub const KIND_KEY_PREFIX: &str = "allowed-tools-kind-";

/// How an example must come out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Expected {
    /// Listed under [`ADMITS_KEY`].
    Admitted,
    /// Listed under [`REFUSES_KEY`].
    Refused,
}

/// One call example.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallExample {
    /// How it must come out.
    pub expected: Expected,
    /// The tool called, by its registered name.
    pub tool: String,
    /// The value of the call's scope argument; `None` for `Tool` or
    /// `Tool(*)`, a call that carries none.
    pub value: Option<String>,
    /// Where the example is written.
    pub position: Position,
}

/// Written back as a token: `Bash(git diff --stat)`.
impl fmt::Display for CallExample {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.tool)?;
        if let Some(value) = &self.value {
            f.write_str("(")?;
            for c in value.chars() {
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

/// What a skill's `metadata` gives to check its `allowed-tools` with.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallExamples {
    /// The examples, admits first, each list in written order.
    pub examples: Vec<CallExample>,
    /// The scope kinds the skill states, by tool name. Used only for tools
    /// the host does not register: a registered tool's own declaration
    /// decides, as it does in the gates.
    pub kinds: BTreeMap<String, ScopeKind>,
}

/// Reads the examples and stated kinds out of the `metadata` mapping. Keys
/// and values that are not text were already reported by the manifest
/// reader; a repeated key counts once, the first time, as there.
pub(crate) fn from_metadata(node: &Node, fm: &FrontMatter<'_>) -> (CallExamples, Vec<Diagnostic>) {
    let mut out = CallExamples::default();
    let mut diagnostics = Vec::new();
    let NodeKind::Mapping(entries) = &node.kind else {
        return (out, diagnostics);
    };
    let mut seen = BTreeSet::new();
    let mut lists = Vec::new();
    for (key, value) in entries {
        let (NodeKind::Scalar(k), NodeKind::Scalar(v)) = (&key.kind, &value.kind) else {
            continue;
        };
        if k.kind() == ScalarKind::Null || v.kind() == ScalarKind::Null || !seen.insert(&k.text) {
            continue;
        }
        let key = k.text.as_str();
        match key {
            ADMITS_KEY => lists.push((0, Expected::Admitted, key, value, &v.text)),
            REFUSES_KEY => lists.push((1, Expected::Refused, key, value, &v.text)),
            _ => {
                if let Some(tool) = key.strip_prefix(KIND_KEY_PREFIX) {
                    match stated_kind(tool, &v.text) {
                        Ok(kind) => {
                            out.kinds.insert(tool.to_owned(), kind);
                        }
                        Err(message) => diagnostics.push(Diagnostic::new(
                            Code::MalformedExample,
                            value.position,
                            message,
                        )),
                    }
                }
            }
        }
    }
    lists.sort_by_key(|(order, ..)| *order);
    for (_, expected, key, node, text) in lists {
        let (patterns, found) = tokenize_located(text, &mut fm.locator(node));
        // Commas and repeats (warnings of the tokenizer) do not change which
        // calls are meant; a token that cannot be read is an example lost.
        diagnostics.extend(found.into_iter().filter(Diagnostic::is_error).map(|d| {
            Diagnostic::new(
                Code::MalformedExample,
                d.position,
                format!(
                    "an example of `metadata.{key}` cannot be read, so it is not checked ({}: {})",
                    d.code, d.message
                ),
            )
        }));
        for pattern in patterns {
            match example(expected, pattern) {
                Ok(example) => out.examples.push(example),
                Err(d) => diagnostics.push(d),
            }
        }
    }
    (out, diagnostics)
}

fn stated_kind(tool: &str, value: &str) -> Result<ScopeKind, String> {
    if tool.is_empty() {
        return Err(format!(
            "`metadata.{KIND_KEY_PREFIX}` names no tool: write the tool after it, as in \
             `{KIND_KEY_PREFIX}Bash: command`"
        ));
    }
    match value.trim() {
        "command" => Ok(ScopeKind::Command),
        "path" => Ok(ScopeKind::Path),
        "text" => Ok(ScopeKind::Text),
        other => Err(format!(
            "`metadata.{KIND_KEY_PREFIX}{tool}` is `{other}`, which is no scope kind: write \
             `command`, `path` or `text`"
        )),
    }
}

fn example(expected: Expected, pattern: ToolPattern) -> Result<CallExample, Diagnostic> {
    match pattern.target {
        ToolTarget::Tool(tool) => Ok(CallExample {
            expected,
            tool,
            value: pattern.scope.map(|s| s.as_str().to_owned()),
            position: pattern.position,
        }),
        ToolTarget::McpServer(server) => Err(Diagnostic::new(
            Code::MalformedExample,
            pattern.position,
            format!(
                "`mcp__{server}__*` names every tool of a server, and an example is one call: \
                 name one tool, as in `mcp__{server}__tool`"
            ),
        )),
    }
}
