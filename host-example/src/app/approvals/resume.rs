//! Resuming a run once its proposal is decided: the run taken from
//! whoever else may resume it (or their decision awaited), the approval
//! path's claim watched, and the model asked only once this process
//! recorded the decision.

use std::collections::BTreeSet;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tool_core::agent::{
    Agent, CallResult, Event, EventSink, Model, ModelError, ModelRequest, ModelResponse,
};
use tool_core::approval::{ApprovalStore, ClaimError, Decision};
use tool_core::export::Provider;
use tool_core::gates::{Denial, Gate};
use tool_core::{Actor, BoxFuture, Proposal, ProposalId, RunId};

use super::{Applied, Decided, Recorded, TAKEN_WAIT, Verdict};

use crate::app::killpoint::{self, points};
use crate::app::recorder::{EventLog, Recorder};
use crate::app::runs::RunReport;
use crate::app::{Approvals, HostError};
use crate::model::OpenAiClient;
use crate::store::{CallOutcome, RunPhase, SqlApprovals};

impl Approvals<'_> {
    /// Takes the run to resume it; if another process took it first,
    /// waits for its decision (or for it to give the run back).
    pub(super) async fn take(&self, run: &RunId, proposal: &ProposalId) -> Result<(), HostError> {
        let started = Instant::now();
        loop {
            let lease = self.jobs.lease().await?;
            if self
                .host
                .store()
                .run_log()
                .take_suspended_run(run, lease)
                .await?
            {
                return Ok(());
            }
            if let Some(decided) = self.host.store().decisions().decision(proposal).await? {
                return Err(HostError::AlreadyDecided(decided));
            }
            let status = self
                .host
                .store()
                .run_log()
                .run(run)
                .await?
                .map(|run| run.status);
            // `suspended` again: given back by a process whose approval
            // was refused; take it on the next turn.
            let waiting = status.is_some_and(RunPhase::awaits_decision);
            if !waiting || started.elapsed() > TAKEN_WAIT {
                // The process that took it may have decided and finished
                // between the two reads above: that is "already decided".
                if let Some(decided) = self.host.store().decisions().decision(proposal).await? {
                    return Err(HostError::AlreadyDecided(decided));
                }
                return Err(HostError::NotWaiting {
                    run: run.0.clone(),
                    status: status.map_or_else(|| "gone".to_owned(), |s| s.to_string()),
                });
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    pub(super) async fn resume_taken(
        &self,
        run: &RunId,
        proposal: &Proposal,
        approver: Actor,
        verdict: Verdict,
        watch: &mut (dyn EventSink + Send),
    ) -> Result<Recorded, HostError> {
        let stored = self.runs.stored(run).await?;
        let not_waiting = || HostError::NotWaiting {
            run: run.0.clone(),
            status: stored.status.to_string(),
        };
        let state = stored.state.clone().ok_or_else(not_waiting)?;
        if state.proposal().id() != proposal.id() {
            return Err(not_waiting());
        }
        let single_call = stored.is_single_call();
        let (request, setup) = self.runs.setup_of(&stored).await?;
        // A skill changed while the run waited takes its tools away now.
        for note in &setup.notes {
            self.host
                .store()
                .run_log()
                .record_run_note(run, note)
                .await?;
        }
        // A single call's run of one step asks no model: its caller asked
        // for one call, answered once the decision is applied.
        let client = match single_call {
            true => None,
            false => Some(self.runs.model_named(request.model.as_deref()).await?),
        };
        let approvals = WatchedApprovals {
            inner: self.host.store().decisions().approvals(),
            outcome: Mutex::new(None),
        };
        let model = UntilClaimed {
            client: client.as_ref(),
            approvals: &approvals,
        };
        let agent = match &client {
            Some(client) => {
                let allowance = self
                    .admin
                    .allowance(&stored.user, Some(run), client.config(), 0)
                    .await?;
                request
                    .agent(self.host.registry(), &model)
                    .context_window(client.config().window())
                    .skill_bytes(setup.skill_bytes())
                    .budget(request.budget(allowance))
            }
            None => Agent::new(self.host.registry(), &model),
        }
        .mark_results(setup.mark_results);
        let log = EventLog::new(self.host.store().clone(), run.clone(), stored.user.clone())
            .resuming(proposal.clone());
        let approver_id = approver.id.clone();
        let applying = log.applying_rows(proposal.tool(), &approver);
        let cx = self.runs.applying_context(run, &setup.actor, applying);

        let mut applied = None;
        let mut resumed = false;
        let mut capture = |event: &Event| {
            match event {
                Event::Resumed { .. } => resumed = true,
                Event::ToolExecuted { result, .. } if resumed && applied.is_none() => {
                    applied = Some(match result {
                        CallResult::Output { output } => Ok(output.clone()),
                        CallResult::Error { detail, .. } => Err(detail.clone()),
                        CallResult::Proposed { .. } => Err("proposed again".to_owned()),
                    });
                }
                _ => {}
            }
            watch.event(event);
        };
        let claimed = || approvals.claimed();
        let mut recorder = Recorder::new(log, &mut capture).hold_until(&claimed);
        let is_approval = verdict.is_approval();
        let (decision, edit) = match verdict {
            Verdict::Approve => (Decision::Approved { approver }, None),
            Verdict::ApproveEdited(arguments) => (Decision::Approved { approver }, Some(arguments)),
            Verdict::Reject(reason) => (Decision::Rejected { approver, reason }, None),
            Verdict::Expire => (Decision::Expired, None),
        };
        let end = match edit {
            None => {
                agent
                    .resume(
                        state,
                        decision.clone(),
                        setup.inputs(),
                        &approvals,
                        &cx,
                        &mut recorder,
                    )
                    .await
            }
            Some(arguments) => {
                agent
                    .resume_edited(
                        state,
                        decision
                            .approver()
                            .cloned()
                            .unwrap_or_else(|| setup.actor.clone()),
                        arguments,
                        setup.inputs(),
                        &approvals,
                        &cx,
                        &mut recorder,
                    )
                    .await
            }
        };
        let (held, written) = recorder.finish().await;
        if !approvals.claimed() {
            let outcome = approvals.outcome.lock().map(|o| o.clone()).ok().flatten();
            return match outcome {
                Some(Err(ClaimError::AlreadyDecided(decided))) => {
                    Err(HostError::AlreadyDecided(decided.decision))
                }
                Some(Err(error)) => Err(HostError::Decision(error.to_string())),
                _ if is_approval
                    && self
                        .host
                        .store()
                        .decisions()
                        .approvals_of(proposal.id())
                        .await?
                        .contains(&approver_id) =>
                {
                    // The first approval of two, recorded: the run waits
                    // for the second.
                    let (waiting, _) = refusal(&held);
                    self.audit_first_approval(run, proposal, &approver_id, &waiting)
                        .await?;
                    Ok(Recorded::Waiting(waiting))
                }
                _ => {
                    let (reason, gate) = refusal(&held);
                    self.audit_refusal(run, proposal, &decision, &reason, gate)
                        .await?;
                    Err(HostError::Refused(reason))
                }
            };
        }
        if let Some(client) = &client {
            self.admin.record_cost(run, client.config(), &end).await?;
        }
        let applied = applied.filter(|_| is_approval);
        if single_call && let Some(applied) = &applied {
            // Before the run is concluded: a process stopped in between
            // leaves the run `resuming`, and recovery records the outcome
            // from the audit trail.
            killpoint::reached(points::OUTCOME).await;
            // The caller's exposure first: a rise whose outcome is then not
            // recorded only makes their next calls more restricted.
            if let Ok(output) = applied {
                self.access
                    .raise_by_applied_call(
                        &stored.user,
                        proposal.tool(),
                        output,
                        proposal.id().as_str(),
                    )
                    .await?;
            }
            let outcome = match applied {
                Ok(output) => CallOutcome::Applied(output.clone()),
                Err(why) => CallOutcome::Failed(why.clone()),
            };
            self.host
                .store()
                .decisions()
                .record_call_outcome(proposal.id(), &outcome)
                .await?;
        }
        let ended = self.runs.conclude(run, end).await?;
        written?;
        Ok(Recorded::Decided(Decided {
            decision,
            applied: applied.map(|applied| match applied {
                Ok(output) => Applied::Written(output.to_model_text()),
                Err(why) => Applied::NotApplied { why },
            }),
            // A single call's run answers its caller, through its task:
            // no run goes on for the approver to follow.
            report: (!single_call).then(|| RunReport {
                run: run.clone(),
                ended,
            }),
        }))
    }
}

/// The durable store, remembering how its claim went.
struct WatchedApprovals {
    inner: SqlApprovals,
    outcome: Mutex<Option<Result<(), ClaimError>>>,
}

impl WatchedApprovals {
    /// Whether this process recorded the decision.
    fn claimed(&self) -> bool {
        self.outcome
            .lock()
            .is_ok_and(|outcome| matches!(*outcome, Some(Ok(()))))
    }
}

impl ApprovalStore for WatchedApprovals {
    fn claim<'a>(
        &'a self,
        id: &'a ProposalId,
        decision: &'a Decision,
    ) -> BoxFuture<'a, Result<(), ClaimError>> {
        Box::pin(async move {
            let outcome = self.inner.claim(id, decision).await;
            if outcome.is_ok() {
                killpoint::reached(points::CLAIMED).await;
            }
            if let Ok(mut slot) = self.outcome.lock() {
                *slot = Some(outcome.clone());
            }
            outcome
        })
    }

    fn second<'a>(
        &'a self,
        id: &'a ProposalId,
        approver: &'a Actor,
    ) -> BoxFuture<'a, Result<BTreeSet<String>, ClaimError>> {
        self.inner.second(id, approver)
    }
}

