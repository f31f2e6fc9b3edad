//! The settings pages (administrators, `/settings` and a page per concern
//! below it): the model configurations (with a test of each), the trust
//! zone, the skills folders and the rule for unapproved skills, the egress
//! sites, and access (OAuth, browser origins, trusted proxies, how long a
//! browser session lasts). Each form
//! sets one setting through [`Admin::set_setting`](crate::app::Host), the
//! command line's `settings set`: the same check against the setting's
//! type, the same audit, nothing stored when it does not fit.

use axum::Form;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use maud::{Markup, html};
use serde::Deserialize;
use serde_json::Value;

use super::WebState;
use super::layout::{self, OrFailure, csrf_field};
use super::session::{self, Admin, SignedIn};
use crate::app::{HostError, SettingKey};

/// How a setting is written in its form.
#[derive(Clone, Copy)]
enum Input {
    /// One choice of a few JSON strings.
    Choice(&'static [&'static str]),
    /// A list of strings, one a line.
    Lines,
    /// JSON text as the command line takes it; empty is `null`.
    Json,
    /// One line of text, a JSON string; empty is `null`.
    Text,
}

struct Field {
    key: SettingKey,
    input: Input,
    help: &'static str,
}

/// One page of settings.
struct Concern {
    slug: &'static str,
    title: &'static str,
    intro: &'static str,
    fields: &'static [Field],
}

const CONCERNS: &[Concern] = &[
    Concern {
        slug: "models",
        title: "Model configurations",
        intro: "The model runs use unless they name another, and further configurations by name. \
                Each is an object with base_url and model, and optionally api_key_env, timeout_secs, \
                max_retries, max_tokens, context_window, input_price_per_mtok and output_price_per_mtok.",
        fields: &[
            Field {
                key: SettingKey::Model,
                input: Input::Json,
                help: r#"{"base_url": "http://localhost:11434/v1", "model": "qwen3:8b"}, or empty for none"#,
            },
            Field {
                key: SettingKey::Models,
                input: Input::Json,
                help: r#"{"large": {"base_url": "…", "model": "…"}}"#,
            },
        ],
    },
    Concern {
        slug: "trust-zone",
        title: "Trust zone",
        intro: "The most sensitive data a run's model may see: a tool returning more sensitive data \
                is not offered (the tools page says which).",
        fields: &[Field {
            key: SettingKey::TrustZone,
            input: Input::Choice(&["public", "internal", "confidential", "personal"]),
            help: "",
        }],
    },
    Concern {
        slug: "skills",
        title: "Skills",
        intro: "The folders holding skill folders, and what runs do with a skill no administrator \
                approved (refuse: no tools, no text; allow: used as if approved, noted in the run).",
        fields: &[
            Field {
                key: SettingKey::SkillsFolders,
                input: Input::Lines,
                help: "one folder a line",
            },
            Field {
                key: SettingKey::UnapprovedSkills,
                input: Input::Choice(&["refuse", "allow"]),
                help: "",
            },
        ],
    },
    Concern {
        slug: "sites",
        title: "Egress sites",
        intro: "The host's own sites: the only places a tool of a group with egress own_site may reach.",
        fields: &[Field {
            key: SettingKey::Sites,
            input: Input::Lines,
            help: "one origin a line, https://www.example.com",
        }],
    },
    Concern {
        slug: "access",
        title: "OAuth and access",
        intro: "The OAuth issuer whose access tokens MCP over HTTP accepts, the browser origins \
                besides this server's own that may send requests, the proxies whose \
                X-Forwarded-For the sign-in throttle believes, and how long a browser stays \
                signed in.",
        fields: &[
            Field {
                key: SettingKey::OAuth,
                input: Input::Json,
                help: r#"{"issuer": "https://id.example", "resource": "https://host.example/mcp", "jwks_uri": "https://id.example/jwks.json"}, or empty for none"#,
            },
            Field {
                key: SettingKey::AllowedOrigins,
                input: Input::Lines,
                help: "one origin a line",
            },
            Field {
                key: SettingKey::TrustedProxies,
                input: Input::Lines,
                help: "one IP address a line",
            },
            Field {
                key: SettingKey::BrowserSessions,
                input: Input::Json,
                help: r#"{"idle_seconds": 3600, "lifetime_seconds": 43200}: signed out after an hour unused, and twelve hours after signing in"#,
            },
        ],
    },
    Concern {
        slug: "webhooks",
        title: "Webhooks",
        intro: "Signed webhooks on proposals (created, decided, expired) and failed runs: the \
                address people reach these pages at (for the links a payload carries), how \
                deliveries are retried, each webhook, and the deliveries that failed their last \
                attempt. docs/webhooks.md says how a receiver checks the signature.",
        fields: &[
            Field {
                key: SettingKey::PublicUrl,
                input: Input::Text,
                help: "https://host.example, or empty for no links",
            },
            Field {
                key: SettingKey::WebhookDelivery,
                input: Input::Json,
                help: r#"{"attempts": 8, "backoff_seconds": [10, 30, 120, 600, 1800, 3600, 10800], "timeout_seconds": 10}"#,
            },
            Field {
                key: SettingKey::WebhookTargets,
                input: Input::Json,
                help: r#"{"allow_local_network": false}: loopback and private addresses only when true; link-local and cloud metadata addresses never"#,
            },
        ],
    },
];

