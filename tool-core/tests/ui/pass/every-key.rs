use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::{Egress, Execute, Shipped, TaskSupport, Tool, ToolContext, ToolError, ToolOutput};

/// Fetches a page of the host's own site.
///
/// Only the host's configured sites are reachable.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    crate = ::tool_core,
    name = "fetch-page",
    group = "site_pages",
    effect = "read",
    egress = "own_site",
    requires_admin,
    disabled,
    title = "Fetch a page",
    scope(path = "path"),
    data = "internal",
    content = "trusted",
    timeout = "90s",
    task = "optional",
)]
struct FetchOwnPage {
    /// The path, such as `/about`.
    path: String,
}

impl Execute for FetchOwnPage {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(self.path))
    }
}

fn main() {
    let declaration = FetchOwnPage::DECLARATION;
    assert_eq!(declaration.name, "fetch-page");
    assert_eq!(declaration.group, "site_pages");
    assert_eq!(
        declaration.description,
        "Fetches a page of the host's own site.\n\nOnly the host's configured sites are reachable."
    );
    assert_eq!(declaration.egress, Egress::OwnSite);
    assert!(declaration.requires_admin);
    assert_eq!(declaration.shipped, Shipped::Disabled);
    assert_eq!(declaration.title.as_deref(), Some("Fetch a page"));
    assert_eq!(declaration.scope.as_ref().map(|s| (s.property.as_ref(), s.kind)), Some(("path", tool_core::ScopeKind::Path)));
    assert_eq!(declaration.data, tool_core::DataClass::Internal);
    assert_eq!(declaration.content, tool_core::Content::Trusted);
    assert_eq!(declaration.timeout, Some(std::time::Duration::from_secs(90)));
    assert!(declaration.idempotent, "a read tool is idempotent");
    assert_eq!(declaration.task, TaskSupport::Optional);
}
