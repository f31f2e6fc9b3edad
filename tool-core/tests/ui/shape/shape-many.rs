use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::Tool;

#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "Pages", scope(text = "page"))]
struct ListPages<T>(T);

fn main() {}
