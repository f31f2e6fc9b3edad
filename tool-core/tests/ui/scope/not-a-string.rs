use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::Tool;

/// Reads one page.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "pages", effect = "read", scope(path = "page"))]
struct ReadPage {
    /// The page id.
    page: u32,
}

impl tool_core::Execute for ReadPage {
    async fn execute(self, _cx: &tool_core::ToolContext) -> Result<tool_core::ToolOutput, tool_core::ToolError> {
        Ok(tool_core::ToolOutput::text(self.page.to_string()))
    }
}

fn main() {}
