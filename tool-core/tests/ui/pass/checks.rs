//! Every attribute the argument checks follow, in one declaration.
use std::collections::{BTreeMap, BTreeSet};

use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::{Arguments, Execute, Tool, ToolContext, ToolError, ToolOutput};

#[derive(Deserialize, JsonSchema, Arguments)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE", deny_unknown_fields)]
enum Mode {
    /// Quickly.
    Fast,
    Slow { after: u32 },
    Pair(u8, String),
}

#[derive(Deserialize, JsonSchema, Arguments)]
#[serde(tag = "kind", rename_all_fields = "camelCase")]
enum Target {
    Page { page_id: u64 },
    Site,
}

#[derive(Deserialize, JsonSchema, Arguments)]
struct Slug(#[schemars(pattern(r"^[a-z-]+$"))] String);

/// Lists the pages.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "pages", effect = "read")]
#[serde(rename_all = "camelCase", default)]
struct ListPages {
    #[schemars(range(min = 1, max = 100))]
    page_size: u32,
    #[schemars(range(min = -0.5))]
    weight: f64,
    #[validate(length(min = 1, max = 80))]
    #[schemars(email)]
    owner: Option<String>,
    #[garde(url)]
    link: String,
    #[schemars(regex(pattern = r"^\d+$"), length(equal = 4))]
    year: String,
    #[serde(rename = "s", alias = "slug")]
    slug: Option<Slug>,
    mode: Option<Mode>,
    target: Vec<Target>,
    #[serde(skip)]
    cache: Vec<u8>,
    #[schemars(with = "String", required)]
    raw: Option<String>,
    tags: BTreeSet<String>,
    counts: BTreeMap<String, (bool, i8)>,
    // An annotation, which validates nothing (MCP's header parameters).
    #[schemars(extend("x-mcp-header" = "Region", "x-note" = 1))]
    region: String,
}

impl Default for ListPages {
    fn default() -> Self {
        unreachable!()
    }
}

impl Execute for ListPages {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("none"))
    }
}

fn main() {}
