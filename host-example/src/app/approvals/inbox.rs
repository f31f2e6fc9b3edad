//! The approvals inbox as one approver sees it: the proposals they may
//! decide, an edit checked by the tool before it is shown for approval, the
//! proposals of one run decided together, and the decisions they may read.
//!
//! Who may decide is the tool's own rule, never a copy of it: an approver
//! may decide a proposal when they pass the gates for its tool and the
//! tool, called by them with the proposal's arguments, would propose the
//! change itself (so the record is theirs to change). Deciding goes through
//! [`Approvals::decide`](crate::app::Approvals::decide), which checks all of it again.

use serde_json::Value;
use tool_core::agent::{EventSink, ToolCall};
use tool_core::approval::{Approval, Decision};
use tool_core::gates::Gates;
use tool_core::{Actor, Effect, Outcome, Proposal, RunId};

use crate::app::approvals::{ProposalView, Recorded, Verdict};
use crate::app::{Approvals, HostError};
use crate::store::StoredProposal;

/// A pending proposal in someone's inbox.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingEntry {
    /// The proposal and who asked for it.
    pub view: ProposalView,
    /// When it expires undecided (seconds since the Unix epoch).
    pub expires_at: i64,
    /// The id of the model's call that made it, when its run waits on it.
    pub call: Option<String>,
    /// The write calls the same model response made after this one: they
    /// are proposed, one by one, once this one is decided, and can be
    /// decided together with it ([`Approvals::decide_together`](crate::app::Approvals::decide_together)).
    pub queued: Vec<ToolCall>,
}

/// A decided (or expired) proposal, with who decided what and when.
#[derive(Debug, Clone, PartialEq)]
pub struct DecidedEntry {
    /// The proposal and its status.
    pub stored: StoredProposal,
    /// The run's user.
    pub requester: String,
    /// What was decided.
    pub decision: Decision,
    /// When (seconds since the Unix epoch).
    pub at: i64,
    /// Approved, and nothing was written: why.
    pub not_applied: Option<String>,
}

/// What one approver's inbox holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Inbox {
    /// The pending proposals they may decide, oldest first.
    pub pending: Vec<PendingEntry>,
    /// The decisions they may read, newest first: an administrator every
    /// one, anyone else those they made and those on their own runs.
    pub decided: Vec<DecidedEntry>,
}

/// One proposal of a run decided together with the others.
#[derive(Debug, Clone, PartialEq)]
pub struct DecidedTogether {
    /// The proposal.
    pub proposal: Proposal,
    /// What deciding it came to.
    pub outcome: Result<Recorded, String>,
}

