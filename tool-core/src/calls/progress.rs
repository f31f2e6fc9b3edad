//! Where a tool's progress reports go besides restarting its timeout: a
//! host forwards them to whoever watches the call (an MCP client that
//! asked with a `progressToken`, a live page).

/// Receives each progress report of the calls made with a context
/// ([`ToolContext::with_progress_sink`](crate::ToolContext::with_progress_sink)),
/// as the tool makes it. Called on the tool's task: keep it quick (hand
/// the report on; a host rate-limits what it forwards).
pub trait ProgressSink: Send + Sync + 'static {
    /// One report: `done` of `total` (when known), and what is being done.
    fn report(&self, done: u64, total: Option<u64>, message: &str);
}

impl<F: Fn(u64, Option<u64>, &str) + Send + Sync + 'static> ProgressSink for F {
    fn report(&self, done: u64, total: Option<u64>, message: &str) {
        self(done, total, message);
    }
}
