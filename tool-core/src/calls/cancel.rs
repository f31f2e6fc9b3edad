//! Stopping a run or a call from outside: a person pressing stop, a client
//! disconnecting.

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};

static NEXT_WAITER: AtomicU64 = AtomicU64::new(0);

/// A flag the host sets to stop a run or a call, and the tools and the
/// call path watch. Runtime-agnostic: an atomic flag and the wakers of
/// whoever awaits it.
///
/// Clones are one token. A [`child`](Self::child) is cancelled with its
/// parent, and can be cancelled alone: give a run the parent and one call
/// a child to stop only that call.
///
/// ```
/// use tool_core::calls::CancelToken;
///
/// let run = CancelToken::new();
/// let call = run.child();
/// call.cancel();
/// assert!(call.is_cancelled() && !run.is_cancelled());
/// let other = run.child();
/// run.cancel();
/// assert!(other.is_cancelled());
/// ```
#[derive(Clone, Default)]
pub struct CancelToken {
    node: Arc<Node>,
}

#[derive(Default)]
struct Node {
    cancelled: AtomicBool,
    waiters: Mutex<BTreeMap<u64, Waker>>,
    parent: Option<CancelToken>,
}

impl CancelToken {
    /// A token not cancelled.
    pub fn new() -> Self {
        Self::default()
    }

    /// A token cancelled when this one is, or by itself.
    pub fn child(&self) -> CancelToken {
        CancelToken {
            node: Arc::new(Node {
                parent: Some(self.clone()),
                ..Node::default()
            }),
        }
    }

    /// Cancels: every waiter wakes, every later check sees it. Idempotent.
    pub fn cancel(&self) {
        self.node.cancelled.store(true, Ordering::Release);
        let waiters = std::mem::take(
            &mut *self
                .node
                .waiters
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        );
        waiters.into_values().for_each(Waker::wake);
    }

    /// Whether this token or an ancestor was cancelled.
    pub fn is_cancelled(&self) -> bool {
        let mut token = Some(self);
        while let Some(t) = token {
            if t.node.cancelled.load(Ordering::Acquire) {
                return true;
            }
            token = t.node.parent.as_ref();
        }
        false
    }

    /// A future ready once the token is cancelled.
    pub fn cancelled(&self) -> Cancelled {
        Cancelled {
            token: self.clone(),
            // One counter for every token, so a waiter's id is unique along
            // the chain of parents it registers with.
            id: NEXT_WAITER.fetch_add(1, Ordering::Relaxed),
            registered: false,
        }
    }

    fn register(&self, id: u64, waker: &Waker) {
        let mut token = Some(self);
        while let Some(t) = token {
            let mut waiters = t
                .node
                .waiters
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            match waiters.get_mut(&id) {
                Some(old) if old.will_wake(waker) => {}
                _ => {
                    waiters.insert(id, waker.clone());
                }
            }
            token = t.node.parent.as_ref();
        }
    }

    fn unregister(&self, id: u64) {
        let mut token = Some(self);
        while let Some(t) = token {
            t.node
                .waiters
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&id);
            token = t.node.parent.as_ref();
        }
    }
}

impl fmt::Debug for CancelToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CancelToken")
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}

/// The future of [`CancelToken::cancelled`].
#[must_use = "futures do nothing unless awaited"]
pub struct Cancelled {
    token: CancelToken,
    id: u64,
    registered: bool,
}

impl Future for Cancelled {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.token.is_cancelled() {
            return Poll::Ready(());
        }
        self.token.register(self.id, cx.waker());
        self.registered = true;
        // Cancelled between the check and the registration.
        if self.token.is_cancelled() {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

impl Drop for Cancelled {
    fn drop(&mut self) {
        if self.registered {
            self.token.unregister(self.id);
        }
    }
}
