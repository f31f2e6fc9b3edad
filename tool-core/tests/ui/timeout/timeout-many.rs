use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::Tool;

/// Lists the pages.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "pages", effect = "read", timeout = "0ms")]
struct ListPages {}

/// Lists the posts.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "pages", effect = "read", timeout = "2h", title = 3)]
struct ListPosts {}

/// Lists the files.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "pages", effect = "read", timeout = "soon", timeout = "1s")]
struct ListFiles {}

fn main() {}
