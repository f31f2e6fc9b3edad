//! Provider exports: each rule of docs/decisions.md "Exports".

use std::collections::HashMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tool_core::export::{Provider, normalize_arguments, offered_tools};
use tool_core::gates::{Gates, Grant, HostSettings, RunConfig, RunInputs, Selection};
use tool_core::{Execute, Registry, Tool, ToolContext, ToolError, ToolOutput};

/// How a search orders its results.
#[derive(Deserialize, JsonSchema, tool_core::Arguments)]
#[serde(rename_all = "snake_case")]
enum Order {
    /// Best match first.
    Relevance,
    /// Newest first.
    Newest,
}

/// A page range.
#[derive(Deserialize, JsonSchema, tool_core::Arguments)]
#[allow(dead_code, reason = "only the schema matters here")]
struct Range {
    /// First page.
    from: u32,
    /// Last page, if bounded.
    to: Option<u32>,
}

/// Search the documentation.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    data = "public",
    group = "docs",
    effect = "read",
    title = "Search docs",
    egress = "own_site"
)]
#[allow(dead_code, reason = "only the schema matters here")]
struct SearchDocs {
    /// What to look for.
    query: String,
    /// How to order results.
    order: Option<Order>,
    /// Which pages.
    pages: Option<Range>,
    /// How many results.
    #[serde(default)]
    limit: u32,
}

impl Execute for SearchDocs {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(format!("{} {}", self.query, self.limit)))
    }
}

/// Tag a page with free-form labels.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(data = "public", group = "docs", effect = "read")]
struct TagPage {
    /// Label name to value.
    labels: HashMap<String, String>,
}

impl Execute for TagPage {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(self.labels.len().to_string()))
    }
}

/// Report the status.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(data = "public", group = "docs", effect = "read")]
struct Status {}

impl Execute for Status {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("ok"))
    }
}

fn registry() -> Registry {
    Registry::linked().unwrap()
}

fn export(provider: Provider, tool: &str) -> Value {
    registry().get(tool).unwrap().export(provider).clone()
}

