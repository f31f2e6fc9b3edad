//! The playground (every signed-in user, as the command line's `run` is:
//! the gates decide what each is offered): the model configuration, a
//! prompt, skills, the tools a run is offered (a group's box ticks its tools), the
//! rounds cap and whether to keep the provider's raw answers; then a dry
//! run ([`Runs::dry_run`](crate::app::Host): the first request exactly as
//! it would be sent, without asking the model) or a run
//! ([`Runs::start_run`](crate::app::Host), the same path as the command
//! line's) watched live in the inspector ([`super::live`],
//! [`super::inspector`]). Below it, why the tools not offered are not
//! ([`super::why_not`]).

use axum::Form;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use maud::{Markup, html};
use tool_core::agent::ContextBudget;

use super::WebState;
use super::draft::Draft;
use super::inspector::Inspector;
use super::layout::{self, OrFailure, csrf_field};
use super::session::SignedIn;
use super::why_not::{self, ForUser};
use crate::app::runs::MAX_ROUNDS;
use crate::app::runs::{DryRunReport, RunEnded};
use crate::app::{HostError, Offer, RunChoices};

/// What the page shows below the form.
enum Outcome {
    Nothing,
    DryRun(Box<DryRunReport>),
    Live(String),
    Problem(String),
}

/// The form, with why the tools not offered are not: the signed-in
/// person's own, or (an administrator) anyone's chosen with `?for=NAME`.
pub(super) async fn page(
    State(state): State<WebState>,
    user: SignedIn,
    Query(query): Query<ForUser>,
) -> Response {
    render(&state, &user, &query, &Draft::default(), Outcome::Nothing).await
}

pub(super) async fn dry_run(
    State(state): State<WebState>,
    user: SignedIn,
    Form(pairs): Form<Vec<(String, String)>>,
) -> Response {
    let draft = Draft::read(pairs);
    let outcome = match state
        .host
        .runs()
        .dry_run(&user.name, &draft.request())
        .await
    {
        Ok(report) => Outcome::DryRun(Box::new(report)),
        Err(error) => Outcome::Problem(error.to_string()),
    };
    render(&state, &user, &ForUser::default(), &draft, outcome).await
}

