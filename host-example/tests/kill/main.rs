//! Crash safety, tested by killing the process: the real binary, stopped
//! with SIGKILL at a named kill point (`src/app/killpoint.rs`, compiled in
//! debug builds only), then started again on the same database, which must
//! hold every invariant of docs/crash-safety.md.
//!
//! Each kill point is killed 20 times on one database per backend, each
//! time with a different timing: once exactly at the point (the process
//! waits there), then after a delay that grows by 1.5 ms each time while the
//! process runs on, so the kills land at different places after it.

#[path = "../store/backends.rs"]
mod backends;
mod batches;
mod checks;
mod harness;
mod model;
mod single_calls;

use batches::killed_during_a_batch;
use harness::{Killed, Target};

/// How many times each kill point is killed on each backend.
const KILLS: usize = 20;

/// Runs `scenario` against a fresh SQLite file and, when the server is
/// configured, a fresh PostgreSQL database.
macro_rules! both {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[test]
                fn $name() {
                    super::$name(&super::Target::sqlite());
                }
            )*
        }
        mod postgres {
            $(
                #[test]
                fn $name() {
                    if let Some(target) = super::Target::postgres() {
                        super::$name(&target);
                    }
                }
            )*
        }
    };
}

both!(
    killed_inside_a_call,
    killed_during_a_resume,
    killed_between_claiming_and_applying,
    killed_between_applying_and_recording,
    killed_during_a_batch,
    call_killed_between_claiming_and_applying,
    call_killed_between_applying_and_recording,
    call_killed_before_its_outcome,
    two_deciders_of_a_call_at_once,
);

/// A single MCP call's proposal, its approval killed once the decision is
/// recorded: the same path, the same point as an agent run's.
fn call_killed_between_claiming_and_applying(target: &Target) {
    single_calls::approvals_killed_at(target, "claimed", KILLS);
}

/// A single MCP call's proposal, its approval killed once the change is
/// written and before the run's event is.
fn call_killed_between_applying_and_recording(target: &Target) {
    single_calls::approvals_killed_at(target, "applied", KILLS);
}

/// A single MCP call's proposal, its approval killed before the caller's
/// outcome is recorded.
fn call_killed_before_its_outcome(target: &Target) {
    single_calls::approvals_killed_at(target, "outcome", KILLS);
}

/// Two processes deciding one call's proposal at once, twenty times.
fn two_deciders_of_a_call_at_once(target: &Target) {
    single_calls::two_deciders_at_once(target);
}

/// Kill point `call`: the proposing call ran, its rows are not stored.
/// Every run killed so is left `running`, and recovered as `failed`.
fn killed_inside_a_call(target: &Target) {
    for kill in 0..KILLS {
        let title = format!("T-call-{kill}");
        let killed = target.kill_at(&target.run_args(&title), "call", kill);
        checks::after_restart(target, &killed);
    }
    recovered(target, "call");
}

/// Kill point `resume`: the run is taken (`resuming`), nothing decided.
fn killed_during_a_resume(target: &Target) {
    approvals_killed_at(target, "resume");
}

/// Kill point `claimed`: the approval is recorded, the change not applied.
fn killed_between_claiming_and_applying(target: &Target) {
    approvals_killed_at(target, "claimed");
}

/// Kill point `applied`: the change is written, the run's event is not.
fn killed_between_applying_and_recording(target: &Target) {
    approvals_killed_at(target, "applied");
}

/// A run suspended on its proposal, then its approval killed at `point`,
/// [`KILLS`] times.
fn approvals_killed_at(target: &Target, point: &str) {
    for kill in 0..KILLS {
        let title = format!("T-{point}-{kill}");
        let proposal = target.suspended_run(&title);
        let approve = ["approvals", "approve", &proposal, "--user", "ops"];
        let killed: Killed = target.kill_at(&approve, point, kill);
        checks::after_restart(target, &killed);
    }
    recovered(target, point);
}

/// What the kills left, recovered by a host started on the database: no
/// run left `running` or `resuming`, each failed one with its reason,
/// every approval finished (its change applied) or released and decided
/// again, once; and every invariant still holds.
fn recovered(target: &Target, point: &str) {
    target.recover();
    checks::recovered(target, point);
    // Each decided again; one made stale by another's change is refused
    // by the tool (nothing written), which decides it too.
    for proposal in checks::pending(target) {
        let _ = target
            .command(&["approvals", "approve", &proposal, "--user", "ops"])
            .output()
            .unwrap();
    }
    let after = Killed {
        point: format!("{point}, after recovery and deciding again"),
        kill: KILLS,
        by_signal: false,
    };
    checks::after_restart(target, &after);
    checks::none_pending(target, point);
}
