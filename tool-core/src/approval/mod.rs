//! Approving a write tool's proposal: one path, bound to the run's grant,
//! decided once.
//!
//! [`Approval::approve`] is the only public way to apply a proposal. It
//! checks, in this order, and writes nothing unless every check passes:
//!
//! 1. the proposal's tool is still in the run's grant (`stored ∩ now`) and
//!    the proposal's arguments pass that grant's scope, exactly as a call
//!    made now would be checked;
//! 2. the approver passes the gates for that tool (an approver who could
//!    not call it cannot approve it), and is not the person whose run
//!    asked when the proposal needs another approver (it was made after
//!    untrusted content entered the run: gate 9,
//!    [`Proposal::exposure_hold`]), and is one the tool's
//!    [`ApprovalPolicy`] admits (`others`, `admins`);
//! 3. the proposal has not expired: it was made less than its
//!    [`ProposalLifetime`] ago (default [`DEFAULT_PROPOSAL_LIFETIME`]); an
//!    expired one is recorded as [`Decision::Expired`] and refused with
//!    [`ApprovalError::Expired`];
//! 4. when the policy requires two approvers, this approval is counted
//!    ([`ApprovalStore::second`]): the first of two is recorded and the
//!    approver told it waits for another person
//!    ([`ApprovalError::Waiting`]); the same person never counts twice;
//! 5. the proposal is claimed in the [`ApprovalStore`]: the first decision
//!    wins, every later one is told it was already decided;
//! 6. the tool proposes again, on the proposal's own arguments, against the
//!    record as it is now: a fresh proposal that differs makes this one
//!    stale, and it is refused (this also re-runs the tool's own checks, so
//!    an edited proposal is refused);
//! 7. the tool applies, as a compare-and-set on the replaced values. Its
//!    context is the run's with the approver added as an [`Approver`]
//!    service, so the tool can record who approved and check the
//!    approver's own rights on the record.
//!
//! # The lifecycle of a proposal
//!
//! A proposal ends in exactly one of three ways, each recorded once in the
//! store: **approved** ([`Approval::approve`]), **rejected**
//! ([`Approval::reject`]; the approver's reason is what the model reads as
//! the call's result) or **expired** (not decided within its lifetime;
//! [`Approval::expire`] records it, and approving it later fails closed).
//!
//! - **Approving with edits** ([`Approval::approve_edited`]): the approver
//!   changes the arguments; the tool proposes again with them, checked like
//!   any call of the run (grant, scope, the tool's own rules), then that
//!   proposal is applied. The original goes to `apply` as an
//!   [`EditedFrom`] service, so the history can keep both the proposed and
//!   the approved values.
//! - **Approving several at once** ([`Approval::approve_all`]): each
//!   proposal goes through [`Approval::approve`] on its own, so a stale or
//!   expired one fails alone and the others apply.
//!
//! Approval stays per call, with one deliberate exception a host may
//! offer for its agent runs: a [`StandingApproval`] ("the rest of this
//! run, for the same record, fields or kind of record"), which never
//! skips this path: each proposal it covers is approved here, as its
//! approver, and decided on its own (see [`standing`](StandingApproval)).
//!
//! docs/agent-loop.md shows the path inside a run; the host quick start
//! (`host-example/examples/host_quick_start.rs`) shows it whole.

mod policy;
mod standing;

use std::collections::{BTreeSet, HashMap};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::calls::{DecisionRecord, GateDecision, OutcomeKind};
use crate::gates::{Approvers, Denial, Gates, Grant, Required, RunInputs};
use crate::redact::redact_json;
use crate::registry::Admitted;
use crate::skills::Allowance;
use crate::{
    Actor, BoxFuture, Outcome, Proposal, ProposalId, RegisteredTool, Registry, ToolContext,
    ToolError, ToolOutput,
};

pub use policy::{ApprovalPolicy, PolicyRefusal};
pub use standing::{StandingApproval, StandingLimit, record_kind};

/// How long a proposal may wait for a decision when the host sets no
/// [`ProposalLifetime`]: 7 days.
pub const DEFAULT_PROPOSAL_LIFETIME: Duration = Duration::from_secs(7 * 24 * 60 * 60);

