//! Shared pieces of the registry benchmarks (the benches live in `benches/`).
//!
//! Nothing here derives `Tool`: a derived tool in this library would be
//! linked into every bench binary and change the tool counts they measure.

#![forbid(unsafe_code)]

use std::borrow::Cow;

use serde_json::{Value, json};
use tool_core::{
    BoxFuture, Declaration, DefinitionSite, DynTool, Effect, Egress, Shipped, ToolContext,
    ToolError, ToolOutput,
};

/// The work of the measured tool, shared by every way of calling it: cheap
/// and allocation-free, so the benchmarks measure the call path.
pub fn list_files(path: String, limit: u32, verbose: bool) -> String {
    let mut listing = path;
    if !verbose {
        let end = (limit as usize).min(listing.len());
        listing.truncate(end);
    }
    listing
}

/// The argument object of the measured tool, as a model would send it.
pub fn list_files_arguments() -> Value {
    json!({ "path": "src/registry/lib.rs", "limit": 8, "verbose": true })
}

/// Declares a derived `read` tool with the measured tool's three-field
/// argument object; used by the generated build benchmarks.
#[macro_export]
macro_rules! bench_tool {
    ($name:ident) => {
        /// A generated tool for the registry build benchmark.
        #[derive(::tool_core::Tool, ::serde::Deserialize, ::schemars::JsonSchema)]
        #[tool(data = "public", group = "bench", effect = "read")]
        pub struct $name {
            /// The directory to list.
            pub path: ::std::string::String,
            /// At most this many entries.
            pub limit: u32,
            /// Whether to include sizes.
            pub verbose: bool,
        }

        impl ::tool_core::Execute for $name {
            async fn execute(
                self,
                _cx: &::tool_core::ToolContext,
            ) -> ::std::result::Result<::tool_core::ToolOutput, ::tool_core::ToolError> {
                ::std::result::Result::Ok(::tool_core::ToolOutput::text($crate::list_files(
                    self.path,
                    self.limit,
                    self.verbose,
                )))
            }
        }
    };
}

/// A run-time tool that only fills a registry; never called.
pub struct Filler {
    name: String,
}

impl Filler {
    /// Filler number `index`, named `filler_{index}`.
    pub fn new(index: usize) -> Self {
        Filler {
            name: format!("filler_{index:05}"),
        }
    }
}

impl DynTool for Filler {
    fn declaration(&self) -> Declaration {
        Declaration {
            name: Cow::Owned(self.name.clone()),
            group: Cow::Borrowed("bench"),
            description: Cow::Borrowed("A tool that only fills the registry."),
            title: None,
            requires_admin: false,
            egress: Egress::None,
            effect: Effect::Read,
            shipped: Shipped::Enabled,
            scope: None,
            data: tool_core::DataClass::Public,
            content: tool_core::Content::Trusted,
            timeout: None,
            idempotent: true,
            task: tool_core::TaskSupport::Forbidden,
        }
    }

    fn site(&self) -> DefinitionSite {
        DefinitionSite {
            crate_name: env!("CARGO_PKG_NAME"),
            module_path: module_path!(),
            file: file!(),
            line: line!(),
        }
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": { "type": "string" },
                "limit": { "type": "integer", "format": "uint32", "minimum": 0 },
                "verbose": { "type": "boolean" }
            },
            "required": ["path", "limit", "verbose"]
        })
    }

    fn execute<'a>(
        &'a self,
        _arguments: Value,
        _cx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(std::future::ready(Ok(ToolOutput::text(self.name.clone()))))
    }
}
