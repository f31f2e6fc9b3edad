use serde::Deserialize;
use tool_core::{Execute, Tool, ToolContext, ToolError, ToolOutput};

/// Lists the pages.
#[derive(Tool, Deserialize)]
#[tool(group = "pages", effect = "read")]
struct ListPages {}

impl Execute for ListPages {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("none"))
    }
}

fn main() {}
