//! The host's HTTP server, as `host-example serve` runs it: one axum
//! [`Router`] holding every front door the host serves over HTTP, built in
//! [`router`]: MCP at `/mcp` and the browser pages (`web`) beside it,
//! served until told to stop, with the background worker
//! ([`crate::app::worker`]) running beside it.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::app::Host;
use crate::mcp;
use crate::web::{self, WebState};

/// How long open connections get to finish once the server is told to
/// stop.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// What every route of the host's HTTP server shares: the one app layer,
/// and what the browser pages keep of their own (sessions, live runs).
#[derive(Debug, Clone)]
pub struct HostState {
    /// The app layer both doors ask.
    pub host: Arc<Host>,
    /// What the browser pages share.
    pub web: WebState,
}

impl HostState {
    /// The state over `host`.
    pub fn new(host: Host) -> HostState {
        let host = Arc::new(host);
        let web = WebState::new(Arc::clone(&host));
        HostState { host, web }
    }
}

/// Every route the host serves over HTTP, in one router. Cancelling `stop`
/// ends open MCP sessions and streams. Building it starts nothing: `serve`
/// starts the host's background worker beside it ([`Jobs::start_worker`](crate::app::Host::start_worker):
/// the batches the pages start are its jobs).
pub fn router(state: &HostState, stop: CancellationToken) -> Router {
    Router::new()
        .merge(mcp::http::router(
            Arc::clone(&state.host),
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
    // With each connection's peer address: the sign-in is throttled by it.
    let service = router.into_make_service_with_connect_info::<std::net::SocketAddr>();
    let server =
        axum::serve(listener, service).with_graceful_shutdown(stop.clone().cancelled_owned());
    tokio::select! {
        served = server => served,
        () = async {
            stop.cancelled().await;
            tokio::time::sleep(SHUTDOWN_GRACE).await;
        } => Ok(()),
    }
}
