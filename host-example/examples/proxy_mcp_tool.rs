//! A tool known only at run time: a `DynTool` that proxies each read-only
//! tool of another MCP server (here a plain rmcp server in this process,
//! over an in-memory pipe), registered beside nothing else and called
//! through the gates like any tool.
//!
//! What a proxy decides for the tools it relays: only the other server's
//! read-only tools (`readOnlyHint`), as a `DynTool` only executes and a
//! write must propose; their text counts as others' text (`content =
//! untrusted`, and the result marked with `with_authored`), since the
//! other server's tool can say anything.
//!
//! `cargo test --workspace` builds it and runs it; `cargo run -p
//! host-example --example proxy_mcp_tool` runs it.

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolRequestParams, Tool as RemoteTool};
use rmcp::service::{RoleClient, RunningService};
use rmcp::{ServiceExt as _, schemars, tool, tool_router};
use serde::Deserialize;
use serde_json::{Value, json};
use tool_core::{
    Actor, BoxFuture, Content, DataClass, Declaration, DefinitionSite, DynTool, Effect, Egress,
    Outcome, Registry, Shipped, ToolContext, ToolError, ToolOutput,
};

/// The other server: plain rmcp, one read-only tool and one that writes.
struct Weather;

#[derive(Deserialize, schemars::JsonSchema)]
struct City {
    /// The city's name.
    city: String,
}

#[tool_router(server_handler)]
impl Weather {
    #[tool(
        description = "Today's forecast for a city.",
        annotations(read_only_hint = true)
    )]
    fn forecast(&self, Parameters(City { city }): Parameters<City>) -> String {
        format!("{city}: sunny, 21 °C")
    }

    #[tool(description = "Subscribe to a city's storm warnings.")]
    fn subscribe(&self, Parameters(City { city }): Parameters<City>) -> String {
        format!("subscribed to {city}")
    }
}

/// The client side of the connection to the other server.
type Client = Arc<RunningService<RoleClient, ()>>;

/// One tool of the other server, as this host registers it.
struct Proxied {
    tool: RemoteTool,
    client: Client,
}

impl DynTool for Proxied {
    fn declaration(&self) -> Declaration {
        Declaration {
            name: Cow::Owned(self.tool.name.to_string()),
            group: Cow::Borrowed("weather"),
            description: self.tool.description.clone().unwrap_or_default(),
            title: None,
            requires_admin: false,
            egress: Egress::None,
            effect: Effect::Read,
            shipped: Shipped::Enabled,
            scope: None,
            data: DataClass::Public,
            // Whatever the other server's tool answers is others' text.
            content: Content::Untrusted,
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
        Value::Object((*self.tool.input_schema).clone())
    }

    fn execute<'a>(
        &'a self,
        arguments: Value,
        _cx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let Value::Object(arguments) = arguments else {
                return Err(ToolError::failed("the arguments are not an object"));
            };
            let request =
                CallToolRequestParams::new(self.tool.name.clone()).with_arguments(arguments);
            let result =
                self.client.call_tool(request).await.map_err(|error| {
                    ToolError::transient(format!("the weather server: {error}"))
                })?;
            let text: Vec<&str> = result
                .content
                .iter()
                .filter_map(|block| block.as_text().map(|text| text.text.as_str()))
                .collect();
            let text = text.join("\n");
            if result.is_error == Some(true) {
                return Err(ToolError::failed(text).with_authored());
            }
            // Relayed text: the run's exposure counts it as untrusted,
            // whatever this declaration says.
            Ok(ToolOutput::text(text).with_authored())
        })
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on(async {
        let (server_end, client_end) = tokio::io::duplex(64 * 1024);
        tokio::spawn(async move {
            if let Ok(server) = Weather.serve(server_end).await {
                let _ = server.waiting().await;
            }
        });
        let client: Client = Arc::new(().serve(client_end).await?);

        // Every read-only tool of the other server, and nothing else.
        let mut builder = Registry::builder();
        for tool in client.list_all_tools().await? {
            let read_only = tool
                .annotations
                .as_ref()
                .and_then(|annotations| annotations.read_only_hint);
            if read_only == Some(true) {
                let client = Arc::clone(&client);
                builder = builder.add(Proxied { tool, client });
            }
        }
        let registry = builder.build()?;
        let names: Vec<&str> = registry.tools().iter().map(|tool| tool.name()).collect();
        assert_eq!(names, ["forecast"], "the write tool is not proxied");

        let run = registry.run("proxy", Actor::user("ada")).start();
        let Outcome::Done(output) = run.call("forecast", json!({"city": "Oslo"})).await? else {
            return Err("a read tool runs".into());
        };
        println!("{}", output.to_model_text());
        assert_eq!(output.to_model_text(), "Oslo: sunny, 21 °C");
        assert!(output.carries_authored(), "relayed text is others' text");
        // Checked against the other server's schema before it is sent.
        let refused = run.call("forecast", json!({"town": "Oslo"})).await;
        assert!(refused.is_err(), "{refused:?}");
        Ok(())
    })
}

#[test]
fn runs() {
    main().unwrap();
}
