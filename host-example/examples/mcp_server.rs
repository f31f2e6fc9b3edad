//! Serves the host's tools over MCP with the in-memory backend, until the
//! host's own command line serves them.
//!
//! ```text
//! mcp_server stdio --user petra
//! mcp_server http [--listen 127.0.0.1:8765] [--page-size 50]
//! ```
//!
//! Users and tokens are those of the demo site: `admin`, `petra`, `nils`
//! and `clara`, each with the token `<name>-token` (see [`TOKENS`]).

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

use host_example::mcp::{self, MemoryBackend};

/// The demo users and their bearer tokens: fixed, for tests and trying it
/// out. A real host keeps tokens in its database.
const TOKENS: [(&str, &str); 4] = [
    ("admin", "admin-token"),
    ("petra", "petra-token"),
    ("nils", "nils-token"),
    ("clara", "clara-token"),
];

const USAGE: &str =
    "usage: mcp_server stdio --user NAME\n       mcp_server http [--listen ADDR] [--page-size N]";

#[tokio::main]
async fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("mcp_server: {message}");
            ExitCode::FAILURE
        }
    }
}

async fn run(args: Vec<String>) -> Result<(), String> {
    let registry = host_example::registry().map_err(|e| e.to_string())?;
    let backend = Arc::new(MemoryBackend::demo(registry, TOKENS));
    let (mode, options) = args.split_first().ok_or(USAGE)?;
    let option = |name: &str| {
        options
            .iter()
            .position(|arg| arg == name)
            .and_then(|i| options.get(i + 1))
            .map(String::as_str)
    };
    match mode.as_str() {
        "stdio" => {
            let name = option("--user").ok_or(USAGE)?;
            let actor = backend
                .user(name)
                .await
                .map_err(|e| e.to_string())?
                .ok_or_else(|| format!("no user `{name}`"))?;
            mcp::serve_stdio(backend, actor)
                .await
                .map_err(|e| e.to_string())
        }
        "http" => {
            let listen: SocketAddr = option("--listen")
                .unwrap_or("127.0.0.1:0")
                .parse()
                .map_err(|e| format!("--listen: {e}"))?;
            let page_size = match option("--page-size") {
                Some(n) => n.parse().map_err(|e| format!("--page-size: {e}"))?,
                None => mcp::DEFAULT_PAGE_SIZE,
            };
            let listener = tokio::net::TcpListener::bind(listen)
                .await
                .map_err(|e| format!("cannot listen on {listen}: {e}"))?;
            let address = listener.local_addr().map_err(|e| e.to_string())?;
            // The first line on stdout: a test reads the port from it.
            println!("listening on http://{address}{}", mcp::http::PATH);
            axum::serve(listener, mcp::http::router(backend, page_size))
                .await
                .map_err(|e| e.to_string())
        }
        _ => Err(USAGE.to_owned()),
    }
}
