//! Output contracts: a tool that declares its result's type
//! (`#[tool(output = Type)]`) has its schema exported as MCP's
//! `outputSchema`, and a result that breaks it fails the call.

use std::borrow::Cow;

use futures_executor::block_on;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tool_core::export::Provider;
use tool_core::{
    BoxFuture, BuildProblem, DataClass, Declaration, DefinitionSite, DynTool, Effect, Egress,
    Execute, Outcome, Registry, RunId, Shipped, Tool, ToolContext, ToolError, ToolOutput,
};

/// What `page_stats` returns.
#[derive(Serialize, JsonSchema, tool_core::Arguments)]
struct PageStats {
    /// How many pages.
    pages: u32,
    /// The newest page's path.
    newest: String,
}

/// Counts the pages; `mode` picks what it returns, to test the contract.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(data = "public", group = "pages", effect = "read", output = PageStats)]
struct PageStatsTool {
    /// `good`, `wrong_shape` or `text`.
    mode: String,
}

impl Execute for PageStatsTool {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        match self.mode.as_str() {
            "good" => ToolOutput::structured(PageStats {
                pages: 3,
                newest: "/news".into(),
            }),
            "wrong_shape" => Ok(ToolOutput::json(json!({"pages": "three"}))),
            _ => Ok(ToolOutput::text("3 pages")),
        }
    }
}

fn registry() -> Registry {
    Registry::linked().unwrap()
}

fn call(mode: &str) -> Result<Outcome, ToolError> {
    let registry = registry();
    let cx = ToolContext::new(RunId("run".into()));
    block_on(registry.call_ungated("page_stats_tool", json!({"mode": mode}), &cx))
}

#[test]
fn a_result_of_the_declared_type_passes() {
    let Ok(Outcome::Done(output)) = call("good") else {
        panic!()
    };
    assert_eq!(
        output.as_json(),
        Some(&json!({"pages": 3, "newest": "/news"}))
    );
}

#[test]
fn a_result_that_breaks_the_schema_fails_the_call() {
    let error = call("wrong_shape").unwrap_err();
    let ToolError::OutputMismatch { tool, problems } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(tool, "page_stats_tool");
    let paths: Vec<&str> = problems.iter().map(|p| p.path.as_str()).collect();
    assert!(paths.contains(&"/pages"), "{problems:?}");
    assert!(paths.contains(&""), "`newest` is missing: {problems:?}");
    // The model learns the tool failed, not the schema's internals.
    assert_eq!(error.model_text(), "tool `page_stats_tool` failed");
}

#[test]
fn a_text_result_where_a_structured_one_is_declared_fails_the_call() {
    assert!(matches!(
        call("text"),
        Err(ToolError::OutputMismatch { .. })
    ));
}

#[test]
fn the_declared_schema_is_the_mcp_output_schema() {
    let registry = registry();
    let tool = registry.get("page_stats_tool").unwrap();
    let mcp = tool.export(Provider::Mcp);
    let output = &mcp["outputSchema"];
    assert_eq!(output["type"], "object");
    assert_eq!(output["properties"]["pages"]["type"], "integer");
    assert_eq!(output["required"], json!(["pages", "newest"]));
    assert_eq!(tool.output_schema(), Some(output));
    // Only MCP has a place for it.
    assert!(tool.export(Provider::OpenAi).get("outputSchema").is_none());
}

struct ListOutput;

impl DynTool for ListOutput {
    fn declaration(&self) -> Declaration {
        Declaration {
            name: Cow::Borrowed("list_output"),
            group: Cow::Borrowed("pages"),
            description: Cow::Borrowed("Returns a list."),
            title: None,
            requires_admin: false,
            egress: Egress::None,
            effect: Effect::Read,
            shipped: Shipped::Enabled,
            scope: None,
            data: DataClass::Public,
            content: tool_core::Content::Trusted,
            timeout: None,
            idempotent: true,
            task: tool_core::TaskSupport::Forbidden,
        }
    }
    fn site(&self) -> DefinitionSite {
        DefinitionSite {
            crate_name: "outputs",
            module_path: "outputs",
            file: "outputs.rs",
            line: 0,
        }
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object"})
    }
    fn output_schema(&self) -> Option<Value> {
        Some(json!({"type": "array"}))
    }
    fn execute<'a>(
        &'a self,
        _arguments: Value,
        _cx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async { Ok(ToolOutput::json(json!([]))) })
    }
}

#[test]
fn an_output_schema_that_is_not_an_object_is_a_build_problem() {
    let error = Registry::builder().add(ListOutput).build().unwrap_err();
    assert!(
        matches!(&error.problems[..], [BuildProblem::Unexportable { name, reason, .. }] if name == "list_output" && reason.contains("outputSchema")),
        "{error}"
    );
}
