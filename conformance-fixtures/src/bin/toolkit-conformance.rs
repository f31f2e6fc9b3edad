//! `toolkit-conformance [ADDR]`: the conformance fixture tools, and the
//! suite's resources, prompts and completions, served by tool-mcp alone ([`tool_mcp::Gated`] on its default settings, no host,
//! no database), for the official MCP conformance suite
//! (`.ci/conformance.sh` runs it against this server and against
//! `host-conformance` with one expected-failures file).
//!
//! The suite sends no `Authorization` header, and tool-mcp answers every
//! request without a known token `401`. So this server registers a token
//! and adds it to a request that carries none
//! ([`conformance_fixtures::with_token`]).
//!
//! Prints `listening on http://ADDR` first, and serves until Ctrl-C.

use std::process::ExitCode;

use conformance_fixtures::{SuiteCompletions, SuitePrompts, SuiteResources};
use tokio_util::sync::CancellationToken;
use tool_core::{Actor, Registry};
use tool_mcp::{Gated, McpServer};

/// The token the suite's requests are given.
const TOKEN: &str = "conformance";

#[tokio::main]
async fn main() -> ExitCode {
    conformance_fixtures::link();
    let addr = std::env::args().nth(1);
    match run(addr.as_deref().unwrap_or("127.0.0.1:0")).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run(addr: &str) -> Result<(), Box<dyn std::error::Error>> {
    let host = Gated::new(Registry::linked()?)
        .token(TOKEN, Actor::user("conformance"))
        .resources(SuiteResources::default())
        .prompts(SuitePrompts)
        .completions(SuiteCompletions);
    let listener = tokio::net::TcpListener::bind(addr).await?;
    println!("listening on http://{}", listener.local_addr()?);
    let stop = CancellationToken::new();
    let on_ctrl_c = stop.clone();
    let mut server = McpServer::from_host(host);
    // The end-to-end tests wait for a question's timeout in seconds, not
    // minutes.
    if let Some(millis) = std::env::var("TOOLKIT_ASK_TIMEOUT_MS")
        .ok()
        .and_then(|ms| ms.parse().ok())
    {
        server = server.with_ask_timeout(std::time::Duration::from_millis(millis));
    }
    let router = conformance_fixtures::with_token(server.router(stop.clone()), TOKEN)?;
    axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            let _ = tokio::signal::ctrl_c().await;
            on_ctrl_c.cancel();
        })
        .await?;
    Ok(())
}
