//! How a call ends and explains itself: timeouts, cancellation, retries.
//!
//! # Timeouts
//!
//! A call is bounded by its tool's timeout (`#[tool(timeout = "30s")]`, or
//! the host's [`default_timeout`](crate::RegistryBuilder::default_timeout)
//! for a tool that declares none) and by the host's hard
//! [`timeout_ceiling`](crate::RegistryBuilder::timeout_ceiling). Each
//! progress report ([`ToolContext::progress`](crate::ToolContext::progress))
//! restarts the timeout; nothing extends the ceiling, which counts from the
//! start of the call. A call that runs out ends with
//! [`ToolError::TimedOut`](crate::ToolError::TimedOut) ("tool `x` timed out
//! after 30 s") and the tool's future is dropped.
//!
//! The bounds wait on the host's [`Timer`]
//! ([`RegistryBuilder::timer`](crate::RegistryBuilder::timer)); without one
//! no call times out (tool-core cannot sleep by itself), and building a
//! registry with bounds but no timer logs a warning.
//!
//! A write tool's timeout covers proposing, which writes nothing. Applying
//! an approved proposal has **no** timeout and cannot be cancelled: cutting
//! `apply` in the middle could leave half a change written, and a person
//! already decided to wait for it. (Applying re-proposes first, to refuse a
//! stale proposal; that part is bounded like any proposing.)
//!
//! # Cancellation
//!
//! A host puts a [`CancelToken`] in the run's context
//! ([`ToolContext::with_cancel`](crate::ToolContext::with_cancel)) and
//! cancels it to stop the run; a [child](CancelToken::child) stops one call.
//! A tool may watch it (`cx.is_cancelled()`, `cx.cancelled().await`) to
//! stop early; the call path stops waiting for it anyway, drops its future
//! and returns [`ToolError::Cancelled`](crate::ToolError::Cancelled). The
//! agent loop ends the run with
//! [`RunStatus::Cancelled`](crate::agent::RunStatus::Cancelled), keeping the
//! conversation so far.
//!
//! # Decision records
//!
//! Every call through [`Gates::call`](crate::gates::Gates::call) ends with
//! one [`DecisionRecord`]: run, actor, tool, the tool's
//! [`DefinitionHash`], the arguments with
//! [`redact_json`](crate::redact::redact_json) applied, the gates' decision
//! (the gate and the rule that refused), the skills gate 6 consulted, the
//! duration and how the call ended. It goes to the context's
//! [`DecisionSink`] and is a `tracing` event (target
//! `tool_core::decision`). With neither a sink nor a subscriber for that
//! target, no record is built.
//!
//! Every approval through [`Approval::approve`](crate::approval::Approval::approve)
//! (and `approve_edited`, `approve_all`) ends with one record of the same
//! shape, to the same places: its `approver` names who approved, its
//! decision is the run's gates' and then the approver's (the gate and rule
//! that refused), and its outcome says whether the change was applied or
//! why not (stale, expired, already decided, …).
//!
//! # Retries
//!
//! A call is retried only when all of these hold: the tool is idempotent
//! (read tools are unless they declare `idempotent = false`; write tools are
//! not unless they declare `idempotent = true`), the failure is one the tool
//! marked retryable ([`ToolError::transient`](crate::ToolError::transient)),
//! and the host's [`RetryPolicy`] has retries left (default 2). Between
//! attempts the call waits on the timer (100 ms, then twice as long each
//! time; no wait without a timer), and cancellation stops the waiting. Each
//! attempt has its own timeout; a timed-out or cancelled attempt is not
//! retried. Applying a proposal is never retried.

#[cfg(feature = "host")]
mod bound;
mod cancel;
#[cfg(feature = "host")]
mod progress;
#[cfg(feature = "host")]
mod record;
#[cfg(feature = "host")]
mod timer;

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

#[cfg(feature = "host")]
pub(crate) use bound::{Bounded, Bounds, ProgressSignal};
pub use cancel::{CancelToken, Cancelled};
#[cfg(feature = "host")]
pub use progress::ProgressSink;
#[cfg(feature = "host")]
pub(crate) use record::definition_hash;
#[cfg(feature = "host")]
pub use record::{DecisionRecord, DecisionSink, DefinitionHash, GateDecision, OutcomeKind};
#[cfg(feature = "host")]
pub use timer::{ManualTimer, ThreadTimer, Timer};

/// The longest timeout a tool may declare: one hour. The derive refuses a
/// longer one at compile time, the registry one of a run-time tool.
pub const MAX_TOOL_TIMEOUT: Duration = Duration::from_millis(tool_rules::TIMEOUT_MAX_MILLIS);

/// Which bound ended a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeLimit {
    /// The tool's timeout (or the host's default), with no progress
    /// reported.
    Timeout,
    /// The timeout, counted from the last progress report.
    SinceProgress,
    /// The host's ceiling, counted from the start of the call.
    Ceiling,
}

impl fmt::Display for TimeLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TimeLimit::Timeout => "timeout",
            TimeLimit::SinceProgress => "timeout since progress",
            TimeLimit::Ceiling => "ceiling",
        })
    }
}

/// A duration as a person reads it in a message: `30 s`, `0.5 s`.
pub(crate) fn seconds(duration: &Duration) -> String {
    if duration.subsec_millis() == 0 {
        format!("{} s", duration.as_secs())
    } else {
        let text = format!("{:.3}", duration.as_secs_f64());
        format!("{} s", text.trim_end_matches('0'))
    }
}

/// How often a call that failed transiently is tried again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    retries: u32,
    backoff: Duration,
}

impl RetryPolicy {
    /// No retries.
    pub const NONE: RetryPolicy = RetryPolicy {
        retries: 0,
        backoff: Duration::ZERO,
    };

    /// Up to `retries` more attempts, waiting `backoff` before the first and
    /// twice as long before each next one.
    pub const fn new(retries: u32, backoff: Duration) -> Self {
        RetryPolicy { retries, backoff }
    }

    /// How many attempts after the first.
    pub fn retries(&self) -> u32 {
        self.retries
    }

    /// The wait before retry `n` (from 1).
    #[cfg(feature = "host")]
    pub(crate) fn backoff(&self, n: u32) -> Duration {
        self.backoff
            .saturating_mul(1u32.checked_shl(n.saturating_sub(1)).unwrap_or(u32::MAX))
    }
}

impl Default for RetryPolicy {
    /// Two retries, after 100 ms and 200 ms.
    fn default() -> Self {
        RetryPolicy::new(2, Duration::from_millis(100))
    }
}

/// The host's bounds on calls, set on the registry builder.
#[cfg(feature = "host")]
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct CallLimits {
    pub(crate) default_timeout: Option<Duration>,
    pub(crate) ceiling: Option<Duration>,
}

#[cfg(feature = "host")]
impl CallLimits {
    /// The timeout (restarted by progress) and the ceiling for a tool that
    /// declares `declared`. A timeout at or past the ceiling is left to the
    /// ceiling.
    pub(crate) fn for_tool(
        &self,
        declared: Option<Duration>,
    ) -> (Option<Duration>, Option<Duration>) {
        let timeout = declared.or(self.default_timeout);
        match (timeout, self.ceiling) {
            (Some(timeout), Some(ceiling)) if timeout >= ceiling => (None, Some(ceiling)),
            pair => pair,
        }
    }
}
