//! Call examples that prove what a skill's `allowed-tools` admits
//! (docs/skills-examples.md). Under the specification's `metadata` map a
//! skill lists calls its `allowed-tools` must admit and calls it must
//! refuse, written like tokens (`Bash(git diff --stat)`) and read by the
//! `allowed-tools` tokenizer. [`check_examples`] resolves the skill's
//! `allowed-tools` as gate 6 does and asks the resulting allowance, the one
//! a run's calls are checked against, about every example.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::ScopeKind;
use crate::skills::allow_list::{SkillsVerdict, allowances};
use crate::skills::allowed_tools::{AllowedTools, ToolPattern, ToolTarget, tokenize_located};
use crate::skills::diagnostic::{Code, Diagnostic, Position};
use crate::skills::effective::{EffectiveSkills, SkillRef, TrustLevel};
use crate::skills::manifest::SkillManifest;
use crate::skills::resolve::{KnownTool, Resolved, is_tool_of, resolve, sorted};
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

/// Runs every call example of `manifest` against its `allowed-tools`,
/// resolved for this skill alone against `known` (the host's tools) as gate
/// 6 resolves it, and reports each example that comes out the other way
/// (S060, S061) with the token that decided it, and each whose tool's scope
/// kind is unknown (S063: not checked, never passed).
///
/// A tool the host does not register is taken to be registered with the
/// kind the skill states for it (`allowed-tools-kind-Bash: command`).
#[must_use = "the diagnostics are the check's only result"]
pub fn check_examples(manifest: &SkillManifest, known: &[KnownTool<'_>]) -> Vec<Diagnostic> {
    let examples = &manifest.examples;
    if examples.examples.is_empty() {
        return Vec::new();
    }
    let mut tools = sorted(known).into_owned();
    for (name, kind) in &examples.kinds {
        if tools.binary_search_by(|k| k.name.cmp(name)).is_err() {
            tools.push(KnownTool {
                name,
                scope: Some(*kind),
            });
        }
    }
    tools.sort_by_key(|k| k.name);
    let find = |name: &str| tools.binary_search_by(|k| k.name.cmp(name)).ok();
    let skill = [SkillRef {
        id: manifest.name.clone().unwrap_or_default(),
        enabled: true,
        orphaned: false,
        trust: TrustLevel(0),
        allowed_tools: manifest.allowed_tools.clone(),
        text: String::new(),
    }];
    let verdicts = allowances(
        &EffectiveSkills::select(&skill, TrustLevel(0)),
        tools.as_slice(),
        find,
    );
    let patterns = match &manifest.allowed_tools {
        AllowedTools::Absent => &[][..],
        AllowedTools::Declared(patterns) => patterns.as_slice(),
    };
    let mut diagnostics = Vec::new();
    for example in &examples.examples {
        let Some(i) = find(&example.tool) else {
            diagnostics.push(Diagnostic::new(
                Code::ExampleUnchecked,
                example.position,
                format!(
                    "`{example}` is not checked: no tool named `{tool}` is registered and the \
                     skill does not state the kind of its scope argument; add \
                     `{KIND_KEY_PREFIX}{tool}: command` (or `path`, `text`) under `metadata`",
                    tool = example.tool
                ),
            ));
            continue;
        };
        let tool = tools[i];
        let scope = tool.scope.zip(example.value.as_deref());
        let verdict = verdicts.verdict(i);
        let admitted = match verdict {
            SkillsVerdict::NoOpinion => true,
            SkillsVerdict::NotAllowed => false,
            SkillsVerdict::Allowed(allowance) => allowance.admits(scope),
        };
        let Some(code) = (match (example.expected, admitted) {
            (Expected::Admitted, false) => Some(Code::ExampleRefused),
            (Expected::Refused, true) => Some(Code::ExampleAdmitted),
            _ => None,
        }) else {
            continue;
        };
        let tokens = Tokens {
            of_tool: patterns
                .iter()
                .filter(|p| grants(p, &tools, i, find))
                .collect(),
            all: patterns,
        };
        let why = if admitted {
            tokens.why_admitted(verdict, scope)
        } else {
            tokens.why_refused(tool, scope)
        };
        let must = match example.expected {
            Expected::Admitted => "must be admitted but is refused",
            Expected::Refused => "must be refused but is admitted",
        };
        diagnostics.push(Diagnostic::new(
            code,
            example.position,
            format!("`{example}` {must}: {why}"),
        ));
    }
    diagnostics
}

/// Whether `pattern` grants (some of) the tool at `i`, by gate 6's resolution.
fn grants(
    pattern: &ToolPattern,
    tools: &[KnownTool<'_>],
    i: usize,
    find: impl Fn(&str) -> Option<usize>,
) -> bool {
    match resolve(pattern, tools, find) {
        Some(Resolved::Whole(range)) => range.contains(&i),
        Some(Resolved::Scoped(j)) => j == i,
        Some(Resolved::Server { candidates, server }) => {
            candidates.contains(&i) && is_tool_of(tools[i].name, server)
        }
        None => false,
    }
}

/// The skill's tokens, and those that grant the example's tool.
struct Tokens<'p> {
    all: &'p [ToolPattern],
    of_tool: Vec<&'p ToolPattern>,
}

impl Tokens<'_> {
    /// Names the token that admitted the call.
    fn why_admitted(&self, verdict: SkillsVerdict<'_>, scope: Option<(ScopeKind, &str)>) -> String {
        if verdict == SkillsVerdict::NoOpinion {
            return "the skill declares no `allowed-tools`, which puts no limit on the tools; \
                    declare the tools it needs"
                .to_owned();
        }
        let decided = self.of_tool.iter().find(|p| match (&p.scope, scope) {
            (None, _) => true,
            (Some(pattern), Some((kind, value))) => pattern.admits(kind, value),
            (Some(_), None) => false,
        });
        match decided {
            Some(p) if p.scope.is_none() => format!(
                "the token `{p}` admits it, since it allows every call of the tool; narrow it \
                 with a scope"
            ),
            Some(p) => {
                let kind = scope.map_or(ScopeKind::Text, |(kind, _)| kind);
                format!("the token `{p}` admits it, read as a {kind}; narrow that token")
            }
            // Not reached while the allowance and the tokens agree; said
            // plainly rather than guessed if they ever do not.
            None => "a token of `allowed-tools` admits it".to_owned(),
        }
    }

    /// Says that no token of the tool admits the call, and lists them.
    fn why_refused(&self, tool: KnownTool<'_>, scope: Option<(ScopeKind, &str)>) -> String {
        let named: Vec<String> = self
            .all
            .iter()
            .filter(|p| matches!(&p.target, ToolTarget::Tool(name) if name == tool.name))
            .map(|p| format!("`{p}`"))
            .collect();
        if self.of_tool.is_empty() && named.is_empty() {
            return format!(
                "no token of `allowed-tools` names `{}`; add one that admits this call",
                tool.name
            );
        }
        if self.of_tool.is_empty() {
            return format!(
                "`{}` has no scope argument, so its scoped tokens ({}) grant nothing; write `{}` \
                 to allow the whole tool",
                tool.name,
                named.join(", "),
                tool.name
            );
        }
        let listed: Vec<String> = self.of_tool.iter().map(|p| format!("`{p}`")).collect();
        match scope {
            Some((kind, _)) => format!(
                "no token of `{}` admits it, read as a {kind}; its tokens are {}",
                tool.name,
                listed.join(", ")
            ),
            None => format!(
                "the call carries no scope value, and `{}` is allowed only within scopes ({}); \
                 give the example a value",
                tool.name,
                listed.join(", ")
            ),
        }
    }
}
