use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tool_core::{Execute, Tool, ToolContext, ToolError, ToolOutput};

/// The pages.
#[derive(Serialize, JsonSchema, tool_core::Arguments)]
struct PageList {
    pages: Vec<String>,
}

/// Lists the pages.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "pages", effect = "read", output = PageList, idempotent = false)]
struct ListPages {}

impl Execute for ListPages {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        ToolOutput::structured(PageList { pages: vec!["home".into()] })
    }
}

fn main() {
    assert!(!ListPages::DECLARATION.idempotent);
}
