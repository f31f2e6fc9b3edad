//! The runs: a person's own (everyone's for an administrator), each with
//! its status and answer, and one run's page: what it was asked, how it
//! went step by step, its proposals and how they were decided. A run that
//! is not the person's reads as one that does not exist.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use maud::html;
use tool_core::agent::{CallResult, Event, RunStatus};

use super::WebState;
use super::layout::{self, OrFailure, when};
use super::session::SignedIn;
use crate::app::runs::RunDetail;
use crate::app::{HostError, describe};

/// How many runs the list shows.
const RUNS_SHOWN: usize = 200;

/// The most characters of an answer the list shows.
const ANSWER_SHOWN: usize = 160;

pub(super) async fn list(State(state): State<WebState>, user: SignedIn) -> Response {
    let runs = match state
        .host
        .runs()
        .list(&user.name, RUNS_SHOWN)
        .await
        .or_failure()
    {
        Ok(runs) => runs,
        Err(response) => return response,
    };
    let body = html! {
        p { @if user.admin { "Every run, newest first." } @else { "The runs you started, newest first." } }
        @if runs.is_empty() { p.empty { "No runs yet." } }
        table.runs {
            thead { tr { th { "Run" } th { "Started" } th { "By" } th { "Status" } th { "Rounds" } th { "Answer" } } }
            tbody {
                @for run in &runs {
                    tr data-run=(run.id.0) {
                        td { a href={"/runs/" (run.id.0)} { code { (run.id.0) } } }
                        td { (when(run.created_at)) }
                        td.user { (run.user) }
                        td.status { (run.status) }
                        td { (run.rounds) }
                        td.answer { (shortened(run.answer.as_deref().unwrap_or(""))) }
                    }
                }
            }
        }
    };
    layout::page("Runs", Some(&user), body).into_response()
}

pub(super) async fn show(
    State(state): State<WebState>,
    user: SignedIn,
    Path(id): Path<String>,
) -> Response {
    let detail = match state.host.runs().run_detail(&user.name, &id).await {
        Ok(detail) => detail,
        Err(HostError::UnknownRun(_)) => {
            let body = html! { p { "No such run, or not yours to see." } };
            return (
                StatusCode::NOT_FOUND,
                layout::page("Run", Some(&user), body),
            )
                .into_response();
        }
        Err(error) => return layout::failure(&error.to_string()),
    };
    let RunDetail {
        run,
        events,
        proposals,
        ..
    } = detail;
    let body = html! {
        dl.run data-run=(run.id.0) {
            dt { "Started by" } dd.user { (run.user) }
            dt { "Started" } dd { (when(run.created_at)) }
            dt { "Status" } dd.status { (run.status) }
            dt { "Tokens" } dd { (run.usage.input_tokens) " in, " (run.usage.output_tokens) " out" }
            @if let Some(request) = &run.request {
                dt { "Asked" } dd { pre.prompt { (request.prompt) } }
            }
            dt { "Answer" } dd.answer { (run.answer.as_deref().unwrap_or("—")) }
        }
        @if !proposals.is_empty() {
            h2 { "Proposals" }
            table.proposals {
                thead { tr { th { "Tool" } th { "Record" } th { "Summary" } th { "Status" } th { "Decision" } } }
                tbody {
                    @for (stored, decision) in &proposals {
                        tr data-proposal=(stored.proposal.id().as_str()) {
                            td { code { (stored.proposal.tool()) } }
                            td { (stored.proposal.record) }
                            td { (stored.proposal.summary) }
                            td.status { (stored.status) }
                            td { (decision.as_ref().map(describe).unwrap_or_else(|| "waiting in the inbox".to_owned())) }
                        }
                    }
                }
            }
        }
        h2 { "Steps" }
        ol.steps {
            @for event in &events {
                @if let Some(line) = step(event) { li { (line) } }
            }
        }
        p { a href="/runs" { "All runs" } }
    };
    layout::page(&format!("Run {}", run.id.0), Some(&user), body).into_response()
}

/// One event as a line a person reads; the request and response bodies
/// are left to the playground's inspector.
fn step(event: &Event) -> Option<String> {
    Some(match event {
        Event::RoundStarted { round } => format!("Round {round} started"),
        Event::ResponseReceived { text, calls, .. } if calls.is_empty() => {
            format!("The model answered: {}", shortened(text))
        }
        Event::ResponseReceived { calls, .. } => {
            let names: Vec<&str> = calls.iter().map(|c| c.name.as_str()).collect();
            format!("The model called {}", names.join(", "))
        }
        Event::ToolExecuted {
            tool,
            arguments,
            result,
            ..
        } => match result {
            CallResult::Output { .. } => format!("{tool} {arguments}: ok"),
            CallResult::Error { detail, .. } => format!("{tool} {arguments}: {detail}"),
            CallResult::Proposed { .. } => format!("{tool} {arguments}: proposed a change"),
        },
        Event::Suspended { proposal, .. } => {
            format!("Waiting for approval: {}", proposal.summary)
        }
        Event::ExposureRaised {
            call_id,
            tool,
            exposure,
            withdrawn,
            ..
        } => crate::app::describe_exposure(tool, call_id, exposure, withdrawn),
        Event::Resumed { decision, .. } => format!("Resumed: {}", describe(decision)),
        Event::Finished { status, .. } => format!("Finished: {}", status_text(status)),
        _ => return None,
    })
}

/// How a run ended, in words.
pub(super) fn status_text(status: &RunStatus) -> String {
    match status {
        RunStatus::Completed => "completed".to_owned(),
        RunStatus::Truncated => "stopped at its round cap".to_owned(),
        RunStatus::Budget { reason } => format!("stopped by its budget ({reason})"),
        RunStatus::Failed { error } => format!("failed: {error}"),
        RunStatus::Cancelled => "cancelled".to_owned(),
        _ => "ended".to_owned(),
    }
}

/// `text` cut to [`ANSWER_SHOWN`] characters.
fn shortened(text: &str) -> String {
    if text.chars().count() <= ANSWER_SHOWN {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(ANSWER_SHOWN).collect();
    cut.push('…');
    cut
}
