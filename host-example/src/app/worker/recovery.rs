//! Recovering runs whose process stopped working on them (their lease ran
//! out): a run left `running` is marked `failed`, since a run cannot be
//! picked up in the middle of a round; a run left `resuming` before its
//! decision was recorded is given back (`suspended`), so its proposal can
//! be decided again; one left `resuming` after its decision was recorded is
//! marked `failed`, not resumed again, so that no change is applied twice
//! (the audit trail says whether it was applied). Each is noted on the run
//! and in the audit trail, by the host itself.

use tool_core::RunId;

use crate::app::{Host, HostError};
use crate::store::{Recovery, RunPhase, now_ms};

/// The most runs recovered in one turn.
const MOST_PER_TURN: usize = 50;

const STOPPED_RUNNING: &str = "the host process working on this run stopped (its lease ran \
     out); a run cannot be picked up in the middle of a round, so it is marked failed";
const STOPPED_BEFORE_DECISION: &str = "the host process resuming this run stopped before \
     the decision was recorded (its lease ran out); the run waits again and its proposal can \
     be decided again";
const STOPPED_AFTER_DECISION: &str = "the host process resuming this run stopped after the \
     decision was recorded (its lease ran out); it is not resumed again, so that no change \
     is applied twice: the audit trail shows whether the change was applied";

/// A run recovered, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recovered {
    /// The run.
    pub run: RunId,
    /// Given back (`suspended`) or `failed`.
    pub recovery: Recovery,
    /// Why, as noted on the run.
    pub reason: &'static str,
}

impl Host {
    /// Recovers every run whose process stopped working on it (its lease
    /// ran out), as the module says; a run whose lease is live is never
    /// touched. Returns what was recovered by this call (a run another
    /// process recovered first is not in it).
    pub async fn recover_abandoned(&self) -> Result<Vec<Recovered>, HostError> {
        let store = self.store();
        let mut recovered = Vec::new();
        for abandoned in store.abandoned_runs(now_ms(), MOST_PER_TURN).await? {
            let (recovery, reason) = match abandoned.status {
                RunPhase::Resuming if !self.decided(&abandoned.run).await? => {
                    (Recovery::Release, STOPPED_BEFORE_DECISION)
                }
                RunPhase::Resuming => (Recovery::Fail, STOPPED_AFTER_DECISION),
                _ => (Recovery::Fail, STOPPED_RUNNING),
            };
            if store
                .recover_run(&abandoned, recovery, reason, "host", now_ms())
                .await?
            {
                tracing::warn!(run = %abandoned.run.0, ?recovery, "recovered an abandoned run");
                recovered.push(Recovered {
                    run: abandoned.run,
                    recovery,
                    reason,
                });
            }
        }
        Ok(recovered)
    }

    /// Whether the proposal `run` waits on has a decision recorded.
    async fn decided(&self, run: &RunId) -> Result<bool, HostError> {
        let state = self.store().run(run).await?.and_then(|run| run.state);
        match state {
            Some(state) => Ok(self
                .store()
                .decision(state.proposal().id())
                .await?
                .is_some()),
            None => Ok(true),
        }
    }
}
