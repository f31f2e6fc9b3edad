//! The approvals inbox (everyone signed in, each seeing the proposals they
//! may decide: [`Approvals::inbox`](crate::Host::inbox)): pending proposals as
//! cards, approve, reject with a reason, edit the arguments (the tool
//! checks the edit and its proposal is shown before it is approved), the
//! proposals of one run decided together; and the decisions made, with who
//! decided what and when. Every decision goes through the host's middle
//! layer, which re-gates the approver and then continues the run: its
//! answer is in the notice and on the run's page.

use axum::Form;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Redirect, Response};
use maud::{Markup, html};
use serde::Deserialize;
use serde_json::Value;
use tool_core::approval::Decision;
use tool_core::{Proposal, RunId};

use super::WebState;
use super::layout::{self, OrFailure, csrf_field, when};
use super::runs::status_text;
use super::session::{self, SignedIn};
use crate::app::approvals::inbox::PendingEntry;
use crate::app::approvals::{Applied, NOT_APPLIED, Recorded, Verdict};
use crate::app::runs::RunEnded;

/// How many decided proposals the inbox lists.
const DECIDED_SHOWN: usize = 50;

pub(super) async fn page(State(state): State<WebState>, user: SignedIn) -> Response {
    let inbox = match state
        .host
        .approvals()
        .inbox(&user.name, DECIDED_SHOWN)
        .await
        .or_failure()
    {
        Ok(inbox) => inbox,
        Err(response) => return response,
    };
    let body = html! {
        h2 { "Pending" }
        @if inbox.pending.is_empty() { p.empty { "Nothing waits for a decision of yours." } }
        @for entry in &inbox.pending {
            (card(&user, entry))
        }
        h2 { "Decided" }
        @if inbox.decided.is_empty() { p { "Nothing decided yet." } }
        table.decided {
            thead { tr { th { "When" } th { "Decision" } th { "By" } th { "Tool" } th { "Record" } th { "Summary" } th { "Reason" } th { "Run" } } }
            tbody {
                @for entry in &inbox.decided {
                    tr data-proposal=(entry.stored.proposal.id().as_str()) {
                        td { (when(entry.at)) }
                        td.status {
                            @if entry.not_applied.is_some() { (NOT_APPLIED.to_lowercase()) } @else { (entry.stored.status) }
                        }
                        td.by { (entry.decision.approver().map_or("nobody (expired)", |a| a.id.as_str())) }
                        td { code { (entry.stored.proposal.tool()) } }
                        td { (entry.stored.proposal.record) }
                        td { (entry.stored.proposal.summary) }
                        td {
                            @if let Decision::Rejected { reason, .. } = &entry.decision { (reason) }
                            @if let Some(why) = &entry.not_applied { (why) }
                        }
                        td { a href={"/runs/" (entry.stored.run.0)} { "run by " (entry.requester) } }
                    }
                }
            }
        }
    };
    layout::page("Approvals", Some(&user), body).into_response()
}

fn card(user: &SignedIn, entry: &PendingEntry) -> Markup {
    let stored = &entry.view.stored;
    let proposal = &stored.proposal;
    let id = proposal.id().as_str();
    let run = stored.run.0.as_str();
    let arguments = serde_json::to_string_pretty(proposal.arguments()).unwrap_or_default();
    html! {
        article.card data-proposal=(id) data-run=(run) {
            h4 { code.tool { (proposal.tool()) } " on " span.record { (proposal.record) } }
            p.summary { (proposal.summary) }
            p.meta {
                "Requested by " strong.requester { (entry.view.requester) }
                " in " a href={"/runs/" (run)} { "run " code { (run) } }
                " · expires " (when(entry.expires_at))
            }
            (values(proposal))
            @if let Some(held) = &entry.view.held {
                p.held { (held) }
            }
            @if let Some(needs) = &entry.view.still_needs {
                p.needs { (needs) }
                form method="post" action={"/approvals/" (id) "/withdraw"} {
                    (csrf_field(user))
                    button.withdraw type="submit" { "Withdraw my approval" }
                }
            }
            form method="post" action={"/approvals/" (id) "/approve"} {
                (csrf_field(user))
                button.approve type="submit" { "Approve" }
            }
            @if entry.call.is_some() {
                form.standing method="post" action={"/approvals/" (id) "/approve-standing"} {
                    (csrf_field(user))
                    label {
                        "Approve, and the rest of this run's "
                        code { (proposal.tool()) }
                        " changes to "
                        select name="scope" {
                            option value="record" { "this record" }
                            option value="field" { "these fields" }
                            option value="kind" { "records of this kind" }
                        }
                    }
                    button.approve-standing type="submit" { "Approve for the rest of the run" }
                }
            }
            form method="post" action={"/approvals/" (id) "/reject"} {
                (csrf_field(user))
                input name="reason" placeholder="Why not (the model reads this)" required;
                button.reject type="submit" { "Reject" }
            }
            details.edit {
                summary { "Edit the arguments and approve" }
                form method="post" action={"/approvals/" (id) "/edit"} {
                    (csrf_field(user))
                    textarea name="arguments" rows="6" cols="60" { (arguments) }
                    button.check type="submit" { "Check the edit" }
                }
            }
            @if !entry.queued.is_empty() {
                (together(user, entry))
            }
        }
    }
}

