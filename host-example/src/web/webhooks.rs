//! The webhooks on the settings page `/settings/webhooks` (administrators):
//! each webhook with its events and its secret's last four characters, a
//! form to add or change one, its removal, and the dead-letter list with a
//! retry for each. Every form is one call of the app layer
//! (`Jobs::put_webhook`, `remove_webhook`, `retry_delivery`), as the command
//! line's `webhooks` commands; a secret the host makes is shown on the page
//! that answers the form, this once, and never kept in the session.

use axum::Form;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Redirect, Response};
use maud::{Markup, html};

use super::WebState;
use super::layout::{self, csrf_field, when};
use super::session::{self, Admin, SignedIn};
use tool_core::DataClass;

use crate::app::HostError;
use crate::app::webhooks::WebhookEvent;

/// How many dead deliveries the page lists.
const DEAD_SHOWN: usize = 50;

/// The webhooks section of the settings page.
pub(super) async fn section(state: &WebState, user: &SignedIn) -> Markup {
    let webhooks = state.host.jobs().webhooks(&user.name).await;
    let dead = state
        .host
        .jobs()
        .dead_deliveries(&user.name, DEAD_SHOWN)
        .await;
    html! {
        section #webhooks {
            h2 { "Webhooks" }
            @match &webhooks {
                Err(error) => p.problem { (error) },
                Ok(webhooks) if webhooks.is_empty() => p { "No webhook is set." },
                Ok(webhooks) => table {
                    thead { tr { th { "Name" } th { "URL" } th { "Events" } th { "Values up to" } th { "Secret" } th { "" } } }
                    tbody {
                        @for webhook in webhooks {
                            tr data-webhook=(webhook.name) {
                                td { (webhook.name) }
                                td { code { (webhook.url) } }
                                td { (webhook.events.join(", ")) }
                                td { (webhook.data_class) }
                                td { (webhook.secret_hint) }
                                td {
                                    form.inline method="post" action={"/settings/webhooks/" (webhook.name) "/remove"} {
                                        (csrf_field(user))
                                        button type="submit" { "Remove " (webhook.name) }
                                    }
                                }
                            }
                        }
                    }
                },
            }
            h3 { "Add or change a webhook" }
            form #webhook-form method="post" action="/settings/webhooks/save" {
                (csrf_field(user))
                label { "Name " input name="name" required pattern="[A-Za-z0-9_-]{1,64}"; }
                " "
                label { "URL " input name="url" type="url" required size="50"; }
                fieldset {
                    legend { "Events" }
                    @for event in WebhookEvent::ALL {
                        label { input type="checkbox" name="event" value=(event.name()); " " (event.name()) }
                        " "
                    }
                }
                label { "Values up to (a proposal's values above this class are left out; empty: kept, or internal for a new one) "
                    select name="data_class" {
                        option value="" { "—" }
                        @for class in ["public", "internal", "confidential", "personal"] {
                            option value=(class) { (class) }
                        }
                    }
                }
                " "
                label { "Secret (empty: the host makes one, or a changed webhook keeps its own) "
                    input name="secret" type="password" autocomplete="new-password" minlength="16";
                }
                " "
                button type="submit" { "Save webhook" }
            }
            h3 { "Dead letters" }
            p { "Deliveries whose last attempt failed. Retrying one queues it again with its attempts counted afresh." }
            @match &dead {
                Err(error) => p.problem { (error) },
                Ok(dead) if dead.is_empty() => p #dead-letters { "None." },
                Ok(dead) => table #dead-letters {
                    thead { tr { th { "Event" } th { "Webhook" } th { "Happened" } th { "Attempts" } th { "Last error" } th { "" } } }
                    tbody {
                        @for delivery in dead {
                            tr data-delivery=(delivery.id) {
                                td { (delivery.event) }
                                td { (delivery.webhook) }
                                td { (when(delivery.created_at)) }
                                td { (delivery.attempts) }
                                td { (delivery.last_error.as_deref().unwrap_or_default()) }
                                td {
                                    form.inline method="post" action={"/settings/webhooks/retry/" (delivery.id)} {
                                        (csrf_field(user))
                                        button type="submit" { "Retry" }
                                    }
                                }
                            }
                        }
                    }
                },
            }
        }
    }
}

/// Adds or changes a webhook: the form's `name`, `url`, `secret` and one
/// `event` per ticked box.
pub(super) async fn save(
    State(state): State<WebState>,
    Admin(user): Admin,
    Form(form): Form<Vec<(String, String)>>,
) -> Response {
    let value = |key: &str| {
        form.iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.trim().to_owned())
            .unwrap_or_default()
    };
    let events: Vec<String> = form
        .iter()
        .filter(|(k, _)| k == "event")
        .map(|(_, v)| v.clone())
        .collect();
    let name = value("name");
    let secret = value("secret");
    let data_class = match parse_class(&value("data_class")) {
        Ok(class) => class,
        Err(problem) => return layout::failure(&problem),
    };
    let saved = state
        .host
        .jobs()
        .put_webhook(
            &user.name,
            &name,
            &value("url"),
            &events,
            Some(secret.as_str()).filter(|s| !s.is_empty()),
            data_class,
        )
        .await;
    match saved {
        Ok(saved) => match saved.new_secret {
            // Shown on this answer only, never kept in the session.
            Some(secret) => {
                let body = html! {
                    div #new-secret .notice role="status" {
                        "The secret of " code { (name) } ", shown this once: " code { (secret) }
                    }
                    p { "Give it to the receiver now: it is never shown again in full." }
                    p { a href="/settings/webhooks" { "Back to the webhooks" } }
                };
                super::layout::page("Webhook saved", Some(&user), body).into_response()
            }
            None => back(&state, &user, format!("Saved webhook {name}.")).await,
        },
        Err(refusal @ HostError::NotAdmin { .. }) => super::layout::forbidden(&user, &refusal),
        Err(error) => back(&state, &user, format!("Not saved: {error}")).await,
    }
}

/// Removes a webhook.
pub(super) async fn remove(
    State(state): State<WebState>,
    Admin(user): Admin,
    Path(name): Path<String>,
) -> Response {
    let notice = match state.host.jobs().remove_webhook(&user.name, &name).await {
        Ok(()) => format!("Removed webhook {name}."),
        Err(refusal @ HostError::NotAdmin { .. }) => {
            return super::layout::forbidden(&user, &refusal);
        }
        Err(error) => format!("Not removed: {error}"),
    };
    back(&state, &user, notice).await
}

/// Queues a dead delivery again.
pub(super) async fn retry(
    State(state): State<WebState>,
    Admin(user): Admin,
    Path(id): Path<String>,
) -> Response {
    let notice = match state.host.jobs().retry_delivery(&user.name, &id).await {
        Ok(()) => "Queued again.".to_owned(),
        Err(refusal @ HostError::NotAdmin { .. }) => {
            return super::layout::forbidden(&user, &refusal);
        }
        Err(error) => format!("Not queued: {error}"),
    };
    back(&state, &user, notice).await
}

async fn back(state: &WebState, user: &SignedIn, notice: String) -> Response {
    session::notify(state, user, notice).await;
    Redirect::to("/settings/webhooks").into_response()
}

/// A data class as a form names it; `None` for none chosen.
fn parse_class(text: &str) -> Result<Option<DataClass>, String> {
    if text.is_empty() {
        return Ok(None);
    }
    text.parse().map(Some)
}