/// Every object schema below `value`, with its path.
fn objects<'a>(value: &'a Value, path: String, out: &mut Vec<(String, &'a Value)>) {
    match value {
        Value::Object(map) => {
            if map.get("type") == Some(&json!("object"))
                || map
                    .get("type")
                    .and_then(Value::as_array)
                    .is_some_and(|t| t.contains(&json!("object")))
            {
                out.push((path.clone(), value));
            }
            for (key, inner) in map {
                objects(inner, format!("{path}/{key}"), out);
            }
        }
        Value::Array(items) => {
            for (i, inner) in items.iter().enumerate() {
                objects(inner, format!("{path}/{i}"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn mcp_sets_every_annotation_explicitly() {
    let tool = export(Provider::Mcp, "search_docs");
    assert_eq!(tool["name"], "search_docs");
    assert_eq!(tool["title"], "Search docs");
    assert_eq!(tool["inputSchema"]["type"], "object");
    assert_eq!(
        tool["annotations"],
        json!({"title": "Search docs", "readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": true})
    );
    let status = export(Provider::Mcp, "status");
    assert_eq!(status["annotations"]["openWorldHint"], false);
}

#[test]
fn openai_strict_requires_every_property_and_closes_every_object() {
    let tool = export(Provider::OpenAi, "search_docs");
    assert_eq!(tool["type"], "function");
    let function = &tool["function"];
    assert_eq!(function["strict"], true);
    let parameters = &function["parameters"];
    assert!(parameters.get("$schema").is_none());
    let mut found = Vec::new();
    objects(parameters, String::new(), &mut found);
    assert!(found.len() >= 2, "the root and the Range definition");
    for (path, object) in found {
        assert_eq!(object["additionalProperties"], false, "{path}");
        let properties: Vec<&String> = object["properties"].as_object().unwrap().keys().collect();
        let required: Vec<&str> = object["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(properties.len(), required.len(), "{path}");
        for key in properties {
            assert!(required.contains(&key.as_str()), "{path}: {key}");
        }
    }
}

#[test]
fn openai_strict_makes_optional_properties_nullable() {
    let parameters = &export(Provider::OpenAi, "search_docs")["function"]["parameters"];
    assert_eq!(
        parameters["properties"]["limit"]["type"],
        json!(["integer", "null"])
    );
    assert_eq!(parameters["properties"]["query"]["type"], "string");
    assert!(parameters["properties"]["limit"].get("default").is_none());
}

#[test]
fn open_map_cannot_be_strict_and_is_reported_at_build() {
    let registry = registry();
    let issues = registry.export_issues();
    assert_eq!(issues.len(), 1, "{issues:?}");
    assert_eq!(issues[0].tool, "tag_page");
    assert_eq!(issues[0].provider, Provider::OpenAi);
    let tool = registry.get("tag_page").unwrap().export(Provider::OpenAi);
    assert_eq!(tool["function"]["strict"], false);
}

#[test]
fn normalize_arguments_drops_strict_nulls_for_optional_properties_only() {
    let registry = registry();
    let tool = registry.get("search_docs").unwrap();
    let sent = json!({"query": "gates", "order": null, "pages": null, "limit": null});
    assert_eq!(
        normalize_arguments(tool, Provider::OpenAi, sent.clone()),
        json!({"query": "gates"})
    );
    assert_eq!(
        normalize_arguments(tool, Provider::Anthropic, sent.clone()),
        sent
    );
    let required_null = json!({"query": null});
    assert_eq!(
        normalize_arguments(tool, Provider::OpenAi, required_null.clone()),
        required_null
    );
}

#[test]
fn normalized_strict_arguments_pass_the_checked_call() {
    let registry = registry();
    let tool = registry.get("search_docs").unwrap();
    let sent = json!({"query": "gates", "order": null, "pages": null, "limit": null});
    let arguments = normalize_arguments(tool, Provider::OpenAi, sent);
    let cx = ToolContext::new(tool_core::RunId("r".into()));
    let outcome = futures_executor::block_on(registry.call_ungated("search_docs", arguments, &cx));
    assert_eq!(
        outcome,
        Ok(tool_core::Outcome::Done(ToolOutput::text("gates 0")))
    );
}

#[test]
fn gemini_inlines_refs_removes_unsupported_keywords_and_uses_nullable() {
    let tool = export(Provider::Gemini, "search_docs");
    let text = tool.to_string();
    for forbidden in [
        "$ref",
        "$defs",
        "$schema",
        "additionalProperties",
        "\"default\"",
        "oneOf",
        "const",
    ] {
        assert!(!text.contains(forbidden), "{forbidden} in {text}");
    }
    let properties = &tool["parameters"]["properties"];
    assert_eq!(properties["pages"]["type"], "object");
    assert_eq!(properties["pages"]["nullable"], true);
    assert_eq!(properties["pages"]["properties"]["to"]["nullable"], true);
    assert_eq!(properties["order"]["nullable"], true);
    assert_eq!(properties["order"]["enum"], json!(["relevance", "newest"]));
    assert!(
        properties["limit"]["type"] == "integer" && properties["limit"].get("nullable").is_none()
    );
}

#[test]
fn gemini_declares_a_tool_without_arguments_without_parameters() {
    let tool = export(Provider::Gemini, "status");
    assert!(tool.get("parameters").is_none(), "{tool}");
}

#[test]
fn anthropic_has_no_top_level_combinators() {
    for name in ["search_docs", "tag_page", "status"] {
        let tool = export(Provider::Anthropic, name);
        assert_eq!(tool["input_schema"]["type"], "object");
        for keyword in ["anyOf", "oneOf", "allOf", "$schema"] {
            assert!(
                tool["input_schema"].get(keyword).is_none(),
                "{name}: {keyword}"
            );
        }
    }
}

#[test]
fn empty_grant_exports_no_tools_field_not_an_empty_list() {
    let registry = registry();
    for provider in Provider::ALL {
        assert_eq!(offered_tools(&registry, &Grant::empty(), provider), None);
    }
}

#[test]
fn offered_tools_follow_the_grant_in_name_order() {
    let registry = registry();
    let settings = HostSettings::default();
    let config = RunConfig::default();
    let inputs = RunInputs {
        settings: &settings,
        actor: None,
        config: &config,
        skills: &[],
        selection: &Selection::All,
    };
    let grant = Gates::new(&registry, inputs).resolve().grant;
    let tools = offered_tools(&registry, &grant, Provider::Anthropic).unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    // search_docs needs egress its group is not granted.
    assert_eq!(names, ["status", "tag_page"]);
}