fn concern(slug: &str) -> Option<&'static Concern> {
    CONCERNS.iter().find(|c| c.slug == slug)
}

/// The index: one link per concern.
pub(super) async fn index(Admin(user): Admin) -> Response {
    let body = html! {
        ul.concerns {
            @for concern in CONCERNS {
                li { a href={"/settings/" (concern.slug)} { (concern.title) } " — " (concern.intro) }
            }
        }
        p { "Tool and group switches are on the " a href="/tools" { "tools page" } "; users on the " a href="/users" { "people page" } "." }
    };
    layout::page("Settings", Some(&user), body).into_response()
}

pub(super) async fn page(
    State(state): State<WebState>,
    Admin(user): Admin,
    Path(slug): Path<String>,
) -> Response {
    render(&state, &user, &slug, None).await
}

/// The page of `slug`, with `tested` (a model test's outcome) on it.
async fn render(
    state: &WebState,
    user: &SignedIn,
    slug: &str,
    tested: Option<(String, Result<String, String>)>,
) -> Response {
    let Some(concern) = concern(slug) else {
        let body = html! { p { "There is no such settings page." } };
        return (
            StatusCode::NOT_FOUND,
            layout::page("Settings", Some(user), body),
        )
            .into_response();
    };
    let settings = match state.host.admin().settings(&user.name).await.or_failure() {
        Ok(settings) => settings,
        Err(response) => return response,
    };
    let value_of = |key: SettingKey| {
        settings
            .iter()
            .find(|s| s.key == key)
            .map_or(Value::Null, |s| s.value.clone())
    };
    let body = html! {
        p.intro { (concern.intro) }
        p { a href="/settings" { "All settings" } }
        @for field in concern.fields {
            (field_form(user, concern, field, &value_of(field.key)))
        }
        @if concern.slug == "models" {
            (model_tests(state, user, tested).await)
        }
        @if concern.slug == "webhooks" {
            (super::webhooks::section(state, user).await)
        }
    };
    layout::page(concern.title, Some(user), body).into_response()
}

fn field_form(user: &SignedIn, concern: &Concern, field: &Field, value: &Value) -> Markup {
    let name = field.key.name();
    let id = format!("setting-{name}");
    html! {
        form.setting method="post" action={"/settings/" (concern.slug)} id=(id) data-key=(name) {
            (csrf_field(user))
            input type="hidden" name="key" value=(name);
            @match field.input {
                Input::Choice(choices) => {
                    label { code { (name) } " "
                        select name="value" {
                            @for choice in choices {
                                option value=(choice) selected[value.as_str() == Some(*choice)] { (choice) }
                            }
                        }
                    }
                }
                Input::Lines => {
                    label { code { (name) } " (" (field.help) ")" br;
                        textarea name="value" rows="3" cols="60" {
                            @for line in value.as_array().into_iter().flatten() {
                                (line.as_str().unwrap_or_default()) "\n"
                            }
                        }
                    }
                }
                Input::Text => {
                    label { code { (name) } " (" (field.help) ")" br;
                        input name="value" size="50" value=(value.as_str().unwrap_or_default());
                    }
                }
                Input::Json => {
                    label { code { (name) } " (JSON: " (field.help) ")" br;
                        textarea name="value" rows="6" cols="60" {
                            @if !value.is_null() { (serde_json::to_string_pretty(value).unwrap_or_default()) }
                        }
                    }
                }
            }
            " "
            button type="submit" { "Save " (name) }
        }
    }
}