/// How long a proposal may wait for a decision, counted from
/// [`Proposal::created_at`]. A host sets it by putting it into the run's
/// context (`ToolContext::with_service(ProposalLifetime(…))`); absent, it
/// is [`DEFAULT_PROPOSAL_LIFETIME`]. A proposal as old as this or older has
/// expired.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProposalLifetime(pub Duration);

impl ProposalLifetime {
    /// When a proposal made at `created_at` expires undecided (seconds
    /// since the Unix epoch): the one reckoning of it, for the approval
    /// path, a host's sweep and what an inbox shows.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tool_core::approval::ProposalLifetime;
    ///
    /// let day = ProposalLifetime(Duration::from_secs(86_400));
    /// assert_eq!(day.expires_at(1_000), 87_400);
    /// assert!(!day.expired(1_000, 87_399));
    /// assert!(day.expired(1_000, 87_400)); // as old as its lifetime: expired
    /// ```
    pub fn expires_at(self, created_at: u64) -> u64 {
        created_at.saturating_add(self.0.as_secs())
    }

    /// Whether a proposal made at `created_at` has expired at `now`.
    pub fn expired(self, created_at: u64, now: u64) -> bool {
        now >= self.expires_at(created_at)
    }
}

pub use crate::applying::{Approver, EditedFrom};

/// What was decided about one proposal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Decision {
    /// Apply it. The approver must pass the gates for the tool.
    Approved {
        /// Who approved.
        approver: Actor,
    },
    /// Do not apply it. The model is told, with the reason.
    Rejected {
        /// Who rejected.
        approver: Actor,
        /// Why; shown to the model.
        reason: String,
    },
    /// Nobody decided within its [`ProposalLifetime`]: it is not applied,
    /// and the model is told it expired.
    Expired,
}

impl Decision {
    /// Who decided; `None` for an expiry, which nobody decided.
    pub fn approver(&self) -> Option<&Actor> {
        match self {
            Decision::Approved { approver } | Decision::Rejected { approver, .. } => Some(approver),
            Decision::Expired => None,
        }
    }
}

/// Where decisions are recorded, so that each proposal is decided once.
///
/// `claim` must be atomic: of two callers racing on one id (two threads,
/// two host processes on one database), exactly one gets `Ok`. It is async
/// because a durable store waits on its database.
pub trait ApprovalStore: Send + Sync {
    /// Records `decision` for `id` unless a decision is recorded already;
    /// then returns that one.
    fn claim<'a>(
        &'a self,
        id: &'a ProposalId,
        decision: &'a Decision,
    ) -> BoxFuture<'a, Result<(), ClaimError>>;

    /// Records `approver`'s approval of `id` where two different people
    /// must approve, and returns everyone who has approved it so far
    /// (`approver` included), each once. Atomic as `claim` is. A store
    /// that cannot keep such approvals refuses (the default): a
    /// four-eyes policy then approves nothing.
    fn second<'a>(
        &'a self,
        id: &'a ProposalId,
        approver: &'a Actor,
    ) -> BoxFuture<'a, Result<BTreeSet<String>, ClaimError>> {
        let _ = (id, approver);
        Box::pin(std::future::ready(Err(ClaimError::Store(
            "this approvals store keeps no approvals that need a second person".to_owned(),
        ))))
    }
}

/// Why a claim did not record the decision.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ClaimError {
    /// Someone decided first.
    #[error(transparent)]
    AlreadyDecided(#[from] AlreadyDecided),
    /// The store could not be reached or written; nothing was decided.
    #[error("the approvals store failed: {0}")]
    Store(String),
}

/// A proposal was decided before.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the proposal was already decided")]
pub struct AlreadyDecided {
    /// The decision that won.
    pub decision: Decision,
}

/// An [`ApprovalStore`] in memory, for tests and single-process hosts.
#[derive(Debug, Default)]
pub struct MemoryApprovals {
    decided: Mutex<HashMap<ProposalId, Decision>>,
    seconded: Mutex<HashMap<ProposalId, BTreeSet<String>>>,
}

