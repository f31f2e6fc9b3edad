//! The tools, registries and grants the gate benchmarks share: the criterion
//! bench (`gates.rs`) and the instruction-count driver (`instructions.rs`)
//! measure exactly the same set-ups.

use std::borrow::Cow;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tool_core::gates::{Gates, Grant, HostSettings, RunConfig, RunInputs, Selection};
use tool_core::skills::{AllowedTools, SkillRef, TrustLevel, tokenize};
use tool_core::{
    BoxFuture, Declaration, DefinitionSite, DynTool, Effect, Egress, Execute, Registry, Shipped,
    Tool, ToolContext, ToolError, ToolOutput,
};

/// Read part of a file.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    data = "public",
    group = "files",
    effect = "read",
    scope(path = "path")
)]
pub struct ReadFile {
    /// The file.
    path: String,
    /// At most this many lines.
    limit: u32,
    /// Whether to number the lines.
    numbered: bool,
}

impl Execute for ReadFile {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(format!(
            "{} {} {}",
            self.path, self.limit, self.numbered
        )))
    }
}

/// The arguments every measured call sends to `read_file`.
pub fn arguments() -> Value {
    json!({"path": "src/lib.rs", "limit": 40, "numbered": true})
}

/// A run-time tool that fills a registry to a given size.
struct Generated {
    name: String,
    group: String,
}

impl DynTool for Generated {
    fn declaration(&self) -> Declaration {
        Declaration {
            name: Cow::Owned(self.name.clone()),
            group: Cow::Owned(self.group.clone()),
            description: Cow::Borrowed("A generated tool."),
            title: None,
            requires_admin: false,
            egress: Egress::None,
            effect: Effect::Read,
            shipped: Shipped::Enabled,
            scope: None,
            data: tool_core::DataClass::Public,
            content: tool_core::Content::Trusted,
            timeout: None,
            idempotent: true,
            task: tool_core::TaskSupport::Forbidden,
        }
    }
    fn site(&self) -> DefinitionSite {
        DefinitionSite {
            crate_name: "bench",
            module_path: "bench",
            file: "common/mod.rs",
            line: 0,
        }
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object", "properties": {"q": {"type": "string"}}})
    }
    fn execute<'a>(
        &'a self,
        _arguments: Value,
        _cx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async { Ok(ToolOutput::text("")) })
    }
}

/// The linked `read_file` and `tools - 1` generated tools in 20 groups.
pub fn registry(tools: usize) -> Registry {
    let mut builder = Registry::builder().linked();
    for i in 0..tools - 1 {
        builder = builder.add(Generated {
            name: format!("tool_{i:04}"),
            group: format!("group-{:02}", i % 20),
        });
    }
    builder.build().unwrap()
}

/// 50 effective skills of 10 tokens each, over the generated tools of
/// [`registry`]`(1000)`.
pub fn skills() -> Vec<SkillRef> {
    (0..50)
        .map(|s| {
            let tokens: Vec<String> = (0..10)
                .map(|t| format!("tool_{:04}", (s * 17 + t * 7) % 999))
                .collect();
            skill(&format!("skill-{s}"), &tokens.join(" "))
        })
        .collect()
}

/// One trusted, enabled skill whose `allowed-tools` is `tokens`.
pub fn skill(id: &str, tokens: &str) -> SkillRef {
    let (patterns, _) = tokenize(tokens);
    SkillRef {
        id: id.to_owned(),
        enabled: true,
        orphaned: false,
        trust: TrustLevel(1),
        allowed_tools: AllowedTools::Declared(patterns),
        text: String::new(),
    }
}

/// The gates of a run with default settings and `skills`, and its grant.
pub fn gates<'r>(registry: &'r Registry, skills: &[SkillRef]) -> (Gates<'r>, Grant) {
    let settings = HostSettings::default();
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
    (gates, grant)
}

/// The bare call the registry's is measured against: deserialize the
/// arguments with the same serde impl and run the same function, nothing
/// else.
pub async fn bare(arguments: Value, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
    let tool: ReadFile =
        serde_json::from_value(arguments).map_err(|e| ToolError::failed(e.to_string()))?;
    tool.execute(cx).await
}
