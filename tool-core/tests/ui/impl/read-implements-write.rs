use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::{Proposal, Tool, ToolContext, ToolError, ToolOutput, Write};

/// Lists the pages.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "pages", effect = "read")]
struct ListPages {}

impl Write for ListPages {
    async fn propose(self, _cx: &ToolContext) -> Result<Proposal, ToolError> {
        unimplemented!()
    }

    async fn apply(_proposal: &Proposal, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        unimplemented!()
    }
}

fn main() {}
