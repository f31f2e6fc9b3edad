//! Time without a runtime: the host hands tool-core a [`Timer`], and every
//! bound of a call (timeouts, the ceiling, retry backoff) waits on it.
//!
//! tool-core depends on no async runtime, so it cannot sleep by itself. A
//! host on tokio wraps `tokio::time::sleep`:
//!
//! ```
//! use std::time::Duration;
//! use tool_core::BoxFuture;
//! use tool_core::calls::Timer;
//!
//! /// Sleeps on the tokio runtime the host already runs.
//! struct TokioTimer;
//!
//! impl Timer for TokioTimer {
//!     fn sleep(&self, duration: Duration) -> BoxFuture<'static, ()> {
//!         Box::pin(tokio::time::sleep(duration))
//!     }
//! }
//!
//! let registry = tool_core::Registry::builder()
//!     .timer(TokioTimer)
//!     .default_timeout(Duration::from_secs(30))
//!     .build()
//!     .unwrap();
//! # drop(registry);
//! ```
//!
//! A host without a runtime uses [`ThreadTimer`] (one background thread);
//! tests use [`ManualTimer`], whose time moves only when the test says so.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use crate::BoxFuture;

/// Sleeps. The one thing tool-core needs of a runtime.
pub trait Timer: Send + Sync + 'static {
    /// A future that is ready once `duration` has passed. Dropping it
    /// cancels the sleep.
    fn sleep(&self, duration: Duration) -> BoxFuture<'static, ()>;
}

impl<T: Timer + ?Sized> Timer for Arc<T> {
    fn sleep(&self, duration: Duration) -> BoxFuture<'static, ()> {
        (**self).sleep(duration)
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Nothing here leaves the state half-updated across a panic.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A [`Timer`] on one background thread, for hosts without an async
/// runtime. The thread starts with the timer and ends when it is dropped.
/// A dropped sleep is forgotten at once, so a call that ends long before
/// its timeout leaves nothing behind.
pub struct ThreadTimer {
    shared: Arc<ThreadShared>,
}

struct ThreadShared {
    state: Mutex<ThreadState>,
    changed: Condvar,
}

struct ThreadState {
    /// Waiting sleeps, earliest first; the sequence number keeps equal
    /// deadlines apart.
    sleeps: BTreeMap<(Instant, u64), Arc<ThreadEntry>>,
    next: u64,
    closed: bool,
}

struct ThreadEntry {
    fired: AtomicBool,
    waker: Mutex<Option<Waker>>,
}

impl ThreadTimer {
    /// Starts the timer's thread.
    pub fn new() -> Self {
        let shared = Arc::new(ThreadShared {
            state: Mutex::new(ThreadState {
                sleeps: BTreeMap::new(),
                next: 0,
                closed: false,
            }),
            changed: Condvar::new(),
        });
        let worker = Arc::clone(&shared);
        std::thread::Builder::new()
            .name("tool-core-timer".into())
            .spawn(move || run_thread_timer(&worker))
            .expect("the operating system refused a thread for the timer");
        ThreadTimer { shared }
    }
}

impl Default for ThreadTimer {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for ThreadTimer {
    fn drop(&mut self) {
        lock(&self.shared.state).closed = true;
        self.shared.changed.notify_all();
    }
}

fn run_thread_timer(shared: &ThreadShared) {
    let mut state = lock(&shared.state);
    loop {
        if state.closed {
            return;
        }
        let now = Instant::now();
        while let Some(entry) = state.sleeps.first_entry() {
            if entry.key().0 > now {
                break;
            }
            let entry = entry.remove();
            entry.fired.store(true, Ordering::Release);
            if let Some(waker) = lock(&entry.waker).take() {
                waker.wake();
            }
        }
        state = match state.sleeps.keys().next() {
            Some((deadline, _)) => {
                let wait = deadline.saturating_duration_since(now);
                shared
                    .changed
                    .wait_timeout(state, wait)
                    .unwrap_or_else(PoisonError::into_inner)
                    .0
            }
            None => shared
                .changed
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner),
        };
    }
}

impl Timer for ThreadTimer {
    fn sleep(&self, duration: Duration) -> BoxFuture<'static, ()> {
        let entry = Arc::new(ThreadEntry {
            fired: AtomicBool::new(duration.is_zero()),
            waker: Mutex::new(None),
        });
        if duration.is_zero() {
            return Box::pin(ThreadSleep { entry, key: None });
        }
        let mut state = lock(&self.shared.state);
        let key = (Instant::now() + duration, state.next);
        state.next += 1;
        state.sleeps.insert(key, Arc::clone(&entry));
        // The thread waits for the earliest deadline: wake it only when
        // this one comes first.
        let earliest = state.sleeps.keys().next() == Some(&key);
        drop(state);
        if earliest {
            self.shared.changed.notify_all();
        }
        Box::pin(ThreadSleep {
            entry,
            key: Some((Arc::clone(&self.shared), key)),
        })
    }
}

