use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::Tool;

/// Lists the pages.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "pages", effect = "read", timeout = "3d")]
struct ListPages {}

fn main() {}
