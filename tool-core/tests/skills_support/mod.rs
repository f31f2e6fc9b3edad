//! Helpers shared by the skills tests: reading a skill from its front
//! matter, and gate 6 on the path production uses (a registry, the gates,
//! the run's grant and the call check).
#![allow(dead_code, reason = "each test binary uses a different part")]

use std::borrow::Cow;

use serde_json::{Value, json};
use tool_core::gates::{Denial, Gates, Grant, HostSettings, RunConfig, RunInputs, Selection};
use tool_core::skills::{
    AllowedTools, Code, Diagnostic, Position, SkillRef, SkillReport, TrustLevel, read_skill,
    tokenize,
};
use tool_core::{
    BoxFuture, DataClass, Declaration, DefinitionSite, DynTool, Effect, Egress, Registry, RunId,
    Scope, ScopeKind, Shipped, ToolContext, ToolError, ToolOutput,
};

// ---- reading ----

pub fn read(front: &str) -> SkillReport {
    read_skill(&format!("---\n{front}\n---\nBody\n"), "demo")
}

/// A valid skill with `tools_yaml` after `allowed-tools:` on line 4.
pub fn with_tools(tools_yaml: &str) -> SkillReport {
    read(&format!(
        "name: demo\ndescription: Reads a demo skill for the tests. Use when testing the reader.\nallowed-tools:{tools_yaml}"
    ))
}

pub fn codes(report: &SkillReport) -> Vec<Code> {
    report.diagnostics.iter().map(|d| d.code).collect()
}

pub fn find(report: &SkillReport, code: Code) -> &Diagnostic {
    report
        .diagnostics
        .iter()
        .find(|d| d.code == code)
        .unwrap_or_else(|| panic!("no {code} in {:?}", report.diagnostics))
}

pub fn declared(report: &SkillReport) -> Vec<String> {
    match report.manifest.as_ref().map(|m| &m.allowed_tools) {
        Some(AllowedTools::Declared(p)) => p.iter().map(ToString::to_string).collect(),
        other => panic!("not declared: {other:?}"),
    }
}

pub fn at(line: usize, column: usize) -> Position {
    Position { line, column }
}

/// An enabled skill trusted at 1 whose `allowed-tools` is `tools` (`None`:
/// absent) and whose text is "Text of {id}.".
pub fn skill(id: &str, tools: Option<&str>) -> SkillRef {
    SkillRef {
        id: id.into(),
        enabled: true,
        orphaned: false,
        trust: TrustLevel(1),
        allowed_tools: match tools {
            None => AllowedTools::Absent,
            Some(text) => AllowedTools::Declared(tokenize(text).0),
        },
        text: format!("Text of {id}."),
    }
}

// ---- gate 6, through the gates ----

/// The tools gate 6 resolves against in most tests: a registered name and
/// the kind of its scope argument.
pub const KNOWN: &[(&str, Option<ScopeKind>)] = &[
    ("Read", None),
    ("Bash", Some(ScopeKind::Command)),
    ("mcp__srv__one", None),
    ("mcp__srv__two", Some(ScopeKind::Text)),
    ("mcp__other__x", None),
];

/// The scope argument of every scoped tool here.
const SCOPE_PROPERTY: &str = "scope";

/// A run-time read tool with only a name and, for a scoped tool, a string
/// argument `scope` of the given kind. Every gate but 6 says yes to it.
struct Named {
    name: String,
    scope: Option<ScopeKind>,
}

impl DynTool for Named {
    fn declaration(&self) -> Declaration {
        Declaration {
            name: Cow::Owned(self.name.clone()),
            group: Cow::Borrowed("skills"),
            description: Cow::Borrowed("A tool that gate 6 is tested on."),
            title: None,
            requires_admin: false,
            egress: Egress::None,
            effect: Effect::Read,
            shipped: Shipped::Enabled,
            scope: self.scope.map(|kind| Scope {
                property: Cow::Borrowed(SCOPE_PROPERTY),
                kind,
            }),
            data: DataClass::Public,
            content: tool_core::Content::Trusted,
            timeout: None,
            idempotent: true,
            task: tool_core::TaskSupport::Forbidden,
        }
    }

    fn site(&self) -> DefinitionSite {
        DefinitionSite {
            crate_name: "skills_support",
            module_path: "skills_support",
            file: file!(),
            line: line!(),
        }
    }

    fn input_schema(&self) -> Value {
        json!({"type": "object", "properties": {SCOPE_PROPERTY: {"type": "string"}}})
    }

    fn execute<'a>(
        &'a self,
        _arguments: Value,
        _cx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move { Ok(ToolOutput::text(self.name.clone())) })
    }
}

/// A registry of exactly `tools`.
pub fn registry_of(tools: &[(&str, Option<ScopeKind>)]) -> Registry {
    tools
        .iter()
        .fold(Registry::builder(), |builder, &(name, scope)| {
            builder.add(Named {
                name: name.to_owned(),
                scope,
            })
        })
        .build()
        .expect("the test tools are valid")
}

/// What a run with `skills` is granted over `registry` (default settings,
/// so every gate but 6 says yes), and the gates that check its calls.
pub struct Allowed<'r> {
    registry: &'r Registry,
    gates: Gates<'r>,
    grant: Grant,
}

impl<'r> Allowed<'r> {
    /// Gate 6 for a run with `skills`, counted from trust level 1.
    pub fn new(registry: &'r Registry, skills: &[SkillRef]) -> Self {
        Self::with_floor(registry, skills, TrustLevel(1))
    }

    /// Gate 6 for a run with `skills`, counted from `floor`.
    pub fn with_floor(registry: &'r Registry, skills: &[SkillRef], floor: TrustLevel) -> Self {
        let settings = HostSettings {
            skill_trust_floor: floor,
            ..HostSettings::default()
        };
        let config = RunConfig::default();
        let inputs = RunInputs {
            settings: &settings,
            actor: None,
            config: &config,
            skills,
            selection: &Selection::All,
        };
        let gates = Gates::new(registry, inputs);
        let grant = gates.resolve().grant;
        Allowed {
            registry,
            gates,
            grant,
        }
    }

    /// Whether the run is offered `tool` at all.
    pub fn admits(&self, tool: &str) -> bool {
        self.grant.allowance(tool).is_some()
    }

    /// Whether a call of `tool` passes the call check, with `scope` as its
    /// scope argument (`None`: the call leaves it out).
    pub fn admits_call(&self, tool: &str, scope: Option<&str>) -> bool {
        let arguments = match scope {
            Some(value) => json!({SCOPE_PROPERTY: value}),
            None => json!({}),
        };
        let cx = ToolContext::new(RunId("skills-test".into()));
        self.gates
            .check_call(&self.grant, tool, &arguments, &cx)
            .is_ok()
    }

    /// The granted tools, in name order.
    pub fn granted(&self) -> Vec<String> {
        self.grant.tool_names().map(str::to_owned).collect()
    }

    /// Whether gate 6 has no opinion: no tool is refused by the skills, so
    /// every tool is granted, whole.
    pub fn no_opinion(&self) -> bool {
        self.registry.tools().iter().all(|tool| {
            self.gates.denial(tool.name()).is_none()
                && self.grant.allowance(tool.name()) == Some(&tool_core::skills::Allowance::Whole)
        })
    }

    /// Whether gate 6 refuses every tool: the skills declare
    /// `allowed-tools` and allow none of them.
    pub fn allows_nothing(&self) -> bool {
        self.grant.is_empty()
            && self
                .registry
                .tools()
                .iter()
                .all(|tool| self.gates.denial(tool.name()) == Some(Denial::NotAllowedBySkills))
    }
}