/// The model, asked only once this process recorded the decision: a run
/// whose approval was refused, or decided elsewhere, goes no further.
///
/// With no client, the run is a single call's run of one step: asked
/// after its call is answered, it answers nothing and the run ends.
struct UntilClaimed<'a> {
    client: Option<&'a OpenAiClient>,
    approvals: &'a WatchedApprovals,
}

impl Model for UntilClaimed<'_> {
    fn provider(&self) -> Provider {
        self.client.map_or(Provider::Mcp, OpenAiClient::provider)
    }

    async fn complete(&self, request: ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
        if !self.approvals.claimed() {
            return Err(ModelError::Refused {
                message: "the decision was not recorded; the run is not continued".into(),
            });
        }
        match self.client {
            Some(client) => client.complete(request).await,
            None => Ok(ModelResponse::default()),
        }
    }
}

/// Why the held-back resumption was refused: the applied call's error,
/// and the gate that said no, if one did.
fn refusal(held: &[Event]) -> (String, Option<Gate>) {
    held.iter()
        .find_map(|event| match event {
            Event::ToolExecuted {
                result: CallResult::Error { detail, denial, .. },
                ..
            } => Some((detail.clone(), denial.as_ref().map(Denial::gate))),
            _ => None,
        })
        .unwrap_or_else(|| ("the decision was not recorded".to_owned(), None))
}
