use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::Tool;

/// Renames a page.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "pages", effect = "write")]
struct RenamePage {
    /// The page.
    page: String,
}

fn main() {}