impl MemoryApprovals {
    /// An empty store.
    pub fn new() -> Self {
        MemoryApprovals::default()
    }

    /// The decision recorded for `id`, if any.
    pub fn decision(&self, id: &ProposalId) -> Option<Decision> {
        self.lock().get(id).cloned()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<ProposalId, Decision>> {
        // A panic while holding the lock cannot leave the map half-written:
        // every write is one insert.
        self.decided.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl MemoryApprovals {
    fn claim_now(&self, id: &ProposalId, decision: &Decision) -> Result<(), ClaimError> {
        let mut decided = self.lock();
        if let Some(existing) = decided.get(id) {
            return Err(AlreadyDecided {
                decision: existing.clone(),
            }
            .into());
        }
        decided.insert(id.clone(), decision.clone());
        Ok(())
    }
}

impl ApprovalStore for MemoryApprovals {
    fn claim<'a>(
        &'a self,
        id: &'a ProposalId,
        decision: &'a Decision,
    ) -> BoxFuture<'a, Result<(), ClaimError>> {
        Box::pin(std::future::ready(self.claim_now(id, decision)))
    }

    fn second<'a>(
        &'a self,
        id: &'a ProposalId,
        approver: &'a Actor,
    ) -> BoxFuture<'a, Result<BTreeSet<String>, ClaimError>> {
        // One insert under the lock, as for `claim`.
        let mut seconded = self.seconded.lock().unwrap_or_else(|e| e.into_inner());
        let approvers = seconded.entry(id.clone()).or_default();
        approvers.insert(approver.id.clone());
        Box::pin(std::future::ready(Ok(approvers.clone())))
    }
}

impl From<ClaimError> for ApprovalError {
    fn from(error: ClaimError) -> Self {
        match error {
            ClaimError::AlreadyDecided(decided) => ApprovalError::AlreadyDecided(decided),
            ClaimError::Store(message) => ApprovalError::Store(message),
        }
    }
}

/// Why a proposal was not applied. Nothing was written in any case.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ApprovalError {
    /// The run's grant, as it is now, no longer admits the proposal (its
    /// tool or its scope).
    #[error("the run may no longer make this change: {denial}")]
    RunRefused {
        /// The first gate that said no.
        denial: Denial,
    },
    /// The approver does not pass the gates for the proposal's tool.
    #[error("the approver may not make this change: {denial}")]
    ApproverRefused {
        /// The first gate that said no.
        denial: Denial,
    },
    /// Someone decided first (or this is a replay).
    #[error(transparent)]
    AlreadyDecided(AlreadyDecided),
    /// The approvals store failed; nothing was decided or written.
    #[error("the approvals store failed: {0}")]
    Store(String),
    /// The record changed since the proposal was made, or the proposal is
    /// not what its tool proposes for its arguments.
    #[error("the proposal is stale: the record changed since it was made; nothing was written")]
    Stale,
    /// The proposal was not decided within its [`ProposalLifetime`]; it is
    /// recorded as expired and can never be applied.
    #[error("the proposal expired before it was decided; nothing was written")]
    Expired,
    /// A suspended run's stored proposal is not the proposal of its recorded
    /// call (another tool, or other arguments), or an approver's edit
    /// proposes a change to another record.
    #[error("the stored proposal does not match the call that made it; nothing was written")]
    Mismatch,
    /// The tool's approval policy does not admit this approver; nothing
    /// was decided.
    #[error("{0}")]
    Policy(PolicyRefusal),
    /// The approval was recorded, and the policy needs another person's
    /// too before anything is applied.
    #[error("{}", waiting_text(.approved_by, *.required, .next))]
    Waiting {
        /// Everyone who approved so far.
        approved_by: BTreeSet<String>,
        /// How many must.
        required: Required,
        /// Who the next approval must come from, in words.
        next: &'static str,
    },
    /// The tool refused, or failed while applying.
    #[error(transparent)]
    Tool(#[from] ToolError),
}

