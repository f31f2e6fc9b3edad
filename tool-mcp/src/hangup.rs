//! Noticing that a client went away, so its unfinished call is cancelled:
//! over HTTP, the answer's body dropped before its end (the connection
//! closed); over stdio, the end of stdin.
//!
//! rmcp cancels a request's own token when a 2026-07-28 (stateless)
//! client disconnects, but keeps a 2025-11-25 session's requests running
//! when their POST's stream is dropped, and on stdio lets handlers run for
//! seconds after stdin ends; these signals cover both.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use http_body::{Frame, SizeHint};
use tokio::io::{AsyncRead, ReadBuf};
use tokio_util::sync::{CancellationToken, DropGuard};

/// Cancelled when the client of one HTTP request, or of the stdio
/// connection, went away.
#[derive(Debug, Clone)]
pub(crate) struct Hangup(pub(crate) CancellationToken);

/// Runs `request`, handing it a [`Hangup`] cancelled if its answer's body
/// is dropped before it ended: hyper drops it when the connection closes.
pub(crate) async fn on_drop(mut request: Request, next: Next) -> Response {
    let hangup = CancellationToken::new();
    request.extensions_mut().insert(Hangup(hangup.clone()));
    next.run(request).await.map(|body| {
        Body::new(GuardedBody {
            inner: body,
            guard: Some(hangup.drop_guard()),
        })
    })
}

/// A body that cancels its token when dropped unfinished.
struct GuardedBody {
    inner: Body,
    guard: Option<DropGuard>,
}

impl http_body::Body for GuardedBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        if let Poll::Ready(None) = polled {
            // Sent whole: nothing to cancel.
            if let Some(guard) = self.guard.take() {
                guard.disarm();
            }
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// A reader that cancels its token at the end of its input or on an
/// error: the stdio client closed stdin, or died.
pub(crate) struct HangupOnEof<R> {
    inner: R,
    hangup: CancellationToken,
}

impl<R> HangupOnEof<R> {
    pub(crate) fn new(inner: R, hangup: CancellationToken) -> Self {
        HangupOnEof { inner, hangup }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for HangupOnEof<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        match &polled {
            Poll::Ready(Ok(())) if buf.filled().len() == before && buf.remaining() > 0 => {
                self.hangup.cancel();
            }
            Poll::Ready(Err(_)) => self.hangup.cancel(),
            _ => {}
        }
        polled
    }
}
