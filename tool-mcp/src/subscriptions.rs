//! `resources/subscribe` and `resources/unsubscribe` (2025-11-25 and
//! older): a session's subscriptions, each a task that forwards the host's
//! updates of one URI as `notifications/resources/updated` until the
//! session unsubscribes, the client goes away or the host's updates end.

use std::collections::HashMap;
use std::sync::Mutex;

use rmcp::RoleServer;
use rmcp::model::ResourceUpdatedNotificationParam;
use rmcp::service::Peer;
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

/// Every session's subscriptions: by session, by URI.
#[derive(Debug, Default)]
pub(crate) struct Subscriptions(Mutex<HashMap<String, HashMap<String, CancellationToken>>>);

impl Subscriptions {
    /// `session` hears of every update of `uri` the host announces on
    /// `updates`, through `peer`. Subscribing twice changes nothing.
    pub(crate) fn subscribe(
        &self,
        session: &str,
        uri: &str,
        mut updates: broadcast::Receiver<String>,
        peer: Peer<RoleServer>,
    ) {
        let stop = CancellationToken::new();
        {
            let mut all = self.lock();
            let uris = all.entry(session.to_owned()).or_default();
            if uris.contains_key(uri) {
                return;
            }
            uris.insert(uri.to_owned(), stop.clone());
        }
        let uri = uri.to_owned();
        tokio::spawn(async move {
            loop {
                let updated = tokio::select! {
                    () = stop.cancelled() => return,
                    updated = updates.recv() => updated,
                };
                match updated {
                    Ok(updated) if updated == uri => {
                        let param = ResourceUpdatedNotificationParam::new(uri.clone());
                        if peer.notify_resource_updated(param).await.is_err() {
                            // The client went away.
                            return;
                        }
                    }
                    // Another URI, or updates this task fell behind on (the
                    // next one still arrives).
                    Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                    Err(broadcast::error::RecvError::Closed) => return,
                }
            }
        });
    }

    /// `session` no longer hears of `uri`.
    pub(crate) fn unsubscribe(&self, session: &str, uri: &str) {
        let mut all = self.lock();
        if let Some(uris) = all.get_mut(session) {
            if let Some(stop) = uris.remove(uri) {
                stop.cancel();
            }
            if uris.is_empty() {
                all.remove(session);
            }
        }
    }

    fn lock(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<String, HashMap<String, CancellationToken>>> {
        // Every write is one insert or one removal: a panic elsewhere
        // leaves no half-write.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}
