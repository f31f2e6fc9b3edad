use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::{Execute, Tool, ToolContext, ToolError, ToolOutput};

/// Renames a page.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "pages", effect = "write")]
struct RenamePage {
    /// The page.
    page: String,
}

impl Execute for RenamePage {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(self.page))
    }
}

fn main() {}
