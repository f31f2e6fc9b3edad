//! The baseline the MCP benches compare the host with: a plain rmcp server
//! serving the same tool, `get_pagetree` over the same database's site,
//! with nothing around it: no identity, no gates, no argument validation
//! beyond serde, no audit. A hand-written `ServerHandler` (rmcp's leanest
//! form: no router, no macros), so the comparison is against the cheapest
//! rmcp server there is.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler};
use serde_json::Value;
use site_model::Site;
use tool_core::export::Provider;
use tool_core::{Actor, Execute as _, RunId, ToolContext};
use tools_builtin::structure::GetPagetree;

/// The plain server: the tool over the site, as `admin`.
#[derive(Clone)]
pub struct Plain {
    site: Arc<dyn Site>,
    actor: Actor,
    tool: Tool,
}

impl Plain {
    /// The server over the database at `url`.
    pub async fn open(url: &str) -> Plain {
        let database = host_example::store::Store::open(url).await.unwrap();
        let site: Arc<dyn Site> = Arc::new(
            database
                .site()
                .with_source_root(site_model::demo::source_root()),
        );
        let registry = host_example::registry().unwrap();
        let tool = serde_json::from_value(
            registry
                .get("get_pagetree")
                .unwrap()
                .export(Provider::Mcp)
                .clone(),
        )
        .unwrap();
        Plain {
            site,
            actor: Actor {
                id: "admin".into(),
                admin: true,
            },
            tool,
        }
    }
}

impl ServerHandler for Plain {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _cx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![self.tool.clone()]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _cx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let tool: GetPagetree = serde_json::from_value(arguments)
            .map_err(|e| ErrorData::invalid_params(e.to_string(), None))?;
        let cx = ToolContext::new(RunId("plain".into()))
            .with_actor(self.actor.clone())
            .with_service(Arc::clone(&self.site));
        let result = match tool.execute(&cx).await {
            Ok(output) => CallToolResult::success(vec![ContentBlock::text(output.to_model_text())]),
            Err(error) => CallToolResult::error(vec![ContentBlock::text(error.model_text())]),
        };
        Ok(result.into())
    }
}
