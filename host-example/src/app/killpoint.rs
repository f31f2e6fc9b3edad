//! Kill points: named places where a test that kills the host with
//! SIGKILL can stop it exactly (tests/kill/, docs/crash-safety.md).
//!
//! Compiled in debug builds only (the binary `cargo test` builds); in a
//! release build [`reached`] is empty and no environment is read. Three
//! variables drive it, read at each hit:
//!
//! - `HOST_KILL_POINT`: the point's name (`call`, `resume`, `claimed`,
//!   `applied`, `batch`); any other point passes untouched;
//! - `HOST_KILL_HIT`: which hit of it counts (1 when unset), so a test
//!   can stop at the third call of a run;
//! - `HOST_KILL_RUN_ON`: when set, the process announces the hit and goes
//!   on, so a test that kills after a delay lands anywhere after the point.
//!
//! At the counted hit the process writes `kill point NAME reached (hit N)`
//! on stderr and, unless told to run on, waits there for ever: the test
//! reads the line and kills it at that very place.

/// Every point's name, so a test and this module agree.
pub(crate) mod points {
    /// A tool call has run; its event, audit rows and proposal are not
    /// stored yet.
    pub const CALL: &str = "call";
    /// A run was taken to be resumed (`resuming`); nothing is decided.
    pub const RESUME: &str = "resume";
    /// The approval's decision is recorded; the change is not applied.
    pub const CLAIMED: &str = "claimed";
    /// The change is applied; the resumed run's event is not stored.
    pub const APPLIED: &str = "applied";
    /// A batch item's run id is kept; its run is not started.
    pub const BATCH: &str = "batch";
    /// A single call's approved change is applied and its run's events
    /// stored; its caller's outcome is not recorded.
    pub const OUTCOME: &str = "outcome";
}

#[cfg(debug_assertions)]
mod armed {
    use std::sync::atomic::{AtomicU64, Ordering};

    /// Hits of the named point so far in this process.
    static HITS: AtomicU64 = AtomicU64::new(0);

    pub(super) async fn reached(point: &str) {
        if std::env::var("HOST_KILL_POINT").ok().as_deref() != Some(point) {
            return;
        }
        let wanted = std::env::var("HOST_KILL_HIT")
            .ok()
            .and_then(|hit| hit.parse::<u64>().ok())
            .unwrap_or(1);
        let hit = HITS.fetch_add(1, Ordering::SeqCst) + 1;
        if hit != wanted {
            return;
        }
        eprintln!("kill point {point} reached (hit {hit})");
        if std::env::var_os("HOST_KILL_RUN_ON").is_none() {
            std::future::pending::<()>().await;
        }
    }
}

/// Kill point `point` (one of [`points`]): in a debug build, announces
/// itself and waits when the environment names it; nothing otherwise.
#[cfg(debug_assertions)]
pub(crate) async fn reached(point: &str) {
    armed::reached(point).await;
}

/// Kill point `point`: nothing in a release build.
#[cfg(not(debug_assertions))]
pub(crate) async fn reached(_point: &str) {}