/// The write calls queued behind this one, and the forms that decide them
/// all: the pending call and every queued one, each as it is proposed.
fn together(user: &SignedIn, entry: &PendingEntry) -> Markup {
    let stored = &entry.view.stored;
    let run = stored.run.0.as_str();
    let calls: Vec<&str> = entry
        .call
        .iter()
        .map(String::as_str)
        .chain(entry.queued.iter().map(|c| c.id.as_str()))
        .collect();
    let calls = calls.join(",");
    let count = entry.queued.len() + 1;
    html! {
        div.together {
            p { "The same response asked for " (entry.queued.len()) " more change(s), each proposed once this one is decided:" }
            ul.queued {
                @for call in &entry.queued {
                    li { code { (call.name) } " " code { (call.arguments) } }
                }
            }
            form method="post" action={"/approvals/run/" (run)} {
                (csrf_field(user))
                input type="hidden" name="calls" value=(calls);
                input type="hidden" name="verdict" value="approve";
                button.approve-all type="submit" { "Approve all " (count) " of this run" }
            }
            form method="post" action={"/approvals/run/" (run)} {
                (csrf_field(user))
                input type="hidden" name="calls" value=(calls);
                input type="hidden" name="verdict" value="reject";
                input name="reason" placeholder="Why not, for all of them" required;
                button.reject-all type="submit" { "Reject all " (count) }
            }
        }
    }
}

