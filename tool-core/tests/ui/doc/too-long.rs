use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::Tool;

/// Lists the pages of the wiki, with their titles and editors. Lists the pages of the wiki, with their titles and editors. Lists the pages of the wiki, with their titles and editors. 
/// Lists the pages of the wiki, with their titles and editors. Lists the pages of the wiki, with their titles and editors. Lists the pages of the wiki, with their titles and editors. 
/// Lists the pages of the wiki, with their titles and editors. Lists the pages of the wiki, with their titles and editors. Lists the pages of the wiki, with their titles and editors. 
/// Lists the pages of the wiki, with their titles and editors. Lists the pages of the wiki, with their titles and editors. Lists the pages of the wiki, with their titles and editors. 
/// Lists the pages of the wiki, with their titles and editors. Lists the pages of the wiki, with their titles and editors. Lists the pages of the wiki, with their titles and editors. 
/// Lists the pages of the wiki, with their titles and editors. Lists the pages of the wiki, with their titles and editors. Lists the pages of the wiki, with their titles and editors. 
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "pages", effect = "read")]
struct ListPages {}

fn main() {}
