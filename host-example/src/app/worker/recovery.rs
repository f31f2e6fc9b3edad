//! Recovering runs whose process stopped working on them (their lease ran
//! out): a run left `running` is marked `failed`, since a run cannot be
//! picked up in the middle of a round; a run left `resuming` before its
//! decision was recorded is given back (`suspended`), so its proposal can
//! be decided again; so is one left after its approval was recorded but
//! before its change was applied (no `applied` audit row, which the change
//! writes in its own transaction): the approval is taken back. One left
//! `resuming` after its change was applied (or after a rejection) is
//! marked `failed`, not resumed again, so that no change is applied twice;
//! a single call's run of one step left so has its caller's outcome
//! recorded from the audit trail (applied if its `applied` row is there).
//! Each is noted on the run and in the audit trail, by the host itself.

use tool_core::approval::Decision;
use tool_core::{ProposalId, RunId, ToolOutput};

use crate::app::{HostError, Jobs};
use crate::store::{ApplyAudited, CallOutcome, Recovery, RunPhase, now_ms};

/// The most runs recovered in one turn.
const MOST_PER_TURN: usize = 50;

const STOPPED_RUNNING: &str = "the host process working on this run stopped (its lease ran \
     out); a run cannot be picked up in the middle of a round, so it is marked failed";
const STOPPED_BEFORE_DECISION: &str = "the host process resuming this run stopped before \
     the decision was recorded (its lease ran out); the run waits again and its proposal can \
     be decided again";
const STOPPED_BEFORE_APPLYING: &str = "the host process resuming this run stopped after the \
     approval was recorded and before its change was applied (its lease ran out); the approval \
     is taken back, the run waits again and its proposal can be decided again";
const STOPPED_AFTER_DECISION: &str = "the host process resuming this run stopped after the \
     decision was recorded (its lease ran out); it is not resumed again, so that no change \
     is applied twice: the audit trail shows whether the change was applied";

const APPLIED_BEFORE_STOPPING: &str = "applied: the host process applying it stopped after \
     writing the change and before reporting it; the audit trail holds its `applied` row";

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

impl Jobs<'_> {
    /// Recovers every run whose process stopped working on it (its lease
    /// ran out), as the module says; a run whose lease is live is never
    /// touched. Returns what was recovered by this call (a run another
    /// process recovered first is not in it).
    pub async fn recover_abandoned(&self) -> Result<Vec<Recovered>, HostError> {
        let store = self.host.store();
        let mut recovered = Vec::new();
        for abandoned in store
            .run_log()
            .abandoned_runs(now_ms(), MOST_PER_TURN)
            .await?
        {
            let claim = match abandoned.status {
                RunPhase::Resuming => self.claim_of(&abandoned.run).await?,
                _ => Claim::None,
            };
            let (recovery, reason) = match (abandoned.status, &claim) {
                (RunPhase::Resuming, Claim::None) => (Recovery::Release, STOPPED_BEFORE_DECISION),
                (RunPhase::Resuming, Claim::Unapplied(_)) => {
                    (Recovery::Release, STOPPED_BEFORE_APPLYING)
                }
                (RunPhase::Resuming, Claim::Finished(_)) => {
                    (Recovery::Fail, STOPPED_AFTER_DECISION)
                }
                _ => (Recovery::Fail, STOPPED_RUNNING),
            };
            // A call's outcome first: it is true whatever happens next
            // (the audit trail says the change was applied, or failed), and
            // a process stopped right after the run's recovery would
            // otherwise leave its caller without it.
            if let Claim::Finished(Some(proposal)) = &claim {
                self.settle_call(&abandoned.run, proposal).await?;
            }
            let done = match &claim {
                Claim::Unapplied(proposal) => {
                    store
                        .run_log()
                        .release_claim(&abandoned, proposal, reason, "host", now_ms())
                        .await?
                }
                _ => {
                    store
                        .run_log()
                        .recover_run(&abandoned, recovery, reason, "host", now_ms())
                        .await?
                }
            };
            if done {
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

    /// How far the decision on the proposal `run` waits on got.
    async fn claim_of(&self, run: &RunId) -> Result<Claim, HostError> {
        let Some(state) = self
            .host
            .store()
            .run_log()
            .run(run)
            .await?
            .and_then(|run| run.state)
        else {
            return Ok(Claim::Finished(None));
        };
        let proposal = state.proposal().id();
        Ok(
            match self.host.store().decisions().decision(proposal).await? {
                None => Claim::None,
                Some(Decision::Approved { .. })
                    if self
                        .host
                        .store()
                        .run_log()
                        .apply_audited(run, proposal)
                        .await?
                        .is_none() =>
                {
                    Claim::Unapplied(proposal.clone())
                }
                Some(_) => Claim::Finished(Some(proposal.clone())),
            },
        )
    }

    /// The outcome a single call's caller reads, for the approved
    /// `proposal` of `run` whose process stopped after applying it (or
    /// failing to): the audit trail's `applied` or `failed` row says which.
    /// Nothing for an agent run, nor when the outcome was recorded before
    /// the process stopped (the first recorded stays).
    pub(crate) async fn settle_call(
        &self,
        run: &RunId,
        proposal: &ProposalId,
    ) -> Result<(), HostError> {
        let Some(caller) = self
            .host
            .store()
            .run_log()
            .run(run)
            .await?
            .filter(|run| run.is_single_call())
            .map(|run| run.user)
        else {
            return Ok(());
        };
        let approved = matches!(
            self.host.store().decisions().decision(proposal).await?,
            Some(Decision::Approved { .. })
        );
        // An outcome the process recorded before it stopped stays, and so
        // does the exposure it raised with it.
        if !approved
            || self
                .host
                .store()
                .decisions()
                .call_outcome(proposal)
                .await?
                .is_some()
        {
            return Ok(());
        }
        let outcome = match self
            .host
            .store()
            .run_log()
            .apply_audited(run, proposal)
            .await?
        {
            Some(ApplyAudited::Applied(_)) => {
                CallOutcome::Applied(ToolOutput::text(APPLIED_BEFORE_STOPPING))
            }
            Some(ApplyAudited::Failed(why)) => CallOutcome::Failed(why),
            None => return Ok(()),
        };
        if let (CallOutcome::Applied(_), Some(stored)) = (
            &outcome,
            self.host.store().decisions().proposal(proposal).await?,
        ) {
            // What the lost result carried is not known: counted as text
            // people wrote (fails closed), as the process that stopped may
            // not have raised the caller's exposure.
            let unknown = ToolOutput::text(APPLIED_BEFORE_STOPPING).with_authored();
            self.access
                .raise_by_applied_call(&caller, stored.proposal.tool(), &unknown, proposal.as_str())
                .await?;
        }
        self.host
            .store()
            .decisions()
            .record_call_outcome(proposal, &outcome)
            .await?;
        Ok(())
    }
}

/// How far the decision on a resuming run's proposal got.
enum Claim {
    /// Nothing recorded.
    None,
    /// Approved, and its change not applied (no `applied` row, which the
    /// change writes in its own transaction).
    Unapplied(ProposalId),
    /// Rejected, or approved and applied (or failed to apply); the
    /// proposal, when the run still held it.
    Finished(Option<ProposalId>),
}
