//! `host-conformance DATABASE_URL [ADDR]`: the host's HTTP server (its own
//! router, `host_example::serve::router`) with the conformance fixture
//! tools linked, for the official MCP conformance suite (`.ci/conformance.sh`).
//!
//! The suite sends no `Authorization` header, and the host answers every
//! request without a token `401`. So this build mints a token for the demo
//! user `petra` when it starts and adds `Authorization: Bearer TOKEN` to a
//! request that carries none; the host's own bearer check then judges it
//! like any other. Nothing else differs from `host-example serve`: the
//! `Origin` and `Host` checks, sessions and every rule are the product's.
//!
//! Prints `listening on http://ADDR` first, and serves until Ctrl-C.

use std::net::SocketAddr;
use std::process::ExitCode;

use host_example::serve::{self, HostState};
use tokio_util::sync::CancellationToken;

/// The demo user the suite acts as: an editor, granted the fixture tools.
const USER: &str = "petra";

#[tokio::main]
async fn main() -> ExitCode {
    conformance_fixtures::link();
    let mut args = std::env::args().skip(1);
    let (Some(database), addr) = (args.next(), args.next()) else {
        eprintln!("usage: host-conformance DATABASE_URL [ADDR]");
        return ExitCode::from(2);
    };
    match run(&database, addr.as_deref().unwrap_or("127.0.0.1:0")).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run(database: &str, addr: &str) -> Result<(), Box<dyn std::error::Error>> {
    let addr: SocketAddr = addr.parse()?;
    let host = host_example::Host::open(database).await?;
    let token = host.admin().new_token("admin", USER).await?;
    let state = HostState::new(host);
    let listener = tokio::net::TcpListener::bind(addr).await?;
    println!("listening on http://{}", listener.local_addr()?);
    let stop = CancellationToken::new();
    let on_ctrl_c = stop.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            on_ctrl_c.cancel();
        }
    });
    let router = conformance_fixtures::with_token(serve::router(&state, stop.clone()), &token)?;
    serve::serve(listener, router, stop).await?;
    Ok(())
}
