//! Serving one connection's client: stdio, or any reader and writer.

use rmcp::ServiceExt as _;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::sync::CancellationToken;
use tool_core::Actor;

use crate::server::McpServer;
use crate::{hangup, stdio};

impl McpServer {
    /// Serves MCP on this process's stdin and stdout, acting for `actor`,
    /// until the client closes the connection. Inside a tokio runtime.
    pub async fn serve_stdio(self, actor: Actor) -> Result<(), std::io::Error> {
        self.serve_io(actor, stdio::input(), stdio::output()).await
    }

    /// Serves MCP as stdio does, on any reader and writer: one JSON-RPC
    /// message a line, acting for `actor`, until `input` ends. The end of
    /// `input` cancels the calls under way (their tools are told); this
    /// returns once they have ended (and the host recorded them).
    pub async fn serve_io(
        self,
        actor: Actor,
        input: impl AsyncRead + Send + Unpin + 'static,
        output: impl AsyncWrite + Send + Unpin + 'static,
    ) -> Result<(), std::io::Error> {
        let hangup = CancellationToken::new();
        let server = self.for_user(actor, hangup.clone());
        let input = hangup::HangupOnEof::new(input, hangup);
        let running = server
            .clone()
            .serve((input, output))
            .await
            .map_err(std::io::Error::other)?;
        running.waiting().await.map_err(std::io::Error::other)?;
        server.finish_calls().await;
        Ok(())
    }
}
