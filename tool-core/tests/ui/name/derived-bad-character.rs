use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::Tool;

/// Measures a page.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "pages", effect = "read")]
struct SeitenGröße {}

fn main() {}
