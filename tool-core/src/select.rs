//! The first of two futures to finish, the other handed back unfinished:
//! what the retry backoff races against the cancel token. A few lines of
//! std instead of `futures-util`, which only the agent loop needs
//! (feature `agent`).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Which of the two futures finished first, with its output and the other.
pub(crate) enum Either<A, B> {
    Left(A),
    Right(B),
}

/// Polls `a`, then `b`, until one is ready; `a` wins a tie.
pub(crate) fn select<A: Future + Unpin, B: Future + Unpin>(a: A, b: B) -> Select<A, B> {
    Select {
        inner: Some((a, b)),
    }
}

/// The future of [`select`].
pub(crate) struct Select<A, B> {
    inner: Option<(A, B)>,
}

impl<A: Future + Unpin, B: Future + Unpin> Future for Select<A, B> {
    type Output = Either<(A::Output, B), (B::Output, A)>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let Some((mut a, mut b)) = self.inner.take() else {
            panic!("`Select` polled after it finished");
        };
        if let Poll::Ready(out) = Pin::new(&mut a).poll(cx) {
            return Poll::Ready(Either::Left((out, b)));
        }
        if let Poll::Ready(out) = Pin::new(&mut b).poll(cx) {
            return Poll::Ready(Either::Right((out, a)));
        }
        self.inner = Some((a, b));
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use std::future::{Future, pending, ready};
    use std::pin::pin;
    use std::task::{Context, Poll, Waker};

    use super::{Either, select};

    fn poll_once<F: Future>(future: F) -> Poll<F::Output> {
        pin!(future).poll(&mut Context::from_waker(Waker::noop()))
    }

    #[test]
    fn the_ready_one_wins_and_the_other_comes_back() {
        let Poll::Ready(Either::Right((1, _))) = poll_once(select(pending::<u8>(), ready(1)))
        else {
            panic!("the ready right side should win");
        };
        let Poll::Ready(Either::Left(("a", _))) = poll_once(select(ready("a"), pending::<()>()))
        else {
            panic!("the ready left side should win");
        };
    }

    #[test]
    fn a_tie_goes_to_the_left() {
        assert!(matches!(
            poll_once(select(ready(1), ready(2))),
            Poll::Ready(Either::Left((1, _)))
        ));
    }

    #[test]
    fn neither_ready_is_pending() {
        assert!(poll_once(select(pending::<()>(), pending::<()>())).is_pending());
    }
}
