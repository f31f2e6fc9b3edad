//! A read skill checked against the tools a host has registered: its
//! `allowed-tools` names (S040–S042, [`check_allowed_tools`]) and its call
//! examples (S060–S063), the examples through gate 6's own resolution and
//! matchers.

use crate::ScopeKind;
use crate::skills::allow_list::{SkillsVerdict, allowances};
use crate::skills::allowed_tools::{AllowedTools, ToolPattern, ToolTarget};
use crate::skills::diagnostic::{Code, Diagnostic};
use crate::skills::effective::{EffectiveSkills, SkillRef, TrustLevel};
use crate::skills::examples::{Expected, KIND_KEY_PREFIX};
use crate::skills::manifest::SkillManifest;
use crate::skills::resolve::{
    KnownTool, Resolved, check_allowed_tools, is_tool_of, resolve, sorted,
};

/// Checks a skill's tool names against the host's tools in one call: its
/// `allowed-tools` ([`check_allowed_tools`], S040–S042), then its call
/// examples ([`check_examples`], S060–S063).
/// For a host's registry, `known` is [`Registry::known_tools`](crate::Registry::known_tools).
#[must_use = "the diagnostics are the check's only result"]
pub fn check_skill_tools(manifest: &SkillManifest, known: &[KnownTool<'_>]) -> Vec<Diagnostic> {
    let mut diagnostics = check_allowed_tools(&manifest.allowed_tools, known);
    diagnostics.extend(check_examples(manifest, known));
    diagnostics
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
