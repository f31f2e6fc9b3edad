//! An action on several records: the ids pasted beside a selected record,
//! the preview (which can run, which are skipped and why, a rough
//! estimate), the press that starts them, and its report. The rules are
//! the host's ([`crate::app::actions::batch`]): a press stores the batch as
//! a job the host's worker runs, and its page shows the report as it grows
//! (reloading itself while the batch runs), from any process.

use axum::Form;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use maud::{Markup, html};
use serde::Deserialize;

use super::WebState;
use super::layout::{self, csrf_field};
use super::session::SignedIn;
use crate::app::actions::Action;
use crate::app::actions::batch::{Estimate, MOST_PER_PRESS, MOST_READ, RunKind};

/// The token budget a batch form starts with.
const DEFAULT_BUDGET: u64 = 200_000;

#[derive(Deserialize)]
pub(super) struct Selected {
    tool: String,
    from: u64,
}

fn unknown_action(user: &SignedIn, tool: &str) -> Response {
    let body = html! { p { "There is no action `" (tool) "`." } };
    (
        StatusCode::NOT_FOUND,
        layout::page("Several records", Some(user), body),
    )
        .into_response()
}

pub(super) async fn form(user: SignedIn, Query(selected): Query<Selected>) -> Response {
    let Some(action) = Action::of_tool(&selected.tool) else {
        return unknown_action(&user, &selected.tool);
    };
    let kind = action.kind.as_str();
    let body = html! {
        p {
            "Run " strong { (action.label) } " (" code { (action.tool) } ") on several " (kind) "s, "
            "starting from " (kind) " " (selected.from) ". Paste " (kind) " ids, separated by spaces, commas or lines: "
            "the first " (MOST_READ) " are read; a press starts at most " (MOST_PER_PRESS) " runs."
        }
        form.batch method="post" action="/actions/batch/preview" {
            (csrf_field(&user))
            input type="hidden" name="tool" value=(action.tool);
            label { "Ids" br; textarea name="ids" rows="6" cols="60" { (selected.from) } }
            label { "Note for the model" br; textarea name="note" rows="3" cols="60" {} }
            label { "Token budget for this batch " input type="number" name="budget" min="1" value=(DEFAULT_BUDGET); }
            button.preview type="submit" { "Preview" }
        }
    };
    layout::page("Several records", Some(&user), body).into_response()
}

#[derive(Deserialize)]
pub(super) struct Pasted {
    tool: String,
    ids: String,
    #[serde(default)]
    note: String,
    budget: u64,
}

pub(super) async fn preview(
    State(state): State<WebState>,
    user: SignedIn,
    Form(pasted): Form<Pasted>,
) -> Response {
    let Some(action) = Action::of_tool(&pasted.tool) else {
        return unknown_action(&user, &pasted.tool);
    };
    let preview = match state
        .host
        .runs()
        .preview_batch(&user.name, &action, &pasted.ids)
        .await
    {
        Ok(preview) => preview,
        Err(error) => return layout::failure(&error.to_string()),
    };
    let kind = action.kind.as_str();
    let ids: Vec<String> = preview.runnable.iter().map(|r| r.id.to_string()).collect();
    let body = html! {
        @if preview.cut > 0 {
            p.problem.cut { "Only the first " (MOST_READ) " ids were read; " (preview.cut) " more were cut." }
        }
        h2 { (preview.runnable.len()) " can run" }
        ul.runnable {
            @for record in &preview.runnable { li data-record=(record.id) { (record.name) } }
        }
        @if preview.runnable.len() > MOST_PER_PRESS {
            p.press { "A press starts the first " (MOST_PER_PRESS) "; the report names the rest, for the next press." }
        }
        h2 { (preview.skipped.len()) " skipped" }
        table.skipped {
            thead { tr { th { "Pasted" } th { "Why" } } }
            tbody {
                @for skipped in &preview.skipped {
                    tr { td { code { (skipped.text) } } td.why { (skipped.why) } }
                }
            }
        }
        h2 { "Estimate" }
        (estimate(&preview.estimate))
        @if !preview.runnable.is_empty() {
            form.start method="post" action="/actions/batch/start" {
                (csrf_field(&user))
                input type="hidden" name="tool" value=(action.tool);
                input type="hidden" name="ids" value=(ids.join(" "));
                input type="hidden" name="note" value=(pasted.note);
                input type="hidden" name="budget" value=(pasted.budget);
                p { "Note: " (if pasted.note.trim().is_empty() { "none" } else { pasted.note.as_str() }) " · budget " (pasted.budget) " tokens" }
                button.start type="submit" {
                    "Start " (preview.runnable.len().min(MOST_PER_PRESS)) " " (kind) " run(s)"
                }
            }
        }
    };
    layout::page("Several records: preview", Some(&user), body).into_response()
}

