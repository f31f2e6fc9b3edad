//! The skills page (administrators, `/skills`): every skill below the
//! skills folders with its state (approved, changed, never approved), for
//! a changed one the files that differ and a line diff of its `SKILL.md`,
//! and a button approving it, as `host-example skills approve` does.

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Redirect, Response};
use maud::{Markup, html};

use super::WebState;
use super::layout::{self, OrFailure, csrf_field, when};
use super::session::{self, Admin, SignedIn};
use crate::app::HostError;
use crate::app::skills::states::{DiffLine, SkillState};

pub(super) async fn page(State(state): State<WebState>, Admin(user): Admin) -> Response {
    let skills = match state
        .host
        .skills()
        .skill_states(&user.name)
        .await
        .or_failure()
    {
        Ok(skills) => skills,
        Err(response) => return response,
    };
    let body = html! {
        p { "The skills in the folders of the " a href="/settings/skills" { "skills settings" } ". A run trusts a skill only as it was approved: a changed file takes its tools away until it is approved again." }
        @if skills.is_empty() { p.empty { "No skill folders were found." } }
        @for skill in &skills {
            (skill_section(&user, skill))
        }
    };
    layout::page("Skills", Some(&user), body).into_response()
}

fn skill_section(user: &SignedIn, skill: &SkillState) -> Markup {
    html! {
        section.skill id={"skill-" (skill.name)} data-state=(skill.state) {
            h2 { code { (skill.name) } " " span.state { (skill.state) } }
            p.folder { "In " code { (skill.folder.display()) } }
            @if let Some((by, at)) = &skill.approved {
                p { "Approved by " (by) " at " (when(*at)) "." }
            }
            @if let Some(problem) = &skill.problem { p.problem { (problem) } }
            @if !skill.changes.is_empty() {
                h3 { "Changed since it was approved" }
                ul.changes { @for change in &skill.changes { li { (change) } } }
                @match &skill.diff {
                    Some(diff) => (diff_view(diff)),
                    None => p { "No diff: the approved text of SKILL.md was not kept (an approval from before it was), or SKILL.md did not change." },
                }
            }
            @if skill.state != "approved" {
                form method="post" action={"/skills/" (skill.name) "/approve"} {
                    (csrf_field(user))
                    button type="submit" { "Approve " (skill.name) }
                }
            }
        }
    }
}

fn diff_view(diff: &[DiffLine]) -> Markup {
    html! {
        pre.diff aria-label="SKILL.md: approved text against the text now" {
            @for line in diff {
                @match line {
                    DiffLine::Same(text) => span.same { "  " (text) "\n" },
                    DiffLine::Removed(text) => del.removed { "- " (text) "\n" },
                    DiffLine::Added(text) => ins.added { "+ " (text) "\n" },
                }
            }
        }
    }
}

pub(super) async fn approve(
    State(state): State<WebState>,
    Admin(user): Admin,
    Path(name): Path<String>,
) -> Response {
    let notice = match state.host.skills().approve_skill(&user.name, &name).await {
        Ok(()) => format!("Skill {name} approved."),
        Err(refusal @ HostError::NotAdmin { .. }) => return layout::forbidden(&user, &refusal),
        Err(error) => format!("Not approved: {error}"),
    };
    session::notify(&state, &user, notice).await;
    Redirect::to("/skills").into_response()
}
