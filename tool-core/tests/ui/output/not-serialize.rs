use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::{Execute, Tool, ToolContext, ToolError, ToolOutput};

/// The pages.
#[derive(JsonSchema, tool_core::Arguments)]
struct PageList {
    pages: Vec<String>,
}

/// Lists the pages.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "pages", effect = "read", output = PageList)]
struct ListPages {}

impl Execute for ListPages {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(""))
    }
}

fn main() {}
