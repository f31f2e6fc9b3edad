//! Drives a future on a `ManualTimer`: polls until it is stuck, then moves
//! the clock to the next deadline, and counts those steps. No test waits
//! on the wall clock.
#![allow(dead_code, reason = "each test binary uses a different part")]

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use tool_core::calls::ManualTimer;

/// What a driven future came to, and the clock steps it took.
pub struct Driven<T> {
    pub output: T,
    /// How many times the clock had to move.
    pub steps: u32,
    /// The clock when it was ready.
    pub at: Duration,
}

/// Polls `future` to the end, advancing `timer` whenever it waits.
/// Panics if it waits on something other than the timer.
pub fn drive<F: Future>(timer: &ManualTimer, future: F) -> Driven<F::Output> {
    drive_with(timer, future, |_| {})
}

/// Like [`drive`], calling `between(now)` each time the future waits,
/// before the clock moves: to cancel at a given time, say.
pub fn drive_with<F: Future>(
    timer: &ManualTimer,
    future: F,
    mut between: impl FnMut(Duration),
) -> Driven<F::Output> {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    let mut steps = 0;
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return Driven {
                output,
                steps,
                at: timer.now(),
            };
        }
        between(timer.now());
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return Driven {
                output,
                steps,
                at: timer.now(),
            };
        }
        timer
            .advance_to_next()
            .expect("the future waits, but not on the timer");
        steps += 1;
    }
}

pub fn secs(s: f64) -> Duration {
    Duration::from_secs_f64(s)
}