impl Approvals<'_> {
    /// Whether `approver` may decide `stored` (see the module docs). Reads
    /// only: the tool proposes, nothing is claimed or written.
    pub async fn may_decide(
        &self,
        stored: &StoredProposal,
        approver: &Actor,
    ) -> Result<bool, HostError> {
        let setup = self.runs.setup(&approver.id, &[]).await?;
        let gates = Gates::new(self.host.registry(), setup.inputs());
        let grant = gates.resolve().grant;
        let cx = self.runs.context(&stored.run, approver);
        let proposal = &stored.proposal;
        let outcome = gates
            .call(&grant, proposal.tool(), proposal.arguments().clone(), &cx)
            .await;
        Ok(matches!(outcome, Ok(Outcome::Proposed(mine)) if mine.record == proposal.record))
    }

    /// The inbox of the host user `approver`, with at most `decided_limit`
    /// decisions.
    pub async fn inbox(&self, approver: &str, decided_limit: usize) -> Result<Inbox, HostError> {
        let approver = self.host.actor(approver).await?;
        let mut pending = Vec::new();
        for stored in self.host.store().decisions().pending_proposals().await? {
            if !approver.admin && !self.may_decide(&stored, &approver).await? {
                continue;
            }
            let (call, queued) = self.queued_writes(&stored).await?;
            pending.push(PendingEntry {
                view: self.proposal(stored.proposal.id().as_str()).await?,
                // The host's configured lifetime, which its sweep expires by.
                expires_at: self.expires_at(stored.proposal.created_at()),
                call,
                queued,
            });
        }
        let mut decided = Vec::new();
        // Read past the limit: an editor's share of the newest decisions
        // may be spread over more rows than they are shown.
        let rows = self
            .host
            .store()
            .decisions()
            .decided_proposals(decided_limit.saturating_mul(10))
            .await?;
        for (stored, decision, at) in rows {
            if decided.len() == decided_limit {
                break;
            }
            let requester = self.requester(&stored.run).await?;
            let theirs = requester == approver.id
                || decision.approver().is_some_and(|a| a.id == approver.id);
            if approver.admin || theirs {
                let not_applied = self.not_applied(&stored, Some(&decision)).await?;
                decided.push(DecidedEntry {
                    stored,
                    requester,
                    decision,
                    at,
                    not_applied,
                });
            }
        }
        Ok(Inbox { pending, decided })
    }

    /// What approving proposal `id` with the edit `arguments` would apply,
    /// checked by the tool as the approval will check it (the run's grant
    /// and scope, the approver's gates, the tool's own rules, the same
    /// record); nothing is claimed or written.
    pub async fn preview_edit(
        &self,
        id: &str,
        approver: &str,
        arguments: Value,
    ) -> Result<Proposal, HostError> {
        let view = self.proposal(id).await?;
        if let Some(decided) = view.decision {
            return Err(HostError::AlreadyDecided(decided));
        }
        let approver = self.host.actor(approver).await?;
        let stored = self.runs.stored(&view.stored.run).await?;
        let (_, setup) = self.runs.setup_of(&stored).await?;
        let decisions = self.host.store().decisions().approvals();
        let approval = Approval {
            registry: self.host.registry(),
            run: setup.inputs(),
            grant: Some(&stored.grant),
            store: &decisions,
        };
        let cx = self.runs.context(&stored.id, &setup.actor);
        approval
            .check_edit(&view.stored.proposal, arguments, &approver, &cx)
            .await
            .map_err(|error| HostError::Refused(error.to_string()))
    }

    /// Decides the pending proposal of `run` with `verdict` (an approval or
    /// a rejection; an edit is one proposal's), then, as long as the
    /// resumed run waits again on one of the `calls` the approver saw
    /// (the pending call's id and its queued calls'), decides that one
    /// too. Each goes through [`Approvals::decide`](crate::app::Approvals::decide) on its own, so one that is
    /// refused stops the rest and is reported; a proposal the approver did
    /// not see is never decided here.
    pub async fn decide_together(
        &self,
        run: &RunId,
        approver: &str,
        verdict: Verdict,
        calls: &[String],
        watch: &mut (dyn EventSink + Send),
    ) -> Result<Vec<DecidedTogether>, HostError> {
        verdict.check_reason()?;
        if matches!(verdict, Verdict::ApproveEdited(_)) {
            return Err(HostError::Refused(
                "an edit is made on one proposal, not on a run's".to_owned(),
            ));
        }
        let mut decided = Vec::new();
        while let Some(state) = self
            .host
            .store()
            .run_log()
            .run(run)
            .await?
            .and_then(|r| r.state)
        {
            let call = &state.pending().call;
            let proposal = state.proposal().clone();
            let pending = self
                .host
                .store()
                .decisions()
                .decision(proposal.id())
                .await?
                .is_none();
            if !pending || !calls.contains(&call.id) {
                break;
            }
            let outcome = self
                .decide(proposal.id().as_str(), approver, verdict.clone(), watch)
                .await
                .map_err(|error| error.to_string());
            // The first of two approvals leaves it waiting: the run does
            // not go on, so neither does this.
            let failed = !matches!(outcome, Ok(Recorded::Decided(_)));
            decided.push(DecidedTogether { proposal, outcome });
            if failed {
                break;
            }
        }
        Ok(decided)
    }

    /// The call that made `stored`, when its run waits on it, and the
    /// write calls queued behind it.
    async fn queued_writes(
        &self,
        stored: &StoredProposal,
    ) -> Result<(Option<String>, Vec<ToolCall>), HostError> {
        // A single call's run of one step has no model's calls to show,
        // and no rest of a run a standing approval could cover.
        let state = self
            .host
            .store()
            .run_log()
            .run(&stored.run)
            .await?
            .filter(|run| !run.is_single_call())
            .and_then(|r| r.state);
        let Some(state) = state.filter(|s| s.proposal().id() == stored.proposal.id()) else {
            return Ok((None, Vec::new()));
        };
        let queued = state
            .remaining()
            .iter()
            .filter(|call| {
                self.host
                    .registry()
                    .get(&call.name)
                    .is_some_and(|tool| tool.declaration().effect == Effect::Write)
            })
            .cloned()
            .collect();
        Ok((Some(state.pending().call.id.clone()), queued))
    }

    async fn requester(&self, run: &RunId) -> Result<String, HostError> {
        Ok(self
            .host
            .store()
            .run_log()
            .run(run)
            .await?
            .map_or_else(|| "?".to_owned(), |run| run.user))
    }
}
