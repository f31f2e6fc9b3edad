//! Deciding proposals from the inbox, through tool-core's one approval
//! path ([`Approval`]): it re-checks the run's grant and re-gates the
//! approver; nothing here repeats a check.
//!
//! This builds the run's inputs from what the store keeps (the run's user
//! and grant, the settings and trust zone as they are now) because the
//! host's own approvals layer is not in this tree yet; once it is, these
//! functions become calls to it, and a suspended run continues from there.

use std::sync::Arc;

use serde_json::Value;
use site_model::Site;
use tool_core::approval::{Approval, ApprovalError};
use tool_core::gates::{RunConfig, RunInputs, Selection};
use tool_core::{Actor, ProposalId, RunId, ToolContext};

use super::WebState;
use crate::store::{AuditEntry, AuditKind, StoredProposal};

/// What the approver asked for.
pub(super) enum Verdict {
    Approve,
    ApproveEdited(Value),
    Reject(String),
}

/// Decides the proposal `id` as `approver`; `Ok` says what happened, `Err`
/// why nothing was written.
pub(super) async fn decide(
    state: &WebState,
    approver: &Actor,
    id: &ProposalId,
    verdict: Verdict,
) -> Result<String, String> {
    let stored = state
        .store
        .proposal(id)
        .await
        .map_err(|e| e.to_string())?
        .ok_or("there is no such proposal")?;
    let outcome = decide_stored(state, approver, &stored, verdict).await;
    let mut entry = AuditEntry::new(
        AuditKind::Write,
        approver.id.clone(),
        match &outcome {
            Ok(word) => word.as_str(),
            Err(_) => "refused",
        },
    );
    entry.run = Some(stored.run.0.clone());
    entry.tool = Some(stored.proposal.tool().to_owned());
    entry.detail = Some(match &outcome {
        Ok(_) => format!(
            "web: proposal {} on {}",
            id.as_str(),
            stored.proposal.record
        ),
        Err(reason) => format!("web: proposal {}: {reason}", id.as_str()),
    });
    state.store.audit(&entry).await.map_err(|e| e.to_string())?;
    outcome.map(|word| format!("{word}: {}", stored.proposal.summary))
}

/// Approves every pending proposal of `run`, each on its own.
pub(super) async fn approve_run(
    state: &WebState,
    approver: &Actor,
    run: &RunId,
) -> Result<Vec<Result<String, String>>, String> {
    let pending = state
        .store
        .pending_proposals()
        .await
        .map_err(|e| e.to_string())?;
    let mut results = Vec::new();
    for stored in pending.iter().filter(|p| &p.run == run) {
        results.push(decide(state, approver, stored.proposal.id(), Verdict::Approve).await);
    }
    Ok(results)
}

async fn decide_stored(
    state: &WebState,
    approver: &Actor,
    stored: &StoredProposal,
    verdict: Verdict,
) -> Result<String, String> {
    let store = &state.store;
    let failed = |e: crate::store::StoreError| e.to_string();
    let run = store
        .run(&stored.run)
        .await
        .map_err(failed)?
        .ok_or("the proposal's run is not stored")?;
    let proposer = Actor {
        admin: store
            .user(&run.user)
            .await
            .map_err(failed)?
            .is_some_and(|u| u.admin),
        id: run.user.clone(),
    };
    let settings = store.host_settings().await.map_err(failed)?;
    let config = RunConfig {
        trust_zone: store.trust_zone().await.map_err(failed)?,
        ..RunConfig::default()
    };
    let decisions = store.approvals();
    let approval = Approval {
        registry: state.registry(),
        run: RunInputs {
            settings: &settings,
            actor: Some(&proposer),
            config: &config,
            skills: &[],
            selection: &Selection::All,
        },
        grant: Some(&run.grant),
        store: &decisions,
    };
    let site: Arc<dyn Site> = Arc::new(store.site());
    let cx = ToolContext::new(run.id.clone())
        .with_actor(proposer.clone())
        .with_service(site);
    let proposal = &stored.proposal;
    let said = |e: ApprovalError| e.to_string();
    match verdict {
        Verdict::Approve => approval
            .approve(proposal, approver, &cx)
            .await
            .map(|_| "Approved".to_owned())
            .map_err(said),
        Verdict::ApproveEdited(arguments) => approval
            .approve_edited(proposal, arguments, approver, &cx)
            .await
            .map(|_| "Approved with your edit".to_owned())
            .map_err(said),
        Verdict::Reject(reason) => approval
            .reject(proposal, approver, &reason)
            .await
            .map(|()| "Rejected".to_owned())
            .map_err(said),
    }
}
