//! The approvals inbox (everyone signed in): pending proposals as cards,
//! approve, reject with a reason, approve with edited arguments, approve a
//! run's proposals together; and the proposals decided last.

use std::collections::BTreeMap;

use axum::Form;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Redirect, Response};
use maud::{Markup, html};
use serde::Deserialize;
use serde_json::Value;
use tool_core::approval::{DEFAULT_PROPOSAL_LIFETIME, Decision};
use tool_core::{ProposalId, RunId};

use super::WebState;
use super::decisions::{self, Verdict};
use super::layout::{self, OrFailure, csrf_field, when};
use super::session::SignedIn;
use crate::store::StoredProposal;

/// How many decided proposals the inbox lists.
const DECIDED_SHOWN: usize = 50;

pub(super) async fn page(State(state): State<WebState>, user: SignedIn) -> Response {
    let loaded = async {
        let pending = state.store.pending_proposals().await?;
        let mut requesters = BTreeMap::new();
        for stored in &pending {
            if let Some(run) = state.store.run(&stored.run).await? {
                requesters.insert(stored.run.0.clone(), run.user);
            }
        }
        let decided = state.store.decided_proposals(DECIDED_SHOWN).await?;
        Ok::<_, crate::store::StoreError>((pending, requesters, decided))
    };
    let (pending, requesters, decided) = match loaded.await.or_failure() {
        Ok(loaded) => loaded,
        Err(response) => return response,
    };
    let mut by_run: BTreeMap<&str, Vec<&StoredProposal>> = BTreeMap::new();
    for stored in &pending {
        by_run
            .entry(stored.run.0.as_str())
            .or_default()
            .push(stored);
    }
    let body = html! {
        h2 { "Pending" }
        @if pending.is_empty() { p.empty { "Nothing waits for a decision." } }
        @for (run, proposals) in &by_run {
            section.run data-run=(run) {
                h3 { "Run " code { (run) } " by " (requesters.get(*run).map_or("unknown", String::as_str)) }
                @if proposals.len() > 1 {
                    form method="post" action={"/approvals/run/" (run) "/approve-all"} {
                        (csrf_field(&user))
                        button type="submit" { "Approve all " (proposals.len()) " of this run" }
                    }
                }
                @for stored in proposals {
                    (card(&user, stored, requesters.get(*run).map_or("unknown", String::as_str)))
                }
            }
        }
        h2 { "Decided" }
        @if decided.is_empty() { p { "Nothing decided yet." } }
        table.decided {
            thead { tr { th { "When" } th { "Decision" } th { "By" } th { "Tool" } th { "Record" } th { "Summary" } th { "Reason" } } }
            tbody {
                @for (stored, decision, at) in &decided {
                    tr data-proposal=(stored.proposal.id().as_str()) {
                        td { (when(*at)) }
                        td.status { (stored.status) }
                        td { (decision.approver().map_or("nobody (expired)", |a| a.id.as_str())) }
                        td { code { (stored.proposal.tool()) } }
                        td { (stored.proposal.record) }
                        td { (stored.proposal.summary) }
                        td { @if let Decision::Rejected { reason, .. } = decision { (reason) } }
                    }
                }
            }
        }
    };
    layout::page("Approvals", Some(&user), body).into_response()
}

fn card(user: &SignedIn, stored: &StoredProposal, requester: &str) -> Markup {
    let proposal = &stored.proposal;
    let id = proposal.id().as_str();
    let expires = i64::try_from(proposal.created_at() + DEFAULT_PROPOSAL_LIFETIME.as_secs())
        .unwrap_or(i64::MAX);
    let arguments = serde_json::to_string_pretty(proposal.arguments()).unwrap_or_default();
    html! {
        article.card data-proposal=(id) {
            h4 { code.tool { (proposal.tool()) } " on " span.record { (proposal.record) } }
            p.summary { (proposal.summary) }
            p.meta { "Requested by " strong.requester { (requester) } " · expires " (when(expires)) }
            div.values {
                strong { "Field" } strong { "New value" } strong { "Replaces" }
                @for change in &proposal.changes {
                    span.field { (change.field) }
                    span.new { (shown(&change.new)) }
                    span.replaces { (shown(&change.replaces)) }
                }
            }
            form method="post" action={"/approvals/" (id) "/approve"} {
                (csrf_field(user))
                button.approve type="submit" { "Approve" }
            }
            form method="post" action={"/approvals/" (id) "/reject"} {
                (csrf_field(user))
                input name="reason" placeholder="Why not (the model reads this)" required;
                button.reject type="submit" { "Reject" }
            }
            details {
                summary { "Edit the arguments and approve" }
                form method="post" action={"/approvals/" (id) "/edit"} {
                    (csrf_field(user))
                    textarea name="arguments" rows="5" cols="60" { (arguments) }
                    button type="submit" { "Approve with edit" }
                }
            }
        }
    }
}

/// A value as a person reads it: strings bare, `null` as a dash.
fn shown(value: &Value) -> String {
    match value {
        Value::Null => "—".to_owned(),
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

pub(super) async fn approve(
    State(state): State<WebState>,
    user: SignedIn,
    Path(id): Path<String>,
) -> Response {
    let said = decisions::decide(
        &state,
        &user.actor(),
        &ProposalId::new(id),
        Verdict::Approve,
    )
    .await;
    back(&state, &user, said)
}

#[derive(Deserialize)]
pub(super) struct Edit {
    arguments: String,
}

pub(super) async fn approve_edited(
    State(state): State<WebState>,
    user: SignedIn,
    Path(id): Path<String>,
    Form(edit): Form<Edit>,
) -> Response {
    let said = match serde_json::from_str(&edit.arguments) {
        Ok(arguments) => {
            let verdict = Verdict::ApproveEdited(arguments);
            decisions::decide(&state, &user.actor(), &ProposalId::new(id), verdict).await
        }
        Err(error) => Err(format!("the edited arguments are not JSON: {error}")),
    };
    back(&state, &user, said)
}

#[derive(Deserialize)]
pub(super) struct Rejection {
    reason: String,
}

pub(super) async fn reject(
    State(state): State<WebState>,
    user: SignedIn,
    Path(id): Path<String>,
    Form(rejection): Form<Rejection>,
) -> Response {
    let reason = rejection.reason.trim();
    let said = if reason.is_empty() {
        Err("say why: the model reads the reason".to_owned())
    } else {
        let verdict = Verdict::Reject(reason.to_owned());
        decisions::decide(&state, &user.actor(), &ProposalId::new(id), verdict).await
    };
    back(&state, &user, said)
}

pub(super) async fn approve_all(
    State(state): State<WebState>,
    user: SignedIn,
    Path(run): Path<String>,
) -> Response {
    let said = match decisions::approve_run(&state, &user.actor(), &RunId(run)).await {
        Ok(results) => {
            let lines: Vec<String> = results
                .into_iter()
                .map(|r| r.unwrap_or_else(|reason| format!("Not applied: {reason}")))
                .collect();
            Ok(lines.join(" · "))
        }
        Err(reason) => Err(reason),
    };
    back(&state, &user, said)
}

fn back(state: &WebState, user: &SignedIn, said: Result<String, String>) -> Response {
    let notice = said.unwrap_or_else(|reason| format!("Nothing was written: {reason}"));
    state.sessions.notify(&user.session, notice);
    Redirect::to("/approvals").into_response()
}
