//! Deciding proposals, independent of how it is asked: list and show them,
//! approve or reject one, then resume its run to its end (or its next
//! proposal).
//!
//! A decision is durable and made once across every process sharing the
//! database: the run is first taken (`suspended` → `resuming`, a
//! compare-and-set, so one process resumes it), then
//! [`Agent::resume`](tool_core::agent::Agent::resume) re-gates the approver and the run's grant (stored ∩
//! now, with the run's user and the settings as they are now) and claims
//! the decision in [`SqlApprovals`]. Until the
//! claim is recorded, the resumed run's events are held back and the model
//! is not asked; if the gates refuse the approval, or someone decided
//! first, they are dropped and the run is given back, still waiting.

mod expiry;
pub mod inbox;
mod outcome;
pub mod standing;

use std::collections::BTreeSet;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::Value;
use tool_core::agent::{
    Agent, CallResult, Event, EventSink, Model, ModelError, ModelRequest, ModelResponse, RunState,
};
use tool_core::approval::{ApprovalError, ApprovalStore, ClaimError, Decision};
use tool_core::export::Provider;
use tool_core::exposure::Exposure;
use tool_core::gates::{Denial, Gate, Required};
use tool_core::{Actor, BoxFuture, Proposal, ProposalId, RunId};

pub use outcome::{Applied, Decided, EXPIRED_BEFORE_APPROVAL, NOT_APPLIED, Recorded};

use crate::app::killpoint::{self, points};
use crate::app::recorder::{EventLog, Recorder};
use crate::app::runs::RunReport;
use crate::app::webhooks::events;
use crate::app::{Approvals, HostError};
use crate::model::OpenAiClient;
use crate::store::{
    ApplyAudited, AuditEntry, AuditKind, CallOutcome, RunPhase, RunRequest, SqlApprovals,
    StoredProposal,
};

/// How long a process waits for another one that took the run first to
/// record its decision.
const TAKEN_WAIT: Duration = Duration::from_secs(10);

/// A proposal with who asked for it.
#[derive(Debug, Clone, PartialEq)]
pub struct ProposalView {
    /// The proposal, its run and status.
    pub stored: StoredProposal,
    /// The run's user.
    pub requester: String,
    /// The decision, once made.
    pub decision: Option<Decision>,
    /// While undecided, what its tool's approval policy still needs when
    /// it needs two approvers: `1 of 2 approvals: approved by ops; waiting
    /// for another administrator`.
    pub still_needs: Option<String>,
    /// Why it is held for an approver other than its requester, and what
    /// its run had read (gate 9), when it is: [`held_words`].
    pub held: Option<String>,
    /// Approved, and nothing was written: why ([`Applied::NotApplied`]).
    pub not_applied: Option<String>,
}

/// Why a proposal made after untrusted content entered its run is held
/// for an approver other than its requester, with the classes of data and
/// content the run had read: the same words at every door.
pub fn held_words(proposal: &Proposal, read: Option<&Exposure>) -> Option<String> {
    let by = proposal.exposure_hold()?;
    let read = read.map_or_else(String::new, |read| format!("; the run read {read}"));
    Some(format!(
        "held for an approver other than its requester: it was proposed after untrusted content entered the run through {by}{read}"
    ))
}

