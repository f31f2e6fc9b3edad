use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::{Change, Effect, Proposal, Shipped, Tool, ToolContext, ToolError, ToolOutput, Write};

/// Renames a page.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "pages", effect = "write")]
struct RenamePage {
    /// The page's path.
    page: String,
    /// Its new title.
    title: String,
}

impl Write for RenamePage {
    async fn propose(self, _cx: &ToolContext) -> Result<Proposal, ToolError> {
        Ok(Proposal::new(
            self.page.clone(),
            vec![Change {
                field: "title".into(),
                new: self.title.into(),
                replaces: "Old".into(),
            }],
            format!("rename {}", self.page),
        ))
    }

    async fn apply(_proposal: &Proposal, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("renamed"))
    }
}

fn main() {
    assert_eq!(RenamePage::DECLARATION.effect, Effect::Write);
    // A write tool always ships disabled.
    assert_eq!(RenamePage::DECLARATION.shipped, Shipped::Disabled);
}
