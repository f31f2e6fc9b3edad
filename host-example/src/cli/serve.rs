//! `host-example serve [--addr ADDR]`: the host's HTTP server (MCP at
//! `/mcp`, bearer tokens from `host-example users token`) until Ctrl-C.

use std::net::SocketAddr;

use clap::Args;
use host_example::serve::{self, HostState};
use tokio_util::sync::CancellationToken;

use super::{Context, Failure};

#[derive(Debug, Args)]
#[command(after_help = "Examples:
  host-example serve
  host-example serve --addr 127.0.0.1:0      # a free port, printed on the first line
  host-example --user admin users token admin   # a bearer token for the MCP endpoint")]
pub struct Command {
    /// The address to listen on. MCP accepts only loopback `Host` headers
    /// (against DNS rebinding): keep it on 127.0.0.1. Port 0 picks a free
    /// one.
    #[arg(long, default_value = "127.0.0.1:8080", value_name = "ADDR")]
    addr: SocketAddr,
}

pub fn run(context: &Context, command: Command) -> Result<(), Failure> {
    // Several clients at once, and a slow tool must not stall the others.
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|error| Failure::new(format!("cannot start the runtime: {error}")))?
        .block_on(serve_until_ctrl_c(context, command))
}

async fn serve_until_ctrl_c(context: &Context, command: Command) -> Result<(), Failure> {
    let host = context.host().await?;
    // Built at start when missing, so the first question does not wait for
    // it; a failure here leaves the tools to the next backend.
    if let Err(error) = host.refresh_index(false).await {
        eprintln!("warning: the public search index: {error}");
    }
    let state = HostState::new(host);
    let listener = tokio::net::TcpListener::bind(command.addr)
        .await
        .map_err(|error| Failure::new(format!("cannot listen on {}: {error}", command.addr)))?;
    let address = listener
        .local_addr()
        .map_err(|error| Failure::new(error.to_string()))?;
    // The first line on stdout: with port 0 it is how a caller learns the port.
    outln!("listening on http://{address}");
    eprintln!(
        "browser pages at http://{address}/ (sign in as a host user; the demo users' password is `demo`)\n\
         MCP at http://{address}{} (Authorization: Bearer TOKEN, from `host-example users token NAME`); Ctrl-C stops",
        host_example::mcp::http::PATH
    );
    let stop = CancellationToken::new();
    let on_ctrl_c = stop.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            on_ctrl_c.cancel();
        }
    });
    // The worker runs the jobs the pages start (batches, webhooks, the
    // expiry sweep) until Ctrl-C.
    let _worker = state.host.start_worker(stop.clone());
    let router = serve::router(&state, stop.clone());
    serve::serve(listener, router, stop)
        .await
        .map_err(|error| Failure::new(format!("the server failed: {error}")))
}
