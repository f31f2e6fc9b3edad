use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::Tool;

/// Lists the pages.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(name = "list_every_page_of_the_wiki_with_its_title_and_its_last_editor_too", group = "pages", effect = "read")]
struct ListPages {}

fn main() {}
