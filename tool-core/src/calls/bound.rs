//! One attempt of a call, raced against its timeout, the host's ceiling
//! and the cancel token. The tool's future is dropped when any of them
//! ends first.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use super::{Cancelled, TimeLimit, Timer};
use crate::{BoxFuture, ToolError};

/// The progress reports of one call, shared between the tool (through its
/// context) and the race that restarts the timeout on each.
#[derive(Default)]
pub(crate) struct ProgressSignal {
    reports: AtomicU64,
    /// The race's waker, so a report from another thread restarts the
    /// timeout at once rather than when the old one fires.
    waker: Mutex<Option<Waker>>,
}

impl ProgressSignal {
    pub(crate) fn report(&self) {
        self.reports.fetch_add(1, Ordering::AcqRel);
        let waker = self
            .waker
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// What one attempt is raced against.
pub(crate) struct Bounds<'a> {
    /// `None` only when nothing but cancellation bounds the call.
    pub(crate) timer: Option<&'a dyn Timer>,
    /// Restarted by each progress report; `None` when only the ceiling (or
    /// nothing but cancellation) bounds the call.
    pub(crate) timeout: Option<Duration>,
    /// From the start of the attempt, whatever the progress.
    pub(crate) ceiling: Option<Duration>,
    pub(crate) cancel: Option<Cancelled>,
    pub(crate) progress: Option<&'a ProgressSignal>,
}

type Sleep = BoxFuture<'static, ()>;

pub(crate) struct Bounded<'a, F> {
    tool: &'a str,
    call: F,
    timer: Option<&'a dyn Timer>,
    timeout: Option<(Duration, Sleep)>,
    ceiling: Option<(Duration, Sleep)>,
    cancel: Option<Cancelled>,
    progress: Option<&'a ProgressSignal>,
    seen: u64,
    reported: bool,
}

impl<'a, F> Bounded<'a, F> {
    pub(crate) fn new(tool: &'a str, call: F, bounds: Bounds<'a>) -> Self {
        let Bounds {
            timer,
            timeout,
            ceiling,
            cancel,
            progress,
        } = bounds;
        let seen = progress.map_or(0, |p| p.reports.load(Ordering::Acquire));
        Bounded {
            tool,
            call,
            timer,
            timeout: timer.zip(timeout).map(|(t, d)| (d, t.sleep(d))),
            ceiling: timer.zip(ceiling).map(|(t, d)| (d, t.sleep(d))),
            cancel,
            progress,
            seen,
            reported: false,
        }
    }
}

impl<T, F> Future for Bounded<'_, F>
where
    F: Future<Output = Result<T, ToolError>> + Unpin,
{
    type Output = Result<T, ToolError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        // The tool first: one that finishes as its time runs out finished.
        if let Poll::Ready(result) = Pin::new(&mut this.call).poll(cx) {
            return Poll::Ready(result);
        }
        if let (Some(progress), Some(timer), Some((timeout, sleep))) =
            (this.progress, this.timer, &mut this.timeout)
        {
            *progress
                .waker
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = Some(cx.waker().clone());
            let reports = progress.reports.load(Ordering::Acquire);
            if reports != this.seen {
                this.seen = reports;
                this.reported = true;
                *sleep = timer.sleep(*timeout);
            }
        }
        if let Some(cancel) = &mut this.cancel
            && Pin::new(cancel).poll(cx).is_ready()
        {
            return Poll::Ready(Err(ToolError::Cancelled {
                tool: this.tool.to_owned(),
            }));
        }
        if let Some((ceiling, sleep)) = &mut this.ceiling
            && sleep.as_mut().poll(cx).is_ready()
        {
            return Poll::Ready(Err(ToolError::TimedOut {
                tool: this.tool.to_owned(),
                after: *ceiling,
                limit: TimeLimit::Ceiling,
            }));
        }
        if let Some((timeout, sleep)) = &mut this.timeout
            && sleep.as_mut().poll(cx).is_ready()
        {
            let limit = if !this.reported {
                TimeLimit::Timeout
            } else {
                TimeLimit::SinceProgress
            };
            return Poll::Ready(Err(ToolError::TimedOut {
                tool: this.tool.to_owned(),
                after: *timeout,
                limit,
            }));
        }
        Poll::Pending
    }
}
