use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::Tool;

/// Lists the pages.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "pages", effect = "read", output = 42)]
struct ListPages {}

fn main() {}