impl Approvals<'_> {
    /// The proposals waiting for a decision that `viewer` may decide (an
    /// administrator: all), oldest first: the inbox's rule.
    pub async fn pending_proposals(&self, viewer: &str) -> Result<Vec<ProposalView>, HostError> {
        let viewer = self.host.actor(viewer).await?;
        let mut views = Vec::new();
        for stored in self.host.store().decisions().pending_proposals().await? {
            if viewer.admin || self.may_decide(&stored, &viewer).await? {
                views.push(self.view(stored).await?);
            }
        }
        Ok(views)
    }

    /// One proposal, whatever its status, for `viewer`: an administrator,
    /// the person who asked for it, or one who may decide it. Anyone else
    /// is told there is no such proposal, as for a missing one.
    pub async fn proposal_for(&self, viewer: &str, id: &str) -> Result<ProposalView, HostError> {
        let viewer = self.host.actor(viewer).await?;
        let view = self.proposal(id).await?;
        if viewer.admin
            || view.requester == viewer.id
            || self.may_decide(&view.stored, &viewer).await?
        {
            Ok(view)
        } else {
            Err(HostError::UnknownProposal(id.to_owned()))
        }
    }

    /// One proposal, whatever its status.
    pub(crate) async fn proposal(&self, id: &str) -> Result<ProposalView, HostError> {
        let stored = self
            .host
            .store()
            .decisions()
            .proposal(&ProposalId::new(id))
            .await?
            .ok_or_else(|| HostError::UnknownProposal(id.to_owned()))?;
        self.view(stored).await
    }

    async fn view(&self, stored: StoredProposal) -> Result<ProposalView, HostError> {
        let run = self.host.store().run_log().run(&stored.run).await?;
        let decision = self
            .host
            .store()
            .decisions()
            .decision(stored.proposal.id())
            .await?;
        let still_needs = match decision {
            Some(_) => None,
            None => self.still_needs(&stored.proposal).await?,
        };
        let read = run.as_ref().and_then(|run| run.state.as_ref());
        let held = held_words(&stored.proposal, read.map(RunState::exposure));
        let not_applied = self.not_applied(&stored, decision.as_ref()).await?;
        Ok(ProposalView {
            requester: run.map_or_else(|| "?".to_owned(), |run| run.user),
            stored,
            decision,
            still_needs,
            held,
            not_applied,
        })
    }

    /// Why the approved `stored` wrote nothing, as the audit trail says
    /// (its `failed` row); `None` when written, or not approved.
    pub(crate) async fn not_applied(
        &self,
        stored: &StoredProposal,
        decision: Option<&Decision>,
    ) -> Result<Option<String>, HostError> {
        if !matches!(decision, Some(Decision::Approved { .. })) {
            return Ok(None);
        }
        let audited = self
            .host
            .store()
            .run_log()
            .apply_audited(&stored.run, stored.proposal.id())
            .await?;
        Ok(match audited {
            Some(ApplyAudited::Failed(why)) => Some(why),
            _ => None,
        })
    }

    /// What an undecided `proposal` still needs under its tool's approval
    /// policy now, when that policy needs two approvers.
    async fn still_needs(&self, proposal: &Proposal) -> Result<Option<String>, HostError> {
        let policy = self.policy_of(proposal).await?;
        if policy.required == Required::One {
            return Ok(None);
        }
        let approved_by = self
            .host
            .store()
            .decisions()
            .approvals_of(proposal.id())
            .await?;
        let waiting = ApprovalError::Waiting {
            approved_by,
            required: policy.required,
            next: policy.next_approver(),
        };
        Ok(Some(waiting.to_string()))
    }

    /// Approves proposal `id` as `approver` and resumes its run.
    ///
    /// # Errors
    ///
    /// [`HostError::AlreadyDecided`] when it was decided (here or in
    /// another process), [`HostError::Refused`] when the gates refuse the
    /// approver or the run may no longer make the change (nothing is
    /// decided: it stays pending).
    pub async fn approve(
        &self,
        id: &str,
        approver: &str,
        watch: &mut (dyn EventSink + Send),
    ) -> Result<Recorded, HostError> {
        self.decide(id, approver, Verdict::Approve, watch).await
    }

    /// Rejects proposal `id` as `approver`, with `reason` for the model,
    /// and resumes its run. A rejection needs a reason
    /// ([`HostError::ReasonRequired`]).
    pub async fn reject(
        &self,
        id: &str,
        approver: &str,
        reason: &str,
        watch: &mut (dyn EventSink + Send),
    ) -> Result<Recorded, HostError> {
        self.decide(
            id,
            approver,
            Verdict::Reject(reason.trim().to_owned()),
            watch,
        )
        .await
    }

    /// Decides proposal `id` as `approver` and resumes its run.
    ///
    /// A rejection is a decision too: only an approver who
    /// [may decide](Host::may_decide) the proposal may reject it, or
    /// [`HostError::MayNotDecide`] (an approval is re-gated on its own
    /// path). An edit is checked by the
    /// tool again as the approval is recorded, whatever
    /// [`Host::preview_edit`] showed.
    ///
    /// When the run goes on to a proposal a standing approval in force
    /// covers, that one is approved too, as the standing approval's
    /// approver, and so on ([`standing`]); what the last decision came to.
    pub async fn decide(
        &self,
        id: &str,
        approver: &str,
        verdict: Verdict,
        watch: &mut (dyn EventSink + Send),
    ) -> Result<Recorded, HostError> {
        if verdict == Verdict::Expire {
            return Err(HostError::MayNotDecide);
        }
        match self.decide_once(id, approver, verdict, watch).await? {
            Recorded::Decided(decided) => Ok(Recorded::Decided(
                self.follow_standing(decided, watch).await?,
            )),
            waiting => Ok(waiting),
        }
    }

    /// [`Host::decide`] without following standing approvals; a decision
    /// recorded is sent to the webhooks subscribed to it.
    async fn decide_once(
        &self,
        id: &str,
        approver: &str,
        verdict: Verdict,
        watch: &mut (dyn EventSink + Send),
    ) -> Result<Recorded, HostError> {
        let undecided = self.proposal(id).await?.decision.is_none();
        let decided = self.decide_unnotified(id, approver, verdict, watch).await;
        // An approval that finds the proposal expired records the expiry
        // and is refused: the expiry is news too.
        if undecided {
            let view = self.proposal(id).await?;
            if let Some(decision) = view.decision.as_ref().filter(|d| {
                matches!(decided, Ok(Recorded::Decided(_))) || matches!(d, Decision::Expired)
            }) {
                events::proposal_outcome(
                    self.host.store(),
                    &view.stored.run,
                    &view.requester,
                    &view.stored.proposal,
                    events::Outcome::Decided(decision),
                )
                .await;
            }
        }
        decided
    }

    async fn decide_unnotified(
        &self,
        id: &str,
        approver: &str,
        verdict: Verdict,
        watch: &mut (dyn EventSink + Send),
    ) -> Result<Recorded, HostError> {
        let view = self.proposal(id).await?;
        verdict.check_reason()?;
        if let Some(decided) = view.decision {
            return Err(HostError::AlreadyDecided(decided));
        }
        // An approval of a proposal past its lifetime is its expiry,
        // recorded as such (by the host) and told as not applied.
        let expired_approval =
            verdict.is_approval() && self.expired(view.stored.proposal.created_at());
        let verdict = if expired_approval {
            Verdict::Expire
        } else {
            verdict
        };
        let approver = match verdict {
            Verdict::Expire => Actor {
                id: expiry::EXPIRED_BY.to_owned(),
                admin: false,
            },
            _ => self.host.actor(approver).await?,
        };
        if matches!(verdict, Verdict::Reject(_))
            && !self.may_decide(&view.stored, &approver).await?
        {
            let refused = HostError::MayNotDecide;
            let decision = Decision::Rejected {
                approver,
                reason: String::new(),
            };
            self.audit_refusal(
                &view.stored.run,
                &view.stored.proposal,
                &decision,
                &refused.to_string(),
                None,
            )
            .await?;
            return Err(refused);
        }
        let run = view.stored.run.clone();
        let stored_run = self
            .host
            .store()
            .run_log()
            .run(&run)
            .await?
            .ok_or_else(|| HostError::UnknownRun(run.0.clone()))?;
        if stored_run.is_single_call() && stored_run.state.is_none() {
            // Stored by a build that kept a single call's run `completed`
            // with no state: made a run of one step, waiting, like the
            // ones stored now.
            self.host
                .store()
                .decisions()
                .suspend_call_run(&run, &stored_run.grant, &view.stored.proposal)
                .await?;
        }
        self.take(&run, view.stored.proposal.id()).await?;
        killpoint::reached(points::RESUME).await;
        let resumed = self
            .resume_taken(&run, &view.stored.proposal, approver, verdict, watch)
            .await;
        if !matches!(resumed, Ok(Recorded::Decided(_)))
            && self
                .host
                .store()
                .decisions()
                .decision(view.stored.proposal.id())
                .await?
                .is_none()
        {
            // Nothing was decided: the run waits again.
            self.host.store().run_log().release_run(&run).await?;
        }
        match resumed? {
            Recorded::Decided(mut decided) if expired_approval => {
                decided.applied = Some(Applied::NotApplied {
                    why: EXPIRED_BEFORE_APPROVAL.to_owned(),
                });
                Ok(Recorded::Decided(decided))
            }
            recorded => Ok(recorded),
        }
    }

    /// Takes the run to resume it; if another process took it first,
    /// waits for its decision (or for it to give the run back).
    async fn take(&self, run: &RunId, proposal: &ProposalId) -> Result<(), HostError> {
        let started = Instant::now();
        loop {
            let lease = self.host.jobs().lease().await?;
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

    async fn resume_taken(
        &self,
        run: &RunId,
        proposal: &Proposal,
        approver: Actor,
        verdict: Verdict,
        watch: &mut (dyn EventSink + Send),
    ) -> Result<Recorded, HostError> {
        let stored = self
            .host
            .store()
            .run_log()
            .run(run)
            .await?
            .ok_or_else(|| HostError::UnknownRun(run.0.clone()))?;
        let not_waiting = || HostError::NotWaiting {
            run: run.0.clone(),
            status: stored.status.to_string(),
        };
        let state = stored.state.clone().ok_or_else(not_waiting)?;
        if state.proposal().id() != proposal.id() {
            return Err(not_waiting());
        }
        let single_call = stored.is_single_call();
        let request = stored
            .request
            .clone()
            .unwrap_or_else(|| RunRequest::new(String::new()));
        let setup = self
            .host
            .runs()
            .request_setup(&stored.user, &request)
            .await?;
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
            false => Some(
                self.host
                    .runs()
                    .model_named(request.model.as_deref())
                    .await?,
            ),
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
                    .host
                    .admin()
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
        let cx = self
            .host
            .runs()
            .applying_context(run, &setup.actor, applying);

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
            self.host
                .admin()
                .record_cost(run, client.config(), &end)
                .await?;
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
                self.host
                    .calls()
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
        let ended = self.host.runs().conclude(run, end).await?;
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

    /// The first approval of two, recorded: in the audit trail as such.
    async fn audit_first_approval(
        &self,
        run: &RunId,
        proposal: &Proposal,
        approver: &str,
        waiting: &str,
    ) -> Result<(), HostError> {
        let mut entry = AuditEntry::new(AuditKind::Write, approver, "approved (first of two)");
        entry.run = Some(run.0.clone());
        entry.tool = Some(proposal.tool().to_owned());
        entry.detail = Some(format!("proposal {}: {waiting}", proposal.id().as_str()));
        Ok(self.host.store().audit_log().audit(&entry).await?)
    }

    /// Takes back `approver`'s first approval of proposal `id` (of two it
    /// needs), while it is undecided.
    ///
    /// # Errors
    ///
    /// [`HostError::UnknownProposal`]; [`HostError::Invalid`] when
    /// `approver` has no approval of it to take back (or it was decided).
    pub async fn withdraw_approval(&self, id: &str, approver: &str) -> Result<(), HostError> {
        let view = self.proposal(id).await?;
        let proposal = view.stored.proposal.id();
        if !self
            .host
            .store()
            .decisions()
            .withdraw_approval(proposal, approver)
            .await?
        {
            return Err(HostError::Invalid(format!(
                "`{approver}` has no approval of proposal `{id}` to withdraw (or it was decided)"
            )));
        }
        let mut entry = AuditEntry::new(AuditKind::Write, approver, "approval withdrawn");
        entry.run = Some(view.stored.run.0.clone());
        entry.tool = Some(view.stored.proposal.tool().to_owned());
        entry.detail = Some(format!("proposal {id}"));
        self.host.store().audit_log().audit(&entry).await?;
        events::proposal_outcome(
            self.host.store(),
            &view.stored.run,
            &view.requester,
            &view.stored.proposal,
            events::Outcome::Withdrawn { by: approver },
        )
        .await;
        Ok(())
    }

    /// An approval the gates refused: its gate decision in the audit trail.
    async fn audit_refusal(
        &self,
        run: &RunId,
        proposal: &Proposal,
        decision: &Decision,
        reason: &str,
        gate: Option<Gate>,
    ) -> Result<(), HostError> {
        let approver = decision.approver().map_or("host", |a| a.id.as_str());
        let mut entry = AuditEntry::new(AuditKind::Gate, approver, "denied");
        entry.gate = gate.map(|gate| gate.to_string());
        entry.run = Some(run.0.clone());
        entry.tool = Some(proposal.tool().to_owned());
        entry.detail = Some(format!(
            "approving proposal {}: {reason}",
            proposal.id().as_str()
        ));
        Ok(self.host.store().audit_log().audit(&entry).await?)
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

/// What an approver says about a proposal.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Apply it as proposed.
    Approve,
    /// Apply it with these arguments instead (the approver's edit), after
    /// the tool checked them as a call of the run.
    ApproveEdited(Value),
    /// Do not apply it; the model reads the reason.
    Reject(String),
    /// It is past its lifetime: recorded as expired, and its run told so.
    /// Only the host's own sweep ([`Host::expire_overdue`]) decides this;
    /// [`Host::decide`] refuses it from anyone.
    Expire,
}

impl Verdict {
    /// Whether it approves (as proposed or edited).
    pub fn is_approval(&self) -> bool {
        matches!(self, Verdict::Approve | Verdict::ApproveEdited(_))
    }

    /// The person whose run asked is owed a reason, and the model reads
    /// it: a rejection without one decides nothing
    /// ([`HostError::ReasonRequired`]), whichever door asked.
    pub fn check_reason(&self) -> Result<(), HostError> {
        match self {
            Verdict::Reject(reason) if reason.trim().is_empty() => Err(HostError::ReasonRequired),
            _ => Ok(()),
        }
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
