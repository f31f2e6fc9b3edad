//! The people page (administrators, `/users`): add a user, set a password,
//! make a bearer token (shown once, on the page that made it), list and
//! revoke tokens, make or unmake an administrator, lift a sign-in lock.
//! Each form calls the app layer, which checks the administrator again,
//! keeps the rules (never the last administrator; the name's form) and
//! audits; the page only says what happened.

use std::collections::BTreeMap;

use axum::Form;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Redirect, Response};
use maud::html;
use serde::Deserialize;

use super::WebState;
use super::layout::{self, OrFailure, csrf_field, when};
use super::session::{Admin, SignedIn};
use crate::app::HostError;

pub(super) async fn page(State(state): State<WebState>, Admin(user): Admin) -> Response {
    render(&state, &user, None).await
}

/// The page, with `made` (a token just made) at the top.
async fn render(state: &WebState, user: &SignedIn, made: Option<(String, String)>) -> Response {
    let loaded = async {
        let people = state.host.users().await?;
        let locks = state.host.sign_in_locks(&user.name).await?;
        let mut tokens = BTreeMap::new();
        for person in &people {
            let theirs = state.host.tokens(&user.name, &person.name).await?;
            tokens.insert(person.name.clone(), theirs);
        }
        Ok::<_, HostError>((people, locks, tokens))
    };
    let (people, locks, tokens) = match loaded.await.or_failure() {
        Ok(loaded) => loaded,
        Err(response) => return response,
    };
    let body = html! {
        @if let Some((name, token)) = &made {
            section #new-token role="status" {
                h2 { "New token for " (name) }
                p { "Copy it now: it is shown this once, and only its hash is kept." }
                p { code #token-value { (token) } }
            }
        }
        section #add-user {
            h2 { "Add a user" }
            form.add-user method="post" action="/users/add" {
                (csrf_field(user))
                label { "Name " input name="name" required autocomplete="off"; }
                " "
                label { "Password " input type="password" name="password" autocomplete="new-password"; }
                " "
                label { input type="checkbox" name="admin" value="on"; " Administrator" }
                " "
                button type="submit" { "Add user" }
            }
            p.hint { "Without a password they sign in by token only (MCP)." }
        }
        @if !locks.is_empty() {
            section #locks {
                h2 { "Sign-in locked" }
                ul {
                    @for lock in &locks {
                        li.lock data-name=(lock.name) {
                            code { (lock.name) } ": " (lock.failures) " failed sign-ins, locked until " (when(lock.until)) " "
                            form.inline method="post" action={"/users/" (lock.name) "/unlock"} {
                                (csrf_field(user))
                                button type="submit" { "Unlock " (lock.name) }
                            }
                        }
                    }
                }
            }
        }
        section #people {
            h2 { "People" }
            @for person in &people {
                @let theirs = tokens.get(&person.name).map(Vec::as_slice).unwrap_or_default();
                @let name = person.name.as_str();
                article.person id={"user-" (name)} data-name=(name) data-admin=(person.admin) {
                    h3 { (name) @if person.admin { " (administrator)" } }
                    p {
                        "Added " (when(person.created_at)) "; "
                        (if person.has_password { "has a password" } else { "no password (token only)" })
                        "; " (theirs.len()) " token" (if theirs.len() == 1 { "" } else { "s" }) "."
                    }
                    div.actions {
                        form method="post" action={"/users/" (name) "/password"} {
                            (csrf_field(user))
                            label { "New password for " (name) " "
                                input type="password" name="password" required autocomplete="new-password";
                            }
                            " "
                            button type="submit" { "Set password" }
                        }
                        form method="post" action={"/users/" (name) "/token"} {
                            (csrf_field(user))
                            button type="submit" { "Make a token for " (name) }
                        }
                        form method="post" action={"/users/" (name) "/admin"} {
                            (csrf_field(user))
                            input type="hidden" name="admin" value=(if person.admin { "off" } else { "on" });
                            button type="submit" {
                                (if person.admin { "Unmake administrator: " } else { "Make administrator: " }) (name)
                            }
                        }
                    }
                    @if !theirs.is_empty() {
                        table.tokens {
                            caption { "Tokens of " (name) }
                            thead { tr { th { "Id" } th { "Made" } th { "Revoke" } } }
                            tbody {
                                @for token in theirs {
                                    tr.token data-id=(token.id) {
                                        td { code { (token.id) } }
                                        td { (when(token.created_at)) }
                                        td {
                                            form method="post" action={"/users/" (name) "/tokens/" (token.id) "/revoke"} {
                                                (csrf_field(user))
                                                button type="submit" { "Revoke " (token.id) }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    };
    layout::page("People", Some(user), body).into_response()
}

#[derive(Deserialize)]
pub(super) struct NewUser {
    name: String,
    #[serde(default)]
    password: String,
    admin: Option<String>,
}

pub(super) async fn add(
    State(state): State<WebState>,
    Admin(user): Admin,
    Form(form): Form<NewUser>,
) -> Response {
    let password = Some(form.password.as_str()).filter(|p| !p.is_empty());
    let added = state
        .host
        .add_user(&user.name, form.name.trim(), form.admin.is_some(), password)
        .await;
    let done = format!("User {} added.", form.name.trim());
    answer(&state, &user, added.map(drop), done)
}

#[derive(Deserialize)]
pub(super) struct NewPassword {
    password: String,
}

pub(super) async fn password(
    State(state): State<WebState>,
    Admin(user): Admin,
    Path(name): Path<String>,
    Form(form): Form<NewPassword>,
) -> Response {
    let set = state
        .host
        .reset_password(&user.name, &name, &form.password)
        .await;
    answer(&state, &user, set, format!("Password of {name} set."))
}

/// Makes a token and shows it on the page this once (never in a notice
/// kept in the session, nor in an address).
pub(super) async fn token(
    State(state): State<WebState>,
    Admin(user): Admin,
    Path(name): Path<String>,
) -> Response {
    match state.host.new_token(&user.name, &name).await {
        Ok(token) => render(&state, &user, Some((name, token))).await,
        Err(error) => answer(&state, &user, Err(error), String::new()),
    }
}

pub(super) async fn revoke(
    State(state): State<WebState>,
    Admin(user): Admin,
    Path((name, id)): Path<(String, String)>,
) -> Response {
    let revoked = state.host.revoke_token(&user.name, &name, &id).await;
    answer(
        &state,
        &user,
        revoked,
        format!("Token {id} of {name} revoked."),
    )
}

#[derive(Deserialize)]
pub(super) struct AdminSwitch {
    admin: String,
}

pub(super) async fn admin(
    State(state): State<WebState>,
    Admin(user): Admin,
    Path(name): Path<String>,
    Form(form): Form<AdminSwitch>,
) -> Response {
    let on = form.admin == "on";
    let set = state.host.set_admin(&user.name, &name, on).await;
    let done = if on {
        format!("{name} is an administrator.")
    } else {
        format!("{name} is no longer an administrator.")
    };
    answer(&state, &user, set, done)
}

pub(super) async fn unlock(
    State(state): State<WebState>,
    Admin(user): Admin,
    Path(name): Path<String>,
) -> Response {
    let lifted = state.host.unlock(&user.name, &name).await;
    let done = match &lifted {
        Ok(true) => format!("Sign-in of {name} unlocked."),
        _ => format!("Sign-in of {name} was not held back."),
    };
    answer(&state, &user, lifted.map(drop), done)
}

/// Back to the people page with `done` or why not; 403 for someone the app
/// layer says is no administrator (they lost it since the page loaded).
fn answer(
    state: &WebState,
    user: &SignedIn,
    outcome: Result<(), HostError>,
    done: String,
) -> Response {
    let notice = match outcome {
        Ok(()) => done,
        Err(HostError::NotAdmin { .. }) => return layout::forbidden(user),
        Err(error) => format!("Not done: {error}"),
    };
    state.sessions.notify(&user.session, notice);
    Redirect::to("/users").into_response()
}
