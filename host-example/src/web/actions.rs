//! Actions on records, as the content browser offers them: each writing
//! tool on the records it fits, with a note field; starting one starts one
//! ordinary run through the host ([`Runs::start_action`](crate::app::Runs::start_action)) and shows it.
//!
//! [`Runs::start_action`](crate::app::Runs::start_action): crate::Host::start_action

use axum::Form;
use axum::extract::State;
use axum::response::{IntoResponse, Redirect, Response};
use maud::{Markup, html};
use serde::Deserialize;

use super::WebState;
use super::layout::csrf_field;
use super::session::{self, SignedIn};
use crate::app::actions::{ACTIONS, Action, RecordKind};
use crate::app::runs::RunEnded;

/// The actions `user` is offered (those whose tool passes their gates).
pub(super) async fn offered(state: &WebState, user: &SignedIn) -> Vec<Action> {
    let mut offered = Vec::new();
    for action in ACTIONS {
        // A failing store hides the action; starting it would report why.
        if let Ok(None) = state
            .host
            .runs()
            .action_denial(&action, &user.actor())
            .await
        {
            offered.push(action);
        }
    }
    offered
}

/// The forms of the `offered` actions that fit record `id` of `kind`; `back`
/// is the page to return to when one cannot start.
pub(super) fn forms(
    user: &SignedIn,
    offered: &[Action],
    kind: RecordKind,
    id: u64,
    back: &str,
) -> Markup {
    html! {
        @for action in offered.iter().filter(|a| a.kind == kind) {
            details.action data-tool=(action.tool) data-record=(id) {
                summary { (action.label) }
                form method="post" action="/actions/start" {
                    (csrf_field(user))
                    input type="hidden" name="tool" value=(action.tool);
                    input type="hidden" name="record" value=(id);
                    input type="hidden" name="back" value=(back);
                    textarea name="note" rows="3" cols="50" placeholder="A note for the model: what you want" {}
                    button.start type="submit" { "Start" }
                }
                a.several href={"/actions/batch?tool=" (action.tool) "&from=" (id)} {
                    "On several " (kind.as_str()) "s…"
                }
            }
        }
    }
}

#[derive(Deserialize)]
pub(super) struct Start {
    tool: String,
    record: u64,
    #[serde(default)]
    note: String,
    #[serde(default)]
    back: String,
}

pub(super) async fn start(
    State(state): State<WebState>,
    user: SignedIn,
    Form(form): Form<Start>,
) -> Response {
    // Only a page of the content browser: never a redirect elsewhere, nor
    // a header value that cannot be sent.
    let plain = |c: char| c.is_ascii_alphanumeric() || c == '/' || c == '-' || c == '_';
    let back = if form.back.starts_with("/content/") && form.back.chars().all(plain) {
        form.back.as_str()
    } else {
        "/content"
    };
    let Some(action) = Action::of_tool(&form.tool) else {
        let notice = format!("Not started: `{}` is not an action", form.tool);
        session::notify(&state, &user, notice).await;
        return Redirect::to(back).into_response();
    };
    let started = state
        .host
        .runs()
        .start_action(&user.name, &action, form.record, &form.note, &mut ())
        .await;
    match started {
        Ok(report) => {
            let notice = match &report.ended {
                RunEnded::Suspended(proposal) => format!(
                    "Started. The run proposed: {}. It waits in the approvals inbox.",
                    proposal.summary
                ),
                RunEnded::Finished(finished) => format!(
                    "Started. The run finished without a proposal: {}",
                    finished.answer.as_deref().unwrap_or("no answer")
                ),
            };
            session::notify(&state, &user, notice).await;
            Redirect::to(&format!("/runs/{}", report.run.0)).into_response()
        }
        Err(error) => {
            session::notify(&state, &user, error.to_string()).await;
            Redirect::to(back).into_response()
        }
    }
}
