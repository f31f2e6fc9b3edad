//! Standing approvals in the host (`tool_core::approval::StandingApproval`):
//! given with the approval of one proposal of an agent run, they approve
//! the run's later proposals they cover, each through the one approval
//! path as their approver, until the run ends or they are revoked.
//!
//! Not for a single call's proposal (an MCP client's): it has no run to
//! go on. Never where the tool needs two approvers, and never for a
//! proposal made after untrusted content entered the run (gate 9): those
//! need a person each time.

use argon2::password_hash::rand_core::{OsRng, RngCore};
use tool_core::agent::EventSink;
use tool_core::approval::{ApprovalPolicy, PolicyRefusal, StandingApproval, StandingLimit};
use tool_core::{Proposal, RunId};

use super::{Decided, Recorded, Verdict};
use crate::app::runs::{RunEnded, RunReport, may_see_run};
use crate::app::{Approvals, HostError};
use crate::store::{AuditEntry, AuditKind};

/// The limits a standing approval can state, as an approver names them.
pub const SCOPES: [&str; 3] = ["record", "field", "kind"];

impl Approvals<'_> {
    /// Approves proposal `id` as `approver` and gives, with it, a standing
    /// approval of the rest of its run's proposals of the same tool within
    /// `scope` (`record`: this record; `field`: these fields; `kind`:
    /// records of this kind). Nothing is kept if the approval fails.
    ///
    /// # Errors
    ///
    /// [`HostError::Invalid`] for a single call's proposal, a scope not in
    /// [`SCOPES`] or a proposal made after untrusted content;
    /// [`HostError::Refused`] when the tool needs two approvers; as
    /// [`Approvals::approve`](crate::app::Approvals::approve) otherwise.
    pub async fn approve_standing(
        &self,
        id: &str,
        approver: &str,
        scope: &str,
        watch: &mut (dyn EventSink + Send),
    ) -> Result<Recorded, HostError> {
        let view = self.proposal(id).await?;
        let proposal = &view.stored.proposal;
        let run = &view.stored.run;
        let stored_run = self.runs.stored(run).await?;
        if stored_run.is_single_call() {
            return Err(HostError::Invalid(
                "a standing approval is for an agent run's proposals; this one was made by a single call".to_owned(),
            ));
        }
        let limit = StandingLimit::of(scope, proposal).ok_or_else(|| {
            HostError::Invalid(format!(
                "a standing approval is limited to {}, not `{scope}`",
                SCOPES.join(", ")
            ))
        })?;
        if !self.policy_of(proposal).await?.allows_standing() {
            return Err(HostError::Refused(
                PolicyRefusal::NoStandingWithTwo.to_string(),
            ));
        }
        if proposal.exposure_hold().is_some() {
            return Err(HostError::Invalid(
                "this change was proposed after untrusted content entered the run: each such change needs a person, so no standing approval can be given".to_owned(),
            ));
        }
        let standing = StandingApproval {
            id: new_standing_id(),
            tool: proposal.tool().to_owned(),
            approver: self.host.actor(approver).await?,
            limit,
        };
        // Kept before the approval resumes the run, so the run's next
        // proposal finds it.
        self.host
            .store()
            .decisions()
            .save_standing(run, &standing)
            .await?;
        self.audit_standing(run, &standing, "standing approval given", proposal)
            .await?;
        match self.decide(id, approver, Verdict::Approve, watch).await {
            Ok(decided) => Ok(decided),
            Err(error) => {
                self.host
                    .store()
                    .decisions()
                    .revoke_standing(&standing.id, approver)
                    .await?;
                Err(error)
            }
        }
    }

    /// Revokes standing approval `id` as `by`: its approver or an
    /// administrator.
    ///
    /// # Errors
    ///
    /// [`HostError::Invalid`] for an id that names none in force, or one
    /// of a run `by` may not see: the same answer; [`HostError::Refused`]
    /// with the reason when `by` may see its run but not revoke it.
    pub async fn revoke_standing(&self, id: &str, by: &str) -> Result<(), HostError> {
        let by = self.host.actor(by).await?;
        let unknown = || HostError::Invalid(format!("no standing approval `{id}` in force"));
        let stored = self
            .host
            .store()
            .decisions()
            .standing(id)
            .await?
            .ok_or_else(unknown)?;
        if stored.revoked_by.is_some() {
            return Err(unknown());
        }
        if !(by.admin || stored.standing.approver.id == by.id) {
            // Someone who may see its run may list it: they are told the
            // real reason. Anyone else learns nothing of it.
            let run = self.host.store().run_log().run(&stored.run).await?;
            return Err(match run.filter(|run| may_see_run(&by, run)) {
                Some(_) => HostError::Refused(format!(
                    "standing approval `{id}` may be revoked only by its approver ({}) or an administrator",
                    stored.standing.approver.id
                )),
                None => unknown(),
            });
        }
        if !self
            .host
            .store()
            .decisions()
            .revoke_standing(id, &by.id)
            .await?
        {
            return Err(unknown());
        }
        let mut entry = AuditEntry::new(AuditKind::Write, &by.id, "standing approval revoked");
        entry.run = Some(stored.run.0.clone());
        entry.tool = Some(stored.standing.tool.clone());
        entry.detail = Some(format!("standing approval {id}"));
        Ok(self.host.store().audit_log().audit(&entry).await?)
    }

    /// The standing approvals in force for `run`, as `viewer` may see
    /// them: those of a run they may see ([`may_see_run`]). A run they may
    /// not see is answered as one that does not exist.
    pub async fn standing_of_run(
        &self,
        viewer: &str,
        run: &str,
    ) -> Result<Vec<StandingApproval>, HostError> {
        let viewer = self.host.actor(viewer).await?;
        let id = RunId(run.to_owned());
        let unknown = || HostError::UnknownRun(run.to_owned());
        let stored = self
            .host
            .store()
            .run_log()
            .run(&id)
            .await?
            .ok_or_else(unknown)?;
        if !may_see_run(&viewer, &stored) {
            return Err(unknown());
        }
        Ok(self.host.store().decisions().standing_of_run(&id).await?)
    }

    /// While the run `decided` went on to is waiting on a proposal a
    /// standing approval in force covers, approves it as that approval's
    /// approver, through the one path; what the last decision came to. An
    /// approval the path refuses leaves the proposal to a person.
    pub(super) async fn follow_standing(
        &self,
        mut decided: Decided,
        watch: &mut (dyn EventSink + Send),
    ) -> Result<Decided, HostError> {
        loop {
            let Some(RunReport {
                run,
                ended: RunEnded::Suspended(next),
            }) = &decided.report
            else {
                return Ok(decided);
            };
            let standing = self.host.store().decisions().standing_of_run(run).await?;
            let Some(covering) = standing.into_iter().find(|s| s.covers(next)) else {
                return Ok(decided);
            };
            let (run, next) = (run.clone(), next.clone());
            self.audit_standing(&run, &covering, "approved by standing approval", &next)
                .await?;
            let id = next.id().as_str().to_owned();
            match self
                .decide_once(&id, &covering.approver.id, Verdict::Approve, watch)
                .await
            {
                Ok(Recorded::Decided(next_decided)) => decided = next_decided,
                // Never with two approvers, which no standing approval
                // is given for; a person decides it.
                Ok(Recorded::Waiting(_)) => return Ok(decided),
                Err(error) => {
                    tracing::info!(
                        target: "host_example::approvals",
                        standing = covering.id.as_str(),
                        proposal = id.as_str(),
                        %error,
                        "a standing approval's approval was refused; the proposal waits for a person"
                    );
                    return Ok(decided);
                }
            }
        }
    }

    /// The approval policy of `proposal`'s tool under the settings now.
    pub(super) async fn policy_of(&self, proposal: &Proposal) -> Result<ApprovalPolicy, HostError> {
        let Some(tool) = self.host.registry().get(proposal.tool()) else {
            return Ok(ApprovalPolicy::default());
        };
        let declaration = tool.declaration();
        let settings = self.host.store().config().host_settings().await?;
        Ok(ApprovalPolicy::of(
            &settings,
            &declaration.name,
            &declaration.group,
        ))
    }

    async fn audit_standing(
        &self,
        run: &RunId,
        standing: &StandingApproval,
        what: &str,
        proposal: &Proposal,
    ) -> Result<(), HostError> {
        let mut entry = AuditEntry::new(AuditKind::Write, &standing.approver.id, what);
        entry.run = Some(run.0.clone());
        entry.tool = Some(standing.tool.clone());
        entry.detail = Some(format!(
            "standing approval {} ({}), proposal {}",
            standing.id,
            standing.limit,
            proposal.id().as_str()
        ));
        Ok(self.host.store().audit_log().audit(&entry).await?)
    }
}

/// `standing-` and 16 random hex digits.
fn new_standing_id() -> String {
    let mut bytes = [0u8; 8];
    OsRng.fill_bytes(&mut bytes);
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("standing-{hex}")
}
