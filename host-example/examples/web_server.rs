//! The browser pages alone, until `host-example serve` merges them: serves
//! `web::router` on 127.0.0.1 (a free port) over the database named by
//! `HOST_DATABASE_URL` (default: `host-example.db` here) and prints the
//! address. Sign in as a demo user (password `demo` in a fresh database).
//!
//! `cargo run -p host-example --example web_server`

use std::sync::Arc;

use host_example::store::{DEFAULT_DATABASE_URL, Store};
use host_example::web::{self, WebState};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = std::env::var("HOST_DATABASE_URL").unwrap_or_else(|_| DEFAULT_DATABASE_URL.into());
    let store = Store::open(&url).await?;
    let registry = Arc::new(host_example::registry()?);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    println!("http://{}", listener.local_addr()?);
    axum::serve(listener, web::router(WebState::new(store, registry))).await?;
    Ok(())
}