struct ThreadSleep {
    entry: Arc<ThreadEntry>,
    key: Option<(Arc<ThreadShared>, (Instant, u64))>,
}

impl Future for ThreadSleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.entry.fired.load(Ordering::Acquire) {
            return Poll::Ready(());
        }
        *lock(&self.entry.waker) = Some(cx.waker().clone());
        // Fired between the check and storing the waker: nobody will wake us.
        if self.entry.fired.load(Ordering::Acquire) {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

impl Drop for ThreadSleep {
    fn drop(&mut self) {
        if let Some((shared, key)) = &self.key
            && !self.entry.fired.load(Ordering::Acquire)
        {
            lock(&shared.state).sleeps.remove(key);
        }
    }
}

/// A [`Timer`] whose time moves only when told: for tests, which then take
/// no wall-clock time and count timer steps instead of measuring.
///
/// Clones share one clock: give one to the registry, keep one to advance.
///
/// ```
/// use std::time::Duration;
/// use tool_core::calls::{ManualTimer, Timer};
///
/// let timer = ManualTimer::new();
/// let mut sleep = timer.sleep(Duration::from_secs(2));
/// let waker = std::task::Waker::noop();
/// let mut cx = std::task::Context::from_waker(&waker);
/// assert!(sleep.as_mut().poll(&mut cx).is_pending());
/// assert_eq!(timer.advance_to_next(), Some(Duration::from_secs(2)));
/// assert!(sleep.as_mut().poll(&mut cx).is_ready());
/// ```
#[derive(Clone, Default)]
pub struct ManualTimer {
    state: Arc<Mutex<ManualState>>,
}

#[derive(Default)]
struct ManualState {
    now: Duration,
    next: u64,
    /// Sleeps not yet over: deadline and the waker of their last poll.
    sleeps: BTreeMap<u64, (Duration, Option<Waker>)>,
}

impl ManualTimer {
    /// A clock at zero.
    pub fn new() -> Self {
        Self::default()
    }

    /// The time since the timer was made, as far as it was advanced.
    pub fn now(&self) -> Duration {
        lock(&self.state).now
    }

    /// How many sleeps are waiting.
    pub fn pending(&self) -> usize {
        lock(&self.state).sleeps.len()
    }

    /// Moves the clock forward by `by`, waking every sleep that is over.
    pub fn advance(&self, by: Duration) {
        let wakers = {
            let mut state = lock(&self.state);
            state.now += by;
            let now = state.now;
            state
                .sleeps
                .values_mut()
                .filter(|(deadline, _)| *deadline <= now)
                .filter_map(|(_, waker)| waker.take())
                .collect::<Vec<_>>()
        };
        wakers.into_iter().for_each(Waker::wake);
    }

    /// Moves the clock to the earliest waiting deadline and wakes what is
    /// over then; returns the new time, or `None` when nothing waits.
    pub fn advance_to_next(&self) -> Option<Duration> {
        let (now, next) = {
            let state = lock(&self.state);
            let next = state.sleeps.values().map(|(deadline, _)| *deadline).min()?;
            (state.now, next)
        };
        self.advance(next.saturating_sub(now));
        Some(self.now())
    }
}

impl Timer for ManualTimer {
    fn sleep(&self, duration: Duration) -> BoxFuture<'static, ()> {
        let mut state = lock(&self.state);
        let id = state.next;
        state.next += 1;
        let deadline = state.now + duration;
        state.sleeps.insert(id, (deadline, None));
        Box::pin(ManualSleep {
            state: Arc::clone(&self.state),
            id,
            deadline,
        })
    }
}

struct ManualSleep {
    state: Arc<Mutex<ManualState>>,
    id: u64,
    deadline: Duration,
}

impl Future for ManualSleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut state = lock(&self.state);
        if state.now >= self.deadline {
            state.sleeps.remove(&self.id);
            return Poll::Ready(());
        }
        if let Some((_, waker)) = state.sleeps.get_mut(&self.id) {
            *waker = Some(cx.waker().clone());
        }
        Poll::Pending
    }
}

impl Drop for ManualSleep {
    fn drop(&mut self) {
        lock(&self.state).sleeps.remove(&self.id);
    }
}