/// The estimate as a person reads it: ranges, and "unknown" where the
/// model configuration does not say (never a made-up zero).
fn estimate(estimate: &Estimate) -> Markup {
    let range = |(low, high): (u64, u64)| format!("{low} to {high}");
    html! {
        dl.estimate {
            dt { "Runs" } dd { (estimate.runs) }
            dt { "Requests" } dd.requests { (range(estimate.requests)) }
            dt { "Tokens read" } dd.input { "about " (range(estimate.input_tokens)) }
            dt { "Tokens written" } dd.output {
                @match estimate.output_tokens {
                    Some(output) => { "at most " (output.1) }
                    None => { "unknown (the model configuration sets no output ceiling)" }
                }
            }
            dt { "Cost" } dd.cost {
                @match estimate.cost {
                    Some((low, high)) => { (format!("{low:.4} to {high:.4}")) }
                    None => { "unknown (the model configuration needs input and output prices and an output ceiling)" }
                }
            }
        }
    }
}

#[derive(Deserialize)]
pub(super) struct Press {
    tool: String,
    ids: String,
    #[serde(default)]
    note: String,
    budget: u64,
}

pub(super) async fn start(
    State(state): State<WebState>,
    user: SignedIn,
    Form(press): Form<Press>,
) -> Response {
    let Some(action) = Action::of_tool(&press.tool) else {
        return unknown_action(&user, &press.tool);
    };
    // The same reading as the preview's: a forged longer list is cut too.
    let (texts, _) = crate::app::actions::batch::read_ids(&press.ids);
    let ids: Vec<u64> = texts.iter().filter_map(|t| t.parse().ok()).collect();
    let job = match state
        .host
        .runs()
        .start_batch(&user.name, &action, &ids, &press.note, press.budget)
        .await
    {
        Ok(job) => job,
        Err(error) => return layout::failure(&error.to_string()),
    };
    Redirect::to(&format!("/actions/batch/report/{job}")).into_response()
}

pub(super) async fn report(
    State(state): State<WebState>,
    user: SignedIn,
    Path(job): Path<String>,
) -> Response {
    let Ok(batch) = state.host.runs().batch(&user.name, &job).await else {
        let body = html! { p { "No such report, or not yours to see." } };
        return (
            StatusCode::NOT_FOUND,
            layout::page("Batch report", Some(&user), body),
        )
            .into_response();
    };
    let report = &batch.report;
    let body = html! {
        p.status data-status=(batch.status.as_str()) {
            @if batch.is_live() {
                "Running: " span.done { (report.runs.len()) } " of " span.total { (batch.total) } " done (this page reloads itself)."
            } @else if let Some(error) = &batch.error {
                "Stopped: " (error)
            } @else {
                "Finished: " span.done { (report.runs.len()) } " of " span.total { (batch.total) } " done."
            }
        }
        p { code { (batch.tool) } ": " (report.runs.len()) " run(s) done · " (report.spent) " of " (report.budget) " tokens spent" }
        table.counts {
            tbody {
                @for kind in RunKind::ALL {
                    tr data-kind=(kind.as_str()) {
                        th { (kind.label()) } td.count { (report.count(kind)) }
                    }
                }
            }
        }
        @if !report.kept_by_budget.is_empty() {
            p.problem.kept {
                "The budget ran out: the batch stopped and kept these from starting: "
                (join(&report.kept_by_budget))
            }
        }
        @if !report.next_press.is_empty() {
            p.next-press {
                "At most " (MOST_PER_PRESS) " runs start per press; not started yet: "
                (join(&report.next_press))
            }
        }
        table.batch {
            thead { tr { th { "Record" } th { "Run" } th { "Ended" } th { "Said" } } }
            tbody {
                @for run in &report.runs {
                    tr data-record=(run.record) {
                        td { (run.record) }
                        td { @if let Some(id) = &run.run { a href={"/runs/" (id.0)} { code { (id.0) } } } }
                        td.kind { (run.kind.label()) }
                        td { (run.said) }
                    }
                }
            }
        }
    };
    let page = layout::page("Batch report", Some(&user), body);
    if batch.is_live() {
        // Chromium and Firefox reload on `Refresh`: live progress, no script.
        ([(axum::http::header::REFRESH, "1")], page).into_response()
    } else {
        page.into_response()
    }
}

fn join(ids: &[u64]) -> String {
    ids.iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}
