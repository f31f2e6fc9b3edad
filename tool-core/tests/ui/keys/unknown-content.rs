use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::Tool;

/// Reads one page.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "pages", effect = "read", data = "public", content = "safe")]
struct ReadPage {
    /// The page.
    page: String,
}

fn main() {}
