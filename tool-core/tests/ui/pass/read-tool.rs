use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::{Effect, Egress, Execute, Shipped, Tool, ToolContext, ToolError, ToolOutput};

/// Lists the pages under a prefix.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "pages", effect = "read")]
struct ListPages {
    /// Only pages under this prefix.
    prefix: Option<String>,
}

impl Execute for ListPages {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(self.prefix.unwrap_or_default()))
    }
}

/// Reports whether the wiki is up.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "pages", effect = "read")]
struct WikiStatus {}

impl Execute for WikiStatus {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("up"))
    }
}

fn main() {
    let declaration = ListPages::DECLARATION;
    assert_eq!(declaration.name, "list_pages");
    assert_eq!(declaration.group, "pages");
    assert_eq!(declaration.description, "Lists the pages under a prefix.");
    assert_eq!(declaration.effect, Effect::Read);
    assert_eq!(declaration.egress, Egress::None);
    assert_eq!(declaration.shipped, Shipped::Enabled);
    assert!(!declaration.requires_admin);
    assert_eq!(declaration.title, None);
    assert_eq!(declaration.scope, None);
    // A tool without arguments is a struct without fields.
    assert_eq!(WikiStatus::DECLARATION.name, "wiki_status");
}
