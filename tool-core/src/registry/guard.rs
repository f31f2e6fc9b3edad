//! Panic isolation: a tool that panics, while starting or while its future
//! is polled, fails its own call and nothing else.

use std::any::Any;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::ToolError;
use crate::registration::BoxFuture;

/// Runs `start` and polls its future so that a panic in either fails this
/// call only.
pub(super) async fn guarded<'a, T>(
    tool: &str,
    start: impl FnOnce() -> BoxFuture<'a, Result<T, ToolError>>,
) -> Result<T, ToolError> {
    let outcome = match catch_unwind(AssertUnwindSafe(start)) {
        Ok(future) => CatchUnwind(future).await,
        Err(payload) => Err(payload),
    };
    outcome.unwrap_or_else(|payload| {
        let message = panic_message(&*payload);
        tracing::error!(target: "tool_core::call", tool, message, "tool panicked");
        Err(ToolError::Panicked {
            tool: tool.to_owned(),
            message,
        })
    })
}

type PanicPayload = Box<dyn Any + Send>;

struct CatchUnwind<'a, T>(BoxFuture<'a, T>);

impl<T> Future for CatchUnwind<'_, T> {
    type Output = Result<T, PanicPayload>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // The future is dropped right after a panic and never polled again,
        // so no broken invariant of it can be observed.
        match catch_unwind(AssertUnwindSafe(|| self.0.as_mut().poll(cx))) {
            Ok(Poll::Ready(value)) => Poll::Ready(Ok(value)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(payload) => Poll::Ready(Err(payload)),
        }
    }
}

pub(super) fn panic_message(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".to_owned())
}