/// Starts the run in the background and sends the browser to its live
/// page at once.
pub(super) async fn run(
    State(state): State<WebState>,
    user: SignedIn,
    Form(pairs): Form<Vec<(String, String)>>,
) -> Response {
    let draft = Draft::read(pairs);
    let model = match state
        .host
        .runs()
        .model_config_named(draft.model.as_deref())
        .await
        .or_failure()
    {
        Ok(loaded) => loaded,
        Err(response) => return response,
    };
    let request = draft.request();
    // The app's rule for every run, asked first to answer in the form.
    if let Err(problem) = request.check() {
        let problem = Outcome::Problem(problem.to_string());
        return render(&state, &user, &ForUser::default(), &draft, problem).await;
    }
    let (id, live) = state.live.begin(&user.name, draft);
    let host = state.host.clone();
    let name = user.name.clone();
    let watcher = live.clone();
    let running = tokio::spawn(async move {
        let mut inspector = Inspector::new(live, model);
        match host.runs().start_run(&name, request, &mut inspector).await {
            Ok(report) => {
                let suspended = matches!(report.ended, RunEnded::Suspended(_));
                inspector.ended(&report.run.0, suspended);
            }
            Err(error) => inspector.failed(&error.to_string()),
        }
    });
    tokio::spawn(async move {
        // A run that panicked still ends its inspector.
        if running.await.is_err() {
            watcher.push(r#"{"event":"error","message":"the run stopped unexpectedly"}"#.into());
            watcher.finish();
        }
    });
    Redirect::to(&format!("/playground/live/{id}")).into_response()
}

/// A run started from the playground, its form as it was sent.
pub(super) async fn live(
    State(state): State<WebState>,
    user: SignedIn,
    Path(id): Path<String>,
) -> Response {
    let Some(live) = state.live.get(&id, &user.actor()) else {
        let body =
            html! { p { "No such run in this playground: it may be from before a restart." } };
        return (
            StatusCode::NOT_FOUND,
            layout::page("Playground", Some(&user), body),
        )
            .into_response();
    };
    render(
        &state,
        &user,
        &ForUser::default(),
        &live.draft,
        Outcome::Live(id),
    )
    .await
}

/// Every tool the gates offer `user` now, by group.
async fn offered(state: &WebState, user: &SignedIn) -> Result<Offer, HostError> {
    state.host.admin().offer(&user.actor()).await
}

async fn render(
    state: &WebState,
    user: &SignedIn,
    why_for: &ForUser,
    draft: &Draft,
    outcome: Outcome,
) -> Response {
    let why_not = match why_not::section(state, user, why_for, "/playground").await {
        Ok(section) => section,
        Err(response) => return response,
    };
    let loaded = async {
        Ok::<_, HostError>((
            state.host.runs().run_choices().await?,
            offered(state, user).await?,
        ))
    };
    let (choices, offered) = match loaded.await.or_failure() {
        Ok(loaded) => loaded,
        Err(response) => return response,
    };
    let RunChoices {
        model,
        models,
        skills,
    } = choices;
    let body = html! {
        form.playground method="post" action="/playground/dry-run" {
            (csrf_field(user))
            label.model {
                "Model configuration "
                select name="model" {
                    @match &model {
                        Some(model) => option value="" selected[draft.model.is_none()] { "model: " (model.model) " at " (model.base_url) },
                        None => option value="" selected[draft.model.is_none()] { "none configured (setting model)" },
                    }
                    @for (name, model) in &models {
                        option value=(name) selected[draft.model.as_deref() == Some(name.as_str())] {
                            (name) ": " (model.model) " at " (model.base_url)
                        }
                    }
                }
            }
            label.prompt { "Prompt" br; textarea name="prompt" rows="4" cols="80" { (draft.prompt) } }
            fieldset.skills {
                legend { "Skills" }
                @if skills.is_empty() {
                    p { "No skills in the skills folders (setting " code { "skills_folders" } ")." }
                }
                @for skill in &skills {
                    label { input type="checkbox" name="skills" value=(skill) checked[draft.skills.contains(skill)]; " " (skill) " " }
                }
            }
            fieldset.tools {
                legend { "Tools offered to a run of yours now (" (offered.tools().count()) "; none ticked: all)" }
                @for (group, tools) in &offered.by_group {
                    fieldset.group data-group=(group) {
                        legend {
                            label { input.group-box type="checkbox" name="groups" value=(group) checked[draft.groups.contains(group)]; " " strong { (group) } }
                        }
                        ul {
                            @for tool in tools {
                                li.offered-tool data-tool=(tool) {
                                    label {
                                        input.tool-box type="checkbox" name="tools" value=(tool) data-group=(group)
                                            checked[draft.tools.contains(tool) || draft.groups.contains(group)];
                                        " " code { (tool) }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            label { "Rounds cap " input type="number" name="rounds" min="1" max=(MAX_ROUNDS) value=(draft.rounds); }
            " "
            label { input type="checkbox" name="capture_raw" checked[draft.capture_raw]; " Keep the provider's raw answers" }
            p {
                button.run type="submit" formaction="/playground/run" { "Run" }
                " "
                button.dry type="submit" { "Dry run" }
            }
        }
        @match &outcome {
            Outcome::Nothing => {},
            Outcome::Problem(problem) => p.problem role="alert" { (problem) },
            Outcome::DryRun(report) => (dry_run_section(report)),
            Outcome::Live(id) => (inspector_shell(id)),
        }
        (why_not)
        script src="/static/playground.js" {}
    };
    layout::page("Playground", Some(user), body).into_response()
}

fn dry_run_section(report: &DryRunReport) -> Markup {
    let tools: Vec<&str> = report.dry.grant.tool_names().collect();
    html! {
        section.dry-run {
            h2 { "What would be sent (dry run: the model was not asked)" }
            (budget_table(&report.dry.budget))
            h3 { "Tools offered (" (tools.len()) ")" }
            ul.dry-tools { @for tool in &tools { li.dry-tool data-tool=(tool) { code { (tool) } } } }
            h3 { "The request body" }
            pre.request { (serde_json::to_string_pretty(&report.body).unwrap_or_default()) }
        }
    }
}

fn budget_table(budget: &ContextBudget) -> Markup {
    let limits = budget.limits;
    let rows = [
        ("Window", limits.window.to_string()),
        ("Output reserve", limits.output_reserve.to_string()),
        ("Safety margin", limits.safety_margin.to_string()),
        ("System prompt", budget.system_prompt.to_string()),
        ("Skills", budget.skills.to_string()),
        ("Tool schemas", budget.tool_schemas.to_string()),
        ("Transcript", budget.transcript.to_string()),
        ("Estimated total", budget.total().to_string()),
        ("Left", budget.left().to_string()),
    ];
    html! {
        table.budget {
            caption { "Context budget, in tokens (an estimate: bytes / 4)" }
            @for (name, value) in rows { tr { th { (name) } td { (value) } } }
        }
    }
}

/// The inspector, filled by `static/playground.js` from the run's events.
fn inspector_shell(id: &str) -> Markup {
    let fields = [
        ("status", "Status"),
        ("rounds", "Rounds"),
        ("tool_calls", "Tool calls"),
        ("prompt_tokens", "Prompt tokens"),
        ("completion_tokens", "Completion tokens"),
        ("cost", "Estimated cost"),
        ("wall_ms", "Wall time (ms)"),
    ];
    html! {
        section #inspector data-events=(format!("/playground/live/{id}/events")) {
            h2 { "Inspector" }
            dl #summary {
                @for (field, name) in fields {
                    div { dt { (name) } dd data-field=(field) { "–" } }
                }
            }
            ol #steps {}
        }
    }
}
