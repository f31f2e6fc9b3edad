//! The host's HTTP server, as `host-example serve` runs it: one axum
//! [`Router`] holding every front door the host serves over HTTP, built in
//! [`router`]: MCP at `/mcp` and the browser pages (`web`) beside it,
//! served until told to stop.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::host::{Host, HostError};
use crate::mcp::{self, SqlBackend, SqlStore};
use crate::store;
use crate::web::{self, WebState};

/// How long open connections get to finish once the server is told to
/// stop.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// What every route of the host's HTTP server shares.
#[derive(Debug, Clone)]
pub struct HostState {
    /// The database.
    pub database: store::Store,
    /// The MCP server's rules over it.
    pub mcp: Arc<SqlBackend>,
    /// What the browser pages share.
    pub web: WebState,
}

impl HostState {
    /// The state over `database`, serving every tool this host links.
    pub fn new(database: store::Store) -> Result<HostState, HostError> {
        let mcp = Arc::new(SqlBackend::new(
            crate::registry()?,
            SqlStore::new(database.clone()),
        ));
        let host = Host::with_registry(database.clone(), crate::registry()?);
        let web = WebState::new(Arc::new(host));
        Ok(HostState { database, mcp, web })
    }
}

/// Every route the host serves over HTTP, in one router. Cancelling
/// `stop` ends open MCP sessions and streams.
pub fn router(state: &HostState, stop: CancellationToken) -> Router {
    Router::new()
        .merge(mcp::http::router(
            Arc::clone(&state.mcp),
            mcp::DEFAULT_PAGE_SIZE,
            stop,
        ))
        .merge(web::router(state.web.clone()))
}

/// Serves `router` on `listener` until `stop` is cancelled, then lets
/// open connections finish for up to [`SHUTDOWN_GRACE`].
pub async fn serve(
    listener: TcpListener,
    router: Router,
    stop: CancellationToken,
) -> std::io::Result<()> {
    let server =
        axum::serve(listener, router).with_graceful_shutdown(stop.clone().cancelled_owned());
    tokio::select! {
        served = server => served,
        () = async {
            stop.cancelled().await;
            tokio::time::sleep(SHUTDOWN_GRACE).await;
        } => Ok(()),
    }
}
