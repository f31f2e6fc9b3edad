//! "Why not" on the tools page and the playground: every tool the gates
//! would not offer one user now, with the gate that said no and why, from
//! [`Calls::tool_verdicts`](crate::app::Host) (the core's denials, the same
//! answer as `host-example tools --for USER`). A person sees their own; an
//! administrator picks anyone from a list (`?for=NAME`).

use axum::response::Response;
use maud::{Markup, html};
use serde::Deserialize;

use super::WebState;
use super::layout;
use super::session::SignedIn;
use crate::app::HostError;
use crate::app::calls::verdicts::ToolVerdict;

/// The query naming whose tools to explain.
#[derive(Debug, Default, Deserialize)]
pub(super) struct ForUser {
    #[serde(rename = "for")]
    pub subject: Option<String>,
}

/// The section for `user` asking about `query`'s subject (themselves by
/// default), its picker sending the form to `page`. Someone who is no
/// administrator asking about another user gets 403; an unknown name says
/// so in the section.
pub(super) async fn section(
    state: &WebState,
    user: &SignedIn,
    query: &ForUser,
    page: &str,
) -> Result<Markup, Response> {
    let subject = query
        .subject
        .as_deref()
        .filter(|s| !s.is_empty())
        .unwrap_or(&user.name);
    let verdicts = match state.host.calls().tool_verdicts(&user.name, subject).await {
        Ok(verdicts) => Ok(verdicts),
        Err(refusal @ HostError::NotAdmin { .. }) => return Err(layout::forbidden(user, &refusal)),
        Err(error) => match error.unknown_user() {
            Some(name) => Err(format!("There is no user `{name}`.")),
            None => return Err(layout::failure(&error.to_string())),
        },
    };
    let people = if user.admin {
        state
            .host
            .admin()
            .users(&user.name)
            .await
            .map_err(|e| layout::failure(&e.to_string()))?
    } else {
        Vec::new()
    };
    Ok(html! {
        section #why-not data-subject=(subject) {
            h2 { "Not offered to " (if subject == user.name { "you" } else { subject }) ", and why" }
            @if user.admin {
                form.for-user method="get" action=(page) {
                    label { "Explain for "
                        select name="for" {
                            @for person in &people {
                                option value=(person.name) selected[person.name == subject] { (person.name) }
                            }
                        }
                    }
                    " "
                    button type="submit" { "Show" }
                }
            }
            @match &verdicts {
                Err(problem) => p.problem role="alert" { (problem) },
                Ok(verdicts) => (table(verdicts)),
            }
        }
    })
}

fn table(verdicts: &[ToolVerdict]) -> Markup {
    let refused: Vec<&ToolVerdict> = verdicts.iter().filter(|v| !v.offered).collect();
    html! {
        p { (verdicts.len() - refused.len()) " of " (verdicts.len()) " tools are offered now." }
        @if !refused.is_empty() {
            table.why-not {
                thead { tr { th { "Tool" } th { "Group" } th { "Gate" } th { "Why not" } } }
                tbody {
                    @for verdict in &refused {
                        tr.refused data-tool=(verdict.tool) data-gate=[verdict.gate.as_deref()] {
                            td { code { (verdict.tool) } }
                            td { (verdict.group) }
                            td { (verdict.gate.as_deref().unwrap_or("")) }
                            td.reason { (verdict.reason.as_deref().unwrap_or("")) }
                        }
                    }
                }
            }
        }
    }
}
