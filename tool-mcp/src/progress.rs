//! A call's progress on its way to whoever watches it (an MCP client that
//! sent a `progressToken`): the tool's reports ([`ToolContext::progress`])
//! go into a [`ProgressFeed`], which keeps only the newest; a
//! [`ProgressWatch`] forwards it at most once per [`PROGRESS_INTERVAL`].
//! A tool reporting in a tight loop so costs the client a few messages a
//! second, and the last report is always forwarded before the call
//! answers.
//!
//! [`ToolContext::progress`]: tool_core::ToolContext::progress

use std::time::{Duration, Instant};

use rmcp::RoleServer;
use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::RequestContext;
use tokio::sync::watch;
use tool_core::calls::ProgressSink;

/// The least time between two forwarded reports of one call.
pub const PROGRESS_INTERVAL: Duration = Duration::from_millis(40);

/// One progress report of a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProgressReport {
    /// How much is done.
    pub done: u64,
    /// Of how much, when known.
    pub total: Option<u64>,
    /// What is being done.
    pub message: String,
}

/// The tool's end: keeps the newest report. Dropped with the call's
/// context, which ends the watch.
#[derive(Debug)]
pub struct ProgressFeed(watch::Sender<Option<ProgressReport>>);

/// The watcher's end.
#[derive(Debug)]
pub struct ProgressWatch(watch::Receiver<Option<ProgressReport>>);

/// A feed for one call and the watch on it.
pub fn progress_channel() -> (ProgressFeed, ProgressWatch) {
    let (sender, receiver) = watch::channel(None);
    (ProgressFeed(sender), ProgressWatch(receiver))
}

impl ProgressSink for ProgressFeed {
    fn report(&self, done: u64, total: Option<u64>, message: &str) {
        self.0.send_replace(Some(ProgressReport {
            done,
            total,
            message: message.to_owned(),
        }));
    }
}

impl ProgressWatch {
    /// Hands the newest report to `send`, at most once per
    /// [`PROGRESS_INTERVAL`] (reports in between are folded into the
    /// newest), until the call's feed is dropped; a report not yet
    /// forwarded then is forwarded before this returns.
    pub async fn forward<F, Fut>(mut self, mut send: F)
    where
        F: FnMut(ProgressReport) -> Fut,
        Fut: Future<Output = ()>,
    {
        let mut last: Option<Instant> = None;
        while self.0.changed().await.is_ok() {
            if let Some(at) = last {
                let wait = PROGRESS_INTERVAL.saturating_sub(at.elapsed());
                if !wait.is_zero() {
                    tokio::time::sleep(wait).await;
                }
            }
            let newest = self.0.borrow_and_update().clone();
            if let Some(report) = newest {
                send(report).await;
                last = Some(Instant::now());
            }
        }
    }
}

/// Sends the call's progress reports to the client as
/// `notifications/progress` with its `token`, rate-limited by the watch.
pub(crate) async fn notify(
    cx: &RequestContext<RoleServer>,
    token: Option<ProgressToken>,
    watch: Option<ProgressWatch>,
) {
    let (Some(token), Some(watch)) = (token, watch) else {
        return;
    };
    watch
        .forward(|report: ProgressReport| {
            let mut param = ProgressNotificationParam::new(token.clone(), report.done as f64);
            if let Some(total) = report.total {
                param = param.with_total(total as f64);
            }
            if !report.message.is_empty() {
                param = param.with_message(report.message);
            }
            let peer = cx.peer.clone();
            async move {
                // A client gone away misses its progress; the call goes on.
                let _ = peer.notify_progress(param).await;
            }
        })
        .await;
}
