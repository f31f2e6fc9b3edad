use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::{Execute, Tool, ToolContext, ToolError, ToolOutput};

/// Lists the pages.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(name = "list pages", effect = "delete", admin_only, effect = "read", title = "Pages", title = "Wiki")]
#[tool(egress = "internet", requires_admin = true, scope(command = "prefix"))]
struct ListPages {
    /// Only pages under this prefix.
    prefix: Option<String>,
}

// Code using the type adds no error of its own: the derive emits a stand-in
// `Tool` impl beside its errors.
impl Execute for ListPages {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(ListPages::DECLARATION.name))
    }
}

fn main() {}
