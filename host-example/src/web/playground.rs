//! The playground (administrators): the model configuration, a prompt,
//! the groups a run may use and its rounds cap, and what a run would be
//! offered. A dry run assembles the request the model would get (the
//! messages and the offered tools in the provider's form, through
//! tool-core's export API) without calling it.

use std::collections::BTreeSet;

use axum::Form;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use maud::{Markup, html};
use serde_json::json;
use tool_core::export::{Provider, offered_tools};
use tool_core::gates::{Gates, RunConfig, RunInputs, Selection};

use super::WebState;
use super::layout::{self, csrf_field};
use super::session::{Admin, SignedIn};

/// The form as sent: `groups` repeats, so it is read from the raw pairs.
#[derive(Debug, Default)]
pub(super) struct Draft {
    prompt: String,
    groups: BTreeSet<String>,
    rounds: u32,
}

pub(super) async fn page(State(state): State<WebState>, Admin(user): Admin) -> Response {
    render(
        &state,
        &user,
        &Draft {
            rounds: 8,
            ..Draft::default()
        },
        None,
    )
    .await
}

pub(super) async fn dry_run(
    State(state): State<WebState>,
    Admin(user): Admin,
    Form(pairs): Form<Vec<(String, String)>>,
) -> Response {
    let mut draft = Draft {
        rounds: 8,
        ..Draft::default()
    };
    for (key, value) in pairs {
        match key.as_str() {
            "prompt" => draft.prompt = value,
            "groups" => {
                draft.groups.insert(value);
            }
            "rounds" => draft.rounds = value.parse().unwrap_or(8).clamp(1, 50),
            _ => {}
        }
    }
    render(&state, &user, &draft, Some(())).await
}

async fn render(state: &WebState, user: &SignedIn, draft: &Draft, dry: Option<()>) -> Response {
    let store = &state.store;
    let loaded = async {
        Ok::<_, crate::store::StoreError>((
            store.host_settings().await?,
            store.trust_zone().await?,
            store.model_config().await?,
        ))
    };
    let (settings, trust_zone, model) = match loaded.await {
        Ok(loaded) => loaded,
        Err(error) => return layout::failure(&error.to_string()),
    };
    let config = RunConfig {
        groups: draft.groups.clone(),
        trust_zone,
        ..RunConfig::default()
    };
    let actor = user.actor();
    let inputs = RunInputs {
        settings: &settings,
        actor: Some(&actor),
        config: &config,
        skills: &[],
        selection: &Selection::All,
    };
    let resolution = Gates::new(state.host.registry(), inputs).resolve();
    let groups: BTreeSet<&str> = state
        .host
        .registry()
        .tools()
        .iter()
        .map(|t| t.declaration().group.as_ref())
        .collect();
    let request = dry.map(|()| {
        json!({
            "model": model.as_ref().map(|m| m.model.as_str()),
            "messages": [{ "role": "user", "content": draft.prompt }],
            "tools": offered_tools(state.host.registry(), &resolution.grant, Provider::OpenAi),
            "rounds_cap": draft.rounds,
        })
    });
    let body = html! {
        section {
            h2 { "Model" }
            @match &model {
                Some(model) => pre.model { (serde_json::to_string_pretty(model).unwrap_or_default()) },
                None => p { "No model is configured (setting " code { "model" } ")." },
            }
        }
        form method="post" action="/playground/dry-run" {
            (csrf_field(user))
            label { "Prompt" br; textarea name="prompt" rows="4" cols="70" { (draft.prompt) } }
            fieldset {
                legend { "Groups (none ticked: all)" }
                @for group in &groups {
                    label { input type="checkbox" name="groups" value=(group) checked[draft.groups.contains(*group)]; " " (group) " " }
                }
            }
            label { "Rounds cap " input type="number" name="rounds" min="1" max="50" value=(draft.rounds); }
            p {
                button type="submit" { "Dry run" }
                " "
                button type="button" disabled title="needs the host's runs layer" { "Run" }
            }
        }
        (offered(&resolution.grant))
        @if let Some(request) = &request {
            section.dry-run {
                h2 { "What would be sent" }
                pre.request { (serde_json::to_string_pretty(request).unwrap_or_default()) }
            }
        }
    };
    layout::page("Playground", Some(user), body).into_response()
}

fn offered(grant: &tool_core::gates::Grant) -> Markup {
    html! {
        section.offered {
            h2 { "Offered to a run of yours now (" (grant.len()) ")" }
            ul { @for name in grant.tool_names() { li.offered-tool data-tool=(name) { code { (name) } } } }
        }
    }
}
