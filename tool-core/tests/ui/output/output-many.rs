use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::Tool;

/// Lists the pages.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "pages", effect = "read", output = "PageList", idempotent = 1, timeout = "1d")]
struct ListPages {}

fn main() {}
