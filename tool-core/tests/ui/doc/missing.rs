use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::Tool;

#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "pages", effect = "read")]
struct ListPages {}

fn main() {}
