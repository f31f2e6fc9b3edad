//! Telling a listening client that what it may list changed: the tools
//! (the host's generations, [`McpHost::changes`](crate::McpHost::changes))
//! and the prompts one caller is offered (looked at again on every change
//! and poll).

use std::time::Duration;

use tool_core::Actor;

use crate::host::{McpHost, OfferedSkill};

/// How often open streams ask the host to look for changes another
/// process made ([`McpHost::poll_changes`](crate::McpHost::poll_changes)).
pub const POLL_INTERVAL: Duration = Duration::from_secs(1);

/// A list a client is told has changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ListChanged {
    /// `notifications/tools/list_changed`.
    Tools,
    /// `notifications/prompts/list_changed`.
    Prompts,
}

/// Announces each change of what one stream's client may list to
/// `send`, until it fails (the client went away) or `stop` resolves:
/// every change of `host`'s generation as [`ListChanged::Tools`], and a
/// change of the prompts `actor` is offered as [`ListChanged::Prompts`].
/// While it runs, the host is asked every [`POLL_INTERVAL`] to look for
/// changes made elsewhere.
pub(crate) async fn forward_changes<F, Fut>(
    host: &dyn McpHost,
    actor: Option<Actor>,
    send: F,
    stop: impl Future<Output = ()>,
) where
    F: Fn(ListChanged) -> Fut,
    Fut: Future<Output = bool>,
{
    let Some(mut changes) = host.changes() else {
        // Nothing ever changes: hold the stream open until it ends.
        stop.await;
        return;
    };
    // The generation this stream starts from, if no request read it yet.
    poll(host).await;
    let mut prompts = OfferedPrompts::new(actor);
    prompts.changed(host).await;
    let mut ticks = tokio::time::interval(POLL_INTERVAL);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tokio::pin!(stop);
    loop {
        let mut announce = Vec::new();
        tokio::select! {
            changed = changes.changed() => {
                if changed.is_err() {
                    return;
                }
                announce.push(ListChanged::Tools);
            }
            _ = ticks.tick() => poll(host).await,
            () = &mut stop => return,
        }
        if prompts.changed(host).await {
            announce.push(ListChanged::Prompts);
        }
        for change in announce {
            if !send(change).await {
                return;
            }
        }
    }
}

async fn poll(host: &dyn McpHost) {
    if let Err(error) = host.poll_changes().await {
        tracing::error!(target: "tool_mcp", %error, "could not look for changes");
    }
}

/// The prompts one stream's user was last offered, to notice a change.
struct OfferedPrompts {
    actor: Option<Actor>,
    offered: Option<Vec<OfferedSkill>>,
}

impl OfferedPrompts {
    fn new(actor: Option<Actor>) -> OfferedPrompts {
        OfferedPrompts {
            actor,
            offered: None,
        }
    }

    /// Whether the prompts offered now differ from those offered at the
    /// last look (the first look only remembers them). A look that fails
    /// changes nothing: the next one tries again.
    async fn changed(&mut self, host: &dyn McpHost) -> bool {
        let (Some(actor), Some(skills)) = (&self.actor, host.skills()) else {
            return false;
        };
        let offered = match skills.offered(actor).await {
            Ok(offered) => offered,
            Err(error) => {
                tracing::error!(target: "tool_mcp", %error, "could not read the skills");
                return false;
            }
        };
        let before = self.offered.replace(offered);
        before.is_some_and(|before| Some(&before) != self.offered.as_ref())
    }
}
