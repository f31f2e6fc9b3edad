// A crate that re-exports tool-core under another path points the derive
// at it with `crate = path`.
mod reexport {
    pub use ::tool_core as core_of_tools;
}

use schemars::JsonSchema;
use serde::Deserialize;
use reexport::core_of_tools::{Execute, Tool, ToolContext, ToolError, ToolOutput};

/// Says hello.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(crate = reexport::core_of_tools, group = "greetings", effect = "read")]
struct SayHello {}

impl Execute for SayHello {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("hello"))
    }
}

fn main() {
    assert_eq!(SayHello::DECLARATION.name, "say_hello");
}
