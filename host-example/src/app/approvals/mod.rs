//! Deciding proposals, independent of how it is asked: list and show them,
//! approve or reject one, then resume its run to its end (or its next
//! proposal).
//!
//! A decision is durable and made once across every process sharing the
//! database: the run is first taken (`suspended` → `resuming`, a
//! compare-and-set, so one process resumes it), then
//! [`Agent::resume`](tool_core::agent::Agent::resume) re-gates the approver and the run's grant (stored ∩
//! now, with the run's user and the settings as they are now) and claims
//! the decision in [`SqlApprovals`](crate::store::SqlApprovals). Until the
//! claim is recorded, the resumed run's events are held back and the model
//! is not asked; if the gates refuse the approval, or someone decided
//! first, they are dropped and the run is given back, still waiting.

mod expiry;
pub mod inbox;
mod outcome;
mod resume;
pub mod standing;

use std::time::Duration;

use serde_json::Value;
use tool_core::agent::{EventSink, RunState};
use tool_core::approval::{ApprovalError, Decision};
use tool_core::exposure::Exposure;
use tool_core::gates::{Gate, Required};
use tool_core::{Actor, Proposal, ProposalId, RunId};

pub use outcome::{Applied, Decided, EXPIRED_BEFORE_APPROVAL, NOT_APPLIED, Recorded};

use crate::app::killpoint::{self, points};
use crate::app::webhooks::events;
use crate::app::{Approvals, HostError};
use crate::store::{ApplyAudited, AuditEntry, AuditKind, StoredProposal};

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
    /// [may decide](crate::app::Approvals::may_decide) the proposal may reject it, or
    /// [`HostError::MayNotDecide`] (an approval is re-gated on its own
    /// path). An edit is checked by the
    /// tool again as the approval is recorded, whatever
    /// [`Approvals::preview_edit`](crate::app::Approvals::preview_edit) showed.
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

    /// [`Approvals::decide`](crate::app::Approvals::decide) without following standing approvals; a decision
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
        let stored_run = self.runs.stored(&run).await?;
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
    /// Only the host's own sweep ([`Approvals::expire_overdue`](crate::app::Approvals::expire_overdue)) decides this;
    /// [`Approvals::decide`](crate::app::Approvals::decide) refuses it from anyone.
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
