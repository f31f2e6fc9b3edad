//! One of two futures with the same output, polled in place: the call
//! path's branches (a checked call or its refusal, a bounded attempt or a
//! bare one) without boxing either.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

pin_project_lite::pin_project! {
    /// A future that is one of two.
    #[project = EitherProjection]
    pub(crate) enum Either<L, R> {
        /// The first kind.
        Left { #[pin] future: L },
        /// The second kind.
        Right { #[pin] future: R },
    }
}

impl<L, R> Either<L, R> {
    pub(crate) fn left(future: L) -> Self {
        Either::Left { future }
    }

    pub(crate) fn right(future: R) -> Self {
        Either::Right { future }
    }
}

impl<L, R> Future for Either<L, R>
where
    L: Future,
    R: Future<Output = L::Output>,
{
    type Output = L::Output;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<L::Output> {
        match self.project() {
            EitherProjection::Left { future } => future.poll(cx),
            EitherProjection::Right { future } => future.poll(cx),
        }
    }
}

/// Whichever of `first` and `second` is ready first (`first` when both
/// are): `Ok` with `first`'s output, `Err` with `second`'s.
pub(crate) async fn race<A: Future, B: Future>(
    first: A,
    second: B,
) -> Result<A::Output, B::Output> {
    let mut first = std::pin::pin!(first);
    let mut second = std::pin::pin!(second);
    std::future::poll_fn(|cx| {
        if let Poll::Ready(output) = first.as_mut().poll(cx) {
            return Poll::Ready(Ok(output));
        }
        second.as_mut().poll(cx).map(Err)
    })
    .await
}
