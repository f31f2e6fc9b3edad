//! Tools' progress while an agent run's calls are under way, as
//! [`Event::ToolProgress`].
//!
//! Each call gets a context whose progress sink names the call and queues
//! its reports; the loop waits for the calls and the queue together, and
//! turns what is queued into events between two polls of the calls. Reports
//! a tool makes faster than the loop looks are folded into the newest per
//! call, so a tool reporting in a tight loop costs a sink a few events.
//! Only a listening sink gets any of this: for a run nobody watches, the
//! calls' contexts are the run's own.

use std::borrow::Cow;
use std::future::{Future, poll_fn};
use std::pin::pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::Poll;

use futures_util::task::AtomicWaker;

use super::{Event, EventSink, ToolCall};
use crate::ToolContext;
use crate::calls::ProgressSink;

/// One report of one call.
#[derive(Debug)]
struct Report {
    call_id: String,
    tool: String,
    done: u64,
    total: Option<u64>,
    message: String,
}

/// The queue the calls' sinks fill and the loop empties.
#[derive(Debug, Default)]
struct Queue {
    reports: Mutex<Vec<Report>>,
    /// The loop's task, woken by a new report.
    waker: AtomicWaker,
}

impl Queue {
    fn take(&self) -> Vec<Report> {
        std::mem::take(&mut *self.reports.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// A call's progress sink: its reports go to the run's queue, and on to
/// the sink the host set on the run's context, if any.
struct CallSink {
    call_id: String,
    tool: String,
    queue: Arc<Queue>,
    host: Option<Arc<dyn ProgressSink>>,
}

impl ProgressSink for CallSink {
    fn report(&self, done: u64, total: Option<u64>, message: &str) {
        if let Some(host) = &self.host {
            host.report(done, total, message);
        }
        self.queue
            .reports
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(Report {
                call_id: self.call_id.clone(),
                tool: self.tool.clone(),
                done,
                total,
                message: message.to_owned(),
            });
        self.queue.waker.wake();
    }
}

/// The progress of one batch of calls of a run.
#[derive(Debug, Default)]
pub(super) struct CallProgress {
    /// `None` when nobody listens: no sink is set and nothing is queued.
    queue: Option<Arc<Queue>>,
}

impl CallProgress {
    /// Progress for a run whose sink is `events`.
    pub(super) fn new(events: &impl EventSink) -> CallProgress {
        CallProgress {
            queue: events.is_listening().then(Arc::default),
        }
    }

    /// `cx` for `call`, its reports queued here (`cx` itself when nobody
    /// listens).
    pub(super) fn context<'c>(&self, cx: &'c ToolContext, call: &ToolCall) -> Cow<'c, ToolContext> {
        match &self.queue {
            None => Cow::Borrowed(cx),
            Some(queue) => Cow::Owned(cx.clone().with_progress_sink(CallSink {
                call_id: call.id.clone(),
                tool: call.name.clone(),
                queue: Arc::clone(queue),
                host: cx.progress_sink().cloned(),
            })),
        }
    }

    /// Waits for `calls`, telling `events` of the progress reported
    /// meanwhile; a report queued as the calls end is told before this
    /// returns.
    pub(super) async fn watch<T>(
        &self,
        calls: impl Future<Output = T>,
        round: u32,
        events: &mut impl EventSink,
    ) -> T {
        let Some(queue) = &self.queue else {
            return calls.await;
        };
        let mut calls = pin!(calls);
        loop {
            let step = poll_fn(|task| {
                if let Poll::Ready(output) = calls.as_mut().poll(task) {
                    return Poll::Ready(Ok(output));
                }
                // Registered before looking, so a report made after the
                // look wakes the task.
                queue.waker.register(task.waker());
                let reports = queue.take();
                if reports.is_empty() {
                    Poll::Pending
                } else {
                    Poll::Ready(Err(reports))
                }
            })
            .await;
            match step {
                Ok(output) => {
                    tell(queue.take(), round, events);
                    return output;
                }
                Err(reports) => tell(reports, round, events),
            }
        }
    }
}

/// The newest report of each call in `reports`, in the order the calls
/// first reported, as events.
fn tell(reports: Vec<Report>, round: u32, events: &mut impl EventSink) {
    let mut newest: Vec<Report> = Vec::new();
    for report in reports {
        match newest.iter_mut().find(|r| r.call_id == report.call_id) {
            Some(slot) => *slot = report,
            None => newest.push(report),
        }
    }
    for report in newest {
        events.event(&Event::ToolProgress {
            round,
            call_id: report.call_id,
            tool: report.tool,
            done: report.done,
            total: report.total,
            message: report.message,
        });
    }
}