/// Each configured model with a button that tests it, and the last
/// test's outcome.
async fn model_tests(
    state: &WebState,
    user: &SignedIn,
    tested: Option<(String, Result<String, String>)>,
) -> Markup {
    let choices = state.host.runs().run_choices().await.ok();
    let mut names: Vec<String> = Vec::new();
    if choices.as_ref().is_some_and(|c| c.model.is_some()) {
        names.push(String::new());
    }
    names.extend(choices.into_iter().flat_map(|c| c.models.into_keys()));
    html! {
        section #model-tests {
            h2 { "Test a configuration" }
            p { "Sends one small request (no tools) and shows the answer or the error." }
            @if names.is_empty() { p { "No model is configured." } }
            @for name in &names {
                form.inline method="post" action="/settings/models/test" {
                    (csrf_field(user))
                    input type="hidden" name="model" value=(name);
                    button type="submit" {
                        "Test " (if name.is_empty() { "the default (model)" } else { name.as_str() })
                    }
                }
            }
            @if let Some((name, outcome)) = &tested {
                @let label = if name.is_empty() { "the default (model)" } else { name.as_str() };
                @match outcome {
                    Ok(answer) => div #test-result .notice role="status" data-ok="true" {
                        "Tested " (label) ": the model answered: " q { (answer) }
                    },
                    Err(error) => div #test-result .problem role="alert" data-ok="false" {
                        "Tested " (label) ": " (error)
                    },
                }
            }
        }
    }
}

#[derive(Deserialize)]
pub(super) struct SettingForm {
    key: String,
    value: String,
}

/// Sets one setting of the page's concern, written as the form writes it.
pub(super) async fn save(
    State(state): State<WebState>,
    Admin(user): Admin,
    Path(slug): Path<String>,
    Form(form): Form<SettingForm>,
) -> Response {
    let field = concern(&slug).and_then(|c| c.fields.iter().find(|f| f.key.name() == form.key));
    let saved = match field {
        None => Err(HostError::Invalid(format!(
            "there is no setting `{}` on this page",
            form.key
        ))),
        Some(field) => {
            let json = as_json(field.input, &form.value);
            state
                .host
                .admin()
                .set_setting(&user.name, field.key.name(), &json)
                .await
                .map(drop)
        }
    };
    let notice = match saved {
        Ok(()) => format!("Saved {}.", form.key),
        Err(refusal @ HostError::NotAdmin { .. }) => return layout::forbidden(&user, &refusal),
        Err(error) => format!("Not saved: {error}"),
    };
    session::notify(&state, &user, notice).await;
    if concern(&slug).is_some() {
        Redirect::to(&format!("/settings/{slug}")).into_response()
    } else {
        Redirect::to("/settings").into_response()
    }
}

/// The JSON text `settings set` would be given for what the form sent.
fn as_json(input: Input, value: &str) -> String {
    match input {
        Input::Choice(_) => Value::String(value.to_owned()).to_string(),
        Input::Lines => Value::from(
            value
                .lines()
                .map(str::trim)
                .filter(|line| !line.is_empty())
                .collect::<Vec<_>>(),
        )
        .to_string(),
        Input::Json | Input::Text if value.trim().is_empty() => "null".to_owned(),
        Input::Text => Value::String(value.trim().to_owned()).to_string(),
        Input::Json => value.to_owned(),
    }
}

#[derive(Deserialize)]
pub(super) struct ModelTest {
    model: String,
}

/// Tests one model configuration and shows the models page with the
/// outcome.
pub(super) async fn test_model(
    State(state): State<WebState>,
    Admin(user): Admin,
    Form(form): Form<ModelTest>,
) -> Response {
    let name = Some(form.model.as_str()).filter(|n| !n.is_empty());
    let outcome = match state.host.runs().test_model(&user.name, name).await {
        Ok(answer) => Ok(answer),
        Err(refusal @ HostError::NotAdmin { .. }) => return layout::forbidden(&user, &refusal),
        Err(error) => Err(error.to_string()),
    };
    render(&state, &user, "models", Some((form.model, outcome))).await
}