/// `1 of 2 approvals: approved by ops; waiting for another administrator`.
fn waiting_text(approved_by: &BTreeSet<String>, required: Required, next: &str) -> String {
    let names: Vec<&str> = approved_by.iter().map(String::as_str).collect();
    if names.is_empty() {
        return format!("0 of {} approvals yet", required.count());
    }
    format!(
        "{} of {} approvals: approved by {}; waiting for {next}",
        names.len(),
        required.count(),
        names.join(", ")
    )
}

impl ApprovalError {
    /// What the model is told in place of the call's result.
    pub fn model_text(&self) -> String {
        match self {
            ApprovalError::Tool(error) => error.model_text(),
            ApprovalError::RunRefused { .. } | ApprovalError::ApproverRefused { .. } => {
                "the change was not applied: it is no longer permitted; nothing was written"
                    .to_owned()
            }
            other => other.to_string(),
        }
    }
}

/// The one approval path of a run (see the module docs).
#[derive(Clone, Copy)]
pub struct Approval<'a> {
    /// The registry the run uses.
    pub registry: &'a Registry,
    /// The run's inputs (its actor, configuration, skills, selection) with
    /// the host's settings as they are now.
    pub run: RunInputs<'a>,
    /// The grant stored with the run; `None` for a run stored without one.
    pub grant: Option<&'a Grant>,
    /// Where decisions are recorded.
    pub store: &'a dyn ApprovalStore,
}