/// The fields a proposal changes: new and replaced values side by side.
fn values(proposal: &Proposal) -> Markup {
    html! {
        div.values {
            strong { "Field" } strong { "New value" } strong { "Replaces" }
            @for change in &proposal.changes {
                span.field { (change.field) }
                span.new { (shown(&change.new)) }
                span.replaces { (shown(&change.replaces)) }
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
    let decided = state
        .host
        .approvals()
        .decide(&id, &user.name, Verdict::Approve, &mut ())
        .await;
    let said = decided.map(|d| said(&d)).map_err(|e| e.to_string());
    back(&state, &user, said).await
}

#[derive(Deserialize)]
pub(super) struct StandingForm {
    scope: String,
}

/// Approves and gives a standing approval of the rest of the run.
pub(super) async fn approve_standing(
    State(state): State<WebState>,
    user: SignedIn,
    Path(id): Path<String>,
    Form(form): Form<StandingForm>,
) -> Response {
    let decided = state
        .host
        .approvals()
        .approve_standing(&id, &user.name, &form.scope, &mut ())
        .await
        .map(|d| said(&d))
        .map_err(|e| e.to_string());
    back(&state, &user, decided).await
}

/// Takes back the signed-in person's first approval of two.
pub(super) async fn withdraw(
    State(state): State<WebState>,
    user: SignedIn,
    Path(id): Path<String>,
) -> Response {
    let withdrawn = state
        .host
        .approvals()
        .withdraw_approval(&id, &user.name)
        .await
        .map(|()| "Your approval was withdrawn".to_owned())
        .map_err(|e| e.to_string());
    back(&state, &user, withdrawn).await
}

#[derive(Deserialize)]
pub(super) struct Edit {
    arguments: String,
}

/// The edit checked by the tool, and its proposal shown for approval.
pub(super) async fn preview_edit(
    State(state): State<WebState>,
    user: SignedIn,
    Path(id): Path<String>,
    Form(edit): Form<Edit>,
) -> Response {
    let arguments: Value = match serde_json::from_str(&edit.arguments) {
        Ok(arguments) => arguments,
        Err(error) => {
            let refused = format!("the edited arguments are not JSON: {error}");
            return back(&state, &user, Err(refused)).await;
        }
    };
    let checked = state
        .host
        .approvals()
        .preview_edit(&id, &user.name, arguments.clone())
        .await;
    let edited = match checked {
        Ok(edited) => edited,
        Err(error) => return back(&state, &user, Err(error.to_string())).await,
    };
    let body = html! {
        article.card.edited data-proposal=(id) {
            p { "The tool checked your edit. Approving it applies this change:" }
            h4 { code.tool { (edited.tool()) } " on " span.record { (edited.record) } }
            p.summary { (edited.summary) }
            (values(&edited))
            form method="post" action={"/approvals/" (id) "/edit/confirm"} {
                (csrf_field(&user))
                input type="hidden" name="arguments" value=(arguments);
                button.approve type="submit" { "Approve with this edit" }
            }
            p { a href="/approvals" { "Back to the inbox (nothing decided)" } }
        }
    };
    layout::page("Check the edit", Some(&user), body).into_response()
}

pub(super) async fn approve_edited(
    State(state): State<WebState>,
    user: SignedIn,
    Path(id): Path<String>,
    Form(edit): Form<Edit>,
) -> Response {
    let decided = match serde_json::from_str(&edit.arguments) {
        Ok(arguments) => state
            .host
            .approvals()
            .decide(&id, &user.name, Verdict::ApproveEdited(arguments), &mut ())
            .await
            .map(|d| said(&d))
            .map_err(|e| e.to_string()),
        Err(error) => Err(format!("the edited arguments are not JSON: {error}")),
    };
    back(&state, &user, decided).await
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
    let decided = state
        .host
        .approvals()
        .reject(&id, &user.name, &rejection.reason, &mut ())
        .await
        .map(|d| said(&d))
        .map_err(|e| e.to_string());
    back(&state, &user, decided).await
}

#[derive(Deserialize)]
pub(super) struct Together {
    calls: String,
    verdict: String,
    #[serde(default)]
    reason: String,
}

pub(super) async fn decide_run(
    State(state): State<WebState>,
    user: SignedIn,
    Path(run): Path<String>,
    Form(form): Form<Together>,
) -> Response {
    let verdict = match form.verdict.as_str() {
        "approve" => Verdict::Approve,
        "reject" => Verdict::Reject(form.reason),
        _ => return back(&state, &user, Err("approve or reject".into())).await,
    };
    let calls: Vec<String> = form.calls.split(',').map(str::to_owned).collect();
    let decided = state
        .host
        .approvals()
        .decide_together(&RunId(run), &user.name, verdict, &calls, &mut ())
        .await;
    let said = match decided {
        Ok(list) if list.is_empty() => Err("the run waits for none of these".to_owned()),
        Ok(list) => Ok(list
            .iter()
            .map(|one| match &one.outcome {
                Ok(recorded) => said(recorded),
                Err(why) => format!("{}: not decided: {why}", one.proposal.summary),
            })
            .collect::<Vec<_>>()
            .join(" · ")),
        Err(error) => Err(error.to_string()),
    };
    back(&state, &user, said).await
}

/// What a decision came to, for the notice: what was applied and how the
/// run went on. Nothing written reads `Not applied` first, as at every
/// door, and the notice shows it as a warning ([`layout`]).
fn said(recorded: &Recorded) -> String {
    let decided = match recorded {
        // The first approval of two is recorded: done, for now.
        Recorded::Waiting(waiting) => return format!("Recorded: {waiting}"),
        Recorded::Decided(decided) => decided,
    };
    let mut text = match (&decided.decision, &decided.applied) {
        (_, Some(applied @ Applied::NotApplied { .. })) => {
            applied.not_applied().unwrap_or_default()
        }
        (Decision::Approved { .. }, Some(Applied::Written(written))) => {
            format!("Approved and applied: {written}")
        }
        (Decision::Approved { .. }, None) => "Approved".to_owned(),
        (Decision::Rejected { .. }, _) => "Rejected".to_owned(),
        _ => "Expired".to_owned(),
    };
    text.push_str(&match decided.report.as_ref().map(|r| &r.ended) {
        None => ". It was one call's proposal: no run goes on".to_owned(),
        Some(RunEnded::Finished(finished)) => match &finished.answer {
            Some(answer) => format!(". The run answered: {answer}"),
            None => format!(
                ". The run ended without an answer: {}",
                status_text(&finished.status)
            ),
        },
        Some(RunEnded::Suspended(next)) => {
            format!(". The run proposed another change: {}", next.summary)
        }
    });
    text
}

async fn back(state: &WebState, user: &SignedIn, said: Result<String, String>) -> Response {
    let notice = said.unwrap_or_else(|reason| format!("Nothing was written: {reason}"));
    session::notify(state, user, notice).await;
    Redirect::to("/approvals").into_response()
}
