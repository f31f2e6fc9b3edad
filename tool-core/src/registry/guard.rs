//! Panic isolation: a tool that panics, while starting or while its future
//! is polled, fails its own call and nothing else.

use std::any::Any;
use std::future::{Future, ready};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::ToolError;
use crate::registration::BoxFuture;

/// Starts the tool's call at once, then polls it, so that a panic in
/// either fails this call only.
///
/// A plain future rather than an `async fn`: the call path moves it, and
/// this one is two words.
pub(super) fn guarded<'a, T: Send + 'a>(
    tool: &'a str,
    start: impl FnOnce() -> BoxFuture<'a, Result<T, ToolError>>,
) -> Guarded<'a, T> {
    let future = match catch_unwind(AssertUnwindSafe(start)) {
        Ok(future) => future,
        Err(payload) => Box::pin(ready(Err(panicked(tool, &*payload)))),
    };
    Guarded { tool, future }
}

/// A started call of a tool, failing with [`ToolError::Panicked`] if it
/// panics.
pub(crate) struct Guarded<'a, T> {
    tool: &'a str,
    future: BoxFuture<'a, Result<T, ToolError>>,
}

impl<T> Future for Guarded<'_, T> {
    type Output = Result<T, ToolError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        // The future is dropped right after a panic and never polled again,
        // so no broken invariant of it can be observed.
        match catch_unwind(AssertUnwindSafe(|| this.future.as_mut().poll(cx))) {
            Ok(poll) => poll,
            Err(payload) => Poll::Ready(Err(panicked(this.tool, &*payload))),
        }
    }
}

fn panicked(tool: &str, payload: &(dyn Any + Send)) -> ToolError {
    let message = panic_message(payload);
    tracing::error!(target: "tool_core::call", tool, message, "tool panicked");
    ToolError::Panicked {
        tool: tool.to_owned(),
        message,
    }
}

pub(super) fn panic_message(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".to_owned())
}