impl Approval<'_> {
    /// Checks everything a call checks, claims the proposal, proposes again
    /// and applies. `cx` is the run's context (its actor proposes again);
    /// the tool gets it with an [`Approver`] service added.
    ///
    /// Ends with one [`DecisionRecord`] to the context's sink and the
    /// `tool_core::decision` target, as a gated call does, naming the
    /// approver, the gate and rule that refused (the run's or the
    /// approver's), the arguments redacted, and how it ended.
    pub async fn approve(
        &self,
        proposal: &Proposal,
        approver: &Actor,
        cx: &ToolContext,
    ) -> Result<ToolOutput, ApprovalError> {
        let started = Instant::now();
        let result = self.approve_unrecorded(proposal, approver, cx).await;
        self.record(
            proposal.tool(),
            proposal.arguments(),
            approver,
            cx,
            started,
            &result,
        );
        result
    }

    async fn approve_unrecorded(
        &self,
        proposal: &Proposal,
        approver: &Actor,
        cx: &ToolContext,
    ) -> Result<ToolOutput, ApprovalError> {
        let tool = self.admit(proposal, proposal.arguments(), approver, cx)?;
        self.claim_approval(proposal, approver, cx).await?;
        let cx = cx.clone().with_service(Approver(approver.clone()));
        self.registry.apply_approved(tool, proposal, &cx).await
    }

    /// Approves `proposal` with the approver's edit: `arguments` replace the
    /// proposal's. The tool proposes again with them through the checked
    /// call path, so the edit must pass what a call of the run passes now
    /// (the grant and its scope, the schema, the tool's own rules) and must
    /// change the same record; then that proposal is applied as
    /// [`approve`](Self::approve) applies. `proposal` is claimed as approved,
    /// so it is decided once, and reaches `apply` as [`EditedFrom`].
    ///
    /// An edit that fails a check is refused before anything is claimed:
    /// the approver may correct it and try again. Recorded as
    /// [`approve`](Self::approve) is, with the edited arguments.
    pub async fn approve_edited(
        &self,
        proposal: &Proposal,
        arguments: Value,
        approver: &Actor,
        cx: &ToolContext,
    ) -> Result<ToolOutput, ApprovalError> {
        let started = Instant::now();
        let recorded = DecisionRecord::wanted(cx).then(|| arguments.clone());
        let result = self
            .approve_edited_unrecorded(proposal, arguments, approver, cx)
            .await;
        if let Some(arguments) = recorded {
            self.record(proposal.tool(), &arguments, approver, cx, started, &result);
        }
        result
    }

    async fn approve_edited_unrecorded(
        &self,
        proposal: &Proposal,
        arguments: Value,
        approver: &Actor,
        cx: &ToolContext,
    ) -> Result<ToolOutput, ApprovalError> {
        let (tool, edited) = self.edit(proposal, arguments, approver, cx).await?;
        if self.policy(tool).required == Required::Two {
            return Err(ApprovalError::Policy(PolicyRefusal::NoEditWithTwo));
        }
        let cx = cx.clone().with_service(Approver(approver.clone()));
        self.claim_approval(proposal, approver, &cx).await?;
        let cx = cx.with_service(EditedFrom(proposal.clone()));
        self.registry.apply_approved(tool, &edited, &cx).await
    }

    /// What approving `proposal` with the edit `arguments` would apply: the
    /// tool's proposal for them, checked exactly as
    /// [`approve_edited`](Self::approve_edited) checks it, with nothing
    /// claimed or written. A host shows it to the approver before they
    /// confirm the edit; confirming checks it all again.
    pub async fn check_edit(
        &self,
        proposal: &Proposal,
        arguments: Value,
        approver: &Actor,
        cx: &ToolContext,
    ) -> Result<Proposal, ApprovalError> {
        Ok(self.edit(proposal, arguments, approver, cx).await?.1)
    }

    /// Both proposals admitted, and the tool's proposal for the edit, which
    /// must change the same record.
    async fn edit(
        &self,
        proposal: &Proposal,
        arguments: Value,
        approver: &Actor,
        cx: &ToolContext,
    ) -> Result<(&RegisteredTool, Proposal), ApprovalError> {
        self.admit(proposal, proposal.arguments(), approver, cx)?;
        let tool = self.admit(proposal, &arguments, approver, cx)?;
        let cx = cx.clone().with_service(Approver(approver.clone()));
        match self
            .registry
            .call_registered(tool, arguments, &cx, Admitted::NONE)
            .await?
        {
            Outcome::Proposed(edited) if edited.record == proposal.record => Ok((tool, *edited)),
            _ => Err(ApprovalError::Mismatch),
        }
    }

    /// Approves several pending proposals of one run in one action. Each
    /// goes through [`approve`](Self::approve) on its own, in order, so one
    /// that is stale, expired or refused fails alone: the results are in
    /// the order of `proposals`.
    pub async fn approve_all(
        &self,
        proposals: &[Proposal],
        approver: &Actor,
        cx: &ToolContext,
    ) -> Vec<Result<ToolOutput, ApprovalError>> {
        let mut results = Vec::with_capacity(proposals.len());
        for proposal in proposals {
            results.push(self.approve(proposal, approver, cx).await);
        }
        results
    }

    /// Records a rejection; the first decision wins here too.
    pub async fn reject(
        &self,
        proposal: &Proposal,
        approver: &Actor,
        reason: &str,
    ) -> Result<(), ApprovalError> {
        let decision = Decision::Rejected {
            approver: approver.clone(),
            reason: reason.to_owned(),
        };
        self.store.claim(proposal.id(), &decision).await?;
        Ok(())
    }

    /// Records that `proposal` expired undecided (a host's sweep of old
    /// proposals); the first decision wins here too.
    pub async fn expire(&self, proposal: &Proposal) -> Result<(), ApprovalError> {
        self.store.claim(proposal.id(), &Decision::Expired).await?;
        Ok(())
    }

    /// Steps 1 and 2: the run may still call the proposal's tool with
    /// `arguments`, and the approver passes the gates for it.
    fn admit(
        &self,
        proposal: &Proposal,
        arguments: &Value,
        approver: &Actor,
        cx: &ToolContext,
    ) -> Result<&RegisteredTool, ApprovalError> {
        let run_gates = Gates::new(self.registry, self.run);
        let grant = Grant::resume(self.grant, &run_gates.resolve().grant);
        let tool = run_gates
            .check_call(&grant, proposal.tool(), arguments, cx)
            .map_err(|denial| ApprovalError::RunRefused { denial })?;
        if let Some(raised_by) = proposal.exposure_hold() {
            if self
                .run
                .actor
                .is_some_and(|requester| requester.id == approver.id)
            {
                return Err(ApprovalError::ApproverRefused {
                    denial: Denial::OwnProposal {
                        raised_by: Box::new(raised_by.clone()),
                    },
                });
            }
            if self.run.settings.exposure.writes_after_untrusted == Approvers::Admins
                && !approver.admin
            {
                return Err(ApprovalError::Policy(PolicyRefusal::Admins));
            }
        }
        self.policy(tool)
            .admits(approver, self.run.actor)
            .map_err(ApprovalError::Policy)?;
        let as_approver = RunInputs {
            actor: Some(approver),
            ..self.run
        };
        if let Some(denial) = Gates::new(self.registry, as_approver).denial(proposal.tool()) {
            tracing::info!(
                target: "tool_core::gate",
                run = %cx.run(),
                tool = proposal.tool(),
                decision = "deny",
                gate = %denial.gate(),
                approver = approver.id.as_str(),
            );
            return Err(ApprovalError::ApproverRefused { denial });
        }
        Ok(tool)
    }

    /// The approval policy of `tool` under the settings as they are now.
    fn policy(&self, tool: &RegisteredTool) -> ApprovalPolicy {
        let declaration = tool.declaration();
        ApprovalPolicy::of(self.run.settings, &declaration.name, &declaration.group)
    }

    /// The decision record of one approval of `tool` with `arguments`.
    fn record(
        &self,
        tool: &str,
        arguments: &Value,
        approver: &Actor,
        cx: &ToolContext,
        started: Instant,
        result: &Result<ToolOutput, ApprovalError>,
    ) {
        if !DecisionRecord::wanted(cx) {
            return;
        }
        let gates = Gates::new(self.registry, self.run);
        let decision = match result {
            Err(
                ApprovalError::RunRefused { denial } | ApprovalError::ApproverRefused { denial },
            ) => GateDecision::Refused {
                gate: denial.gate(),
                rule: denial.clone(),
            },
            _ => {
                let grant = Grant::resume(self.grant, &gates.resolve().grant);
                GateDecision::Allowed {
                    scoped: matches!(grant.allowance(tool), Some(Allowance::Scoped(_))),
                }
            }
        };
        DecisionRecord {
            run: cx.run().clone(),
            actor: cx.actor().map(|actor| actor.id.clone()),
            approver: Some(approver.id.clone()),
            tool: tool.to_owned(),
            definition: self.registry.get(tool).map(RegisteredTool::definition_hash),
            arguments: redact_json(arguments),
            decision,
            skills: gates.consulted_skills().to_vec(),
            duration: started.elapsed(),
            outcome: OutcomeKind::of_approval(result),
            carries_authored: result
                .as_ref()
                .is_ok_and(crate::ToolOutput::carries_authored),
        }
        .emit(cx);
    }

    /// Steps 3 and 4: an expired proposal is claimed as expired and
    /// refused; any other is claimed as approved.
    async fn claim_approval(
        &self,
        proposal: &Proposal,
        approver: &Actor,
        cx: &ToolContext,
    ) -> Result<(), ApprovalError> {
        let lifetime = cx
            .service::<ProposalLifetime>()
            .map_or(ProposalLifetime(DEFAULT_PROPOSAL_LIFETIME), |lifetime| {
                *lifetime
            });
        if lifetime.expired(proposal.created_at(), crate::output::unix_now()) {
            self.expire(proposal).await?;
            return Err(ApprovalError::Expired);
        }
        if let Some(tool) = self.registry.get(proposal.tool()) {
            let policy = self.policy(tool);
            if policy.required == Required::Two {
                let approved_by = self.store.second(proposal.id(), approver).await?;
                if approved_by.len() < policy.required.count() {
                    return Err(ApprovalError::Waiting {
                        approved_by,
                        required: policy.required,
                        next: policy.next_approver(),
                    });
                }
            }
        }
        let decision = Decision::Approved {
            approver: approver.clone(),
        };
        self.store.claim(proposal.id(), &decision).await?;
        Ok(())
    }
}

impl std::fmt::Debug for Approval<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Approval")
            .field("grant", &self.grant)
            .finish_non_exhaustive()
    }
}
