use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::{Execute, Tool, ToolContext, ToolError, ToolOutput};

/// Lists the pages.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "pages", effect = "read")]
struct ListPages {
    #[schemars(extend("minimum" = 3))]
    limit: u32,
    #[serde(flatten)]
    rest: std::collections::BTreeMap<String, String>,
    #[schemars(length(min = LEAST))]
    title: String,
    #[schemars(pattern(r"(?<=a)b"))]
    code: String,
}

const LEAST: u64 = 1;

impl Execute for ListPages {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("none"))
    }
}

fn main() {}
