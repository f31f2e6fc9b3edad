//! A gated call with arbitrary arguments: it must not panic, and a call
//! outside the grant's scope never runs the tool.
#![no_main]

use libfuzzer_sys::fuzz_target;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use tool_core::gates::{Gates, HostSettings, RunConfig, RunInputs, Selection};
use tool_core::skills::{AllowedTools, SkillRef, TrustLevel, tokenize};
use tool_core::{Execute, Registry, RunId, Tool, ToolContext, ToolError, ToolOutput};

/// Reads a file under the docs folder.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "fuzz", effect = "read", data = "public", scope(path = "path"))]
#[serde(deny_unknown_fields)]
struct ReadDoc {
    /// The file.
    path: String,
    /// How many lines.
    lines: Option<u16>,
}

impl Execute for ReadDoc {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        assert!(self.path.starts_with("docs/"), "ran outside its scope: {}", self.path);
        Ok(ToolOutput::text(format!("{} ({:?} lines)", self.path, self.lines)))
    }
}

/// Runs one command.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "fuzz", effect = "read", data = "public", scope(command = "command"))]
struct RunCommand {
    /// The command line.
    command: String,
}

impl Execute for RunCommand {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        assert!(self.command == "git diff" || self.command.starts_with("git diff "));
        assert!(!self.command.contains(';') && !self.command.contains('$'));
        Ok(ToolOutput::text(self.command))
    }
}

fuzz_target!(|data: &[u8]| {
    let registry = Registry::linked().expect("valid tools");
    let (tokens, _) = tokenize("read_doc(docs/**) run_command(git diff:*)");
    let skills = [SkillRef {
        id: "fuzz".into(),
        enabled: true,
        orphaned: false,
        trust: TrustLevel(5),
        allowed_tools: AllowedTools::Declared(tokens),
        text: String::new(),
    }];
    let settings = HostSettings::default();
    let config = RunConfig::default();
    let inputs = RunInputs {
        settings: &settings,
        actor: None,
        config: &config,
        skills: &skills,
        selection: &Selection::All,
    };
    let gates = Gates::new(&registry, inputs);
    let grant = gates.resolve().grant;
    let (tool, rest) = match data.split_first() {
        Some((0..=99, rest)) => ("read_doc", rest),
        Some((100..=199, rest)) => ("run_command", rest),
        Some((_, rest)) => ("no_such_tool", rest),
        None => return,
    };
    let arguments: Value = serde_json::from_slice(rest)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(rest).into_owned()));
    let cx = ToolContext::new(RunId("fuzz".into()));
    let outcome = futures_executor::block_on(gates.call(&grant, tool, arguments, &cx));
    // The registry turns a tool's panic into an error; here that means a
    // scope assertion failed, which is the bug this target looks for.
    if let Err(ToolError::Panicked { message, .. }) = outcome {
        panic!("a tool ran outside its scope: {message}");
    }
});
