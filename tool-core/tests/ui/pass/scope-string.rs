use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::{Execute, Tool, ToolContext, ToolError, ToolOutput};

/// Reads one page.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "pages", effect = "read", scope(text = "page"))]
struct ReadPage {
    /// The page's path.
    page: String,
}

impl Execute for ReadPage {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(self.page))
    }
}

/// Lists the pages, under a prefix when one is given.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "pages", effect = "read", scope(command = "prefix"))]
struct ListPages {
    /// Only pages under this prefix.
    #[serde(rename = "under")]
    prefix: Option<String>,
}

impl Execute for ListPages {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(self.prefix.unwrap_or_default()))
    }
}

fn main() {
    assert_eq!(ReadPage::DECLARATION.scope.map(|s| s.property), Some("page".into()));
    // The scope is the JSON property, so it follows `#[serde(rename)]`.
    assert_eq!(ListPages::DECLARATION.scope.map(|s| s.property), Some("under".into()));
}
