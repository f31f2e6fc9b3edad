//! The people page (administrators, `/users`): add a user, set a password,
//! make a bearer token (shown once, on the page that made it), list and
//! revoke tokens, make or unmake an administrator, lift a sign-in lock,
//! and set each budget (and everyone's) beside what was spent.
//! Each form calls the app layer, which checks the administrator again,
//! keeps the rules (never the last administrator; the name's form) and
//! audits; the page only says what happened.

use std::collections::BTreeMap;

use axum::Form;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Redirect, Response};
use maud::{Markup, html};
use serde::Deserialize;

use super::WebState;
use super::layout::{self, OrFailure, csrf_field, when};
use super::session::{self, Admin, SignedIn};
use crate::app::HostError;
use crate::app::Limits;
use crate::app::budgets::UserBudget;

pub(super) async fn page(State(state): State<WebState>, Admin(user): Admin) -> Response {
    render(&state, &user, None).await
}

/// The page, with `made` (a token just made) at the top.
async fn render(state: &WebState, user: &SignedIn, made: Option<(String, String)>) -> Response {
    let loaded = async {
        let people = state.host.admin().users(&user.name).await?;
        let locks = state.host.sessions().sign_in_locks(&user.name).await?;
        let budgets: BTreeMap<String, UserBudget> = state
            .host
            .admin()
            .budgets(&user.name)
            .await?
            .into_iter()
            .map(|budget| (budget.name.clone(), budget))
            .collect();
        let default = state.host.admin().default_budget(&user.name).await?;
        let mut tokens = BTreeMap::new();
        for person in &people {
            let theirs = state.host.admin().tokens(&user.name, &person.name).await?;
            tokens.insert(person.name.clone(), theirs);
        }
        Ok::<_, HostError>((people, locks, tokens, budgets, default))
    };
    let (people, locks, tokens, budgets, default) = match loaded.await.or_failure() {
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
        section #default-budget {
            h2 { "Everyone's budget" }
            p { "Checked before every round of a run; a user's own budget replaces it whole. Empty: no limit." }
            (budget_form(user, "/users/default-budget", "the default", &default, false))
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
                    @if let Some(budget) = budgets.get(name) {
                        (budget_section(user, name, budget))
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

fn limit<T: std::fmt::Display>(value: Option<T>) -> String {
    value.map_or_else(String::new, |v| v.to_string())
}

/// A user's budget, what they spent, and the form that sets it.
fn budget_section(user: &SignedIn, name: &str, budget: &UserBudget) -> Markup {
    let l = &budget.limits;
    let of = |spent: String, limit: Option<String>| match limit {
        Some(limit) => format!("{spent} of {limit}"),
        None => format!("{spent} (no limit)"),
    };
    html! {
        div.budget data-name=(name) {
            h4 { "Budget" (if budget.own { " (their own)" } else { " (the default)" }) }
            dl.spent {
                dt { "Tokens today" } dd.day-tokens { (of(budget.day_tokens.to_string(), l.tokens_per_day.map(|t| t.to_string()))) }
                dt { "Tokens this month" } dd { (of(budget.month_tokens.to_string(), l.tokens_per_month.map(|t| t.to_string()))) }
                dt { "Estimated cost today" } dd { (of(format!("{:.4}", budget.day_cost), l.cost_per_day.map(|c| c.to_string()))) }
                dt { "Estimated cost this month" } dd { (of(format!("{:.4}", budget.month_cost), l.cost_per_month.map(|c| c.to_string()))) }
            }
            (budget_form(user, &format!("/users/{name}/budget"), name, l, budget.own))
        }
    }
}

/// The form setting `whose` limits; `own`: they have their own, which the
/// form can drop.
fn budget_form(user: &SignedIn, action: &str, whose: &str, limits: &Limits, own: bool) -> Markup {
    let fields = [
        (
            "tokens_per_day",
            "Tokens a day",
            limit(limits.tokens_per_day),
        ),
        (
            "tokens_per_month",
            "Tokens a month",
            limit(limits.tokens_per_month),
        ),
        ("cost_per_day", "Cost a day", limit(limits.cost_per_day)),
        (
            "cost_per_month",
            "Cost a month",
            limit(limits.cost_per_month),
        ),
    ];
    html! {
        form.budget-form method="post" action=(action) {
            (csrf_field(user))
            @for (field, label, value) in &fields {
                label { (label) " (" (whose) ") " input name=(field) value=(value) inputmode="decimal" size="10"; }
                " "
            }
            @if own {
                label { input type="checkbox" name="use_default" value="on"; " Drop their own: use the default" }
                " "
            }
            button type="submit" { "Save budget (" (whose) ")" }
        }
    }
}

#[derive(Deserialize)]
pub(super) struct BudgetForm {
    #[serde(default)]
    tokens_per_day: String,
    #[serde(default)]
    tokens_per_month: String,
    #[serde(default)]
    cost_per_day: String,
    #[serde(default)]
    cost_per_month: String,
    use_default: Option<String>,
}

impl BudgetForm {
    /// The limits the form writes: empty fields are no limit.
    fn limits(&self) -> Result<Limits, HostError> {
        fn number<T: std::str::FromStr>(field: &str, text: &str) -> Result<Option<T>, HostError> {
            let text = text.trim();
            if text.is_empty() {
                return Ok(None);
            }
            text.parse().map(Some).map_err(|_| {
                HostError::Invalid(format!(
                    "{field}: `{text}` is not a number of the right kind"
                ))
            })
        }
        Ok(Limits {
            tokens_per_day: number("tokens a day", &self.tokens_per_day)?,
            tokens_per_month: number("tokens a month", &self.tokens_per_month)?,
            cost_per_day: number("cost a day", &self.cost_per_day)?,
            cost_per_month: number("cost a month", &self.cost_per_month)?,
        })
    }
}

pub(super) async fn budget(
    State(state): State<WebState>,
    Admin(user): Admin,
    Path(name): Path<String>,
    Form(form): Form<BudgetForm>,
) -> Response {
    let set = async {
        let limits = match form.use_default {
            Some(_) => None,
            None => Some(form.limits()?),
        };
        state
            .host
            .admin()
            .set_budget(&user.name, Some(&name), limits)
            .await
    };
    answer(&state, &user, set.await, format!("Budget of {name} saved.")).await
}

pub(super) async fn default_budget(
    State(state): State<WebState>,
    Admin(user): Admin,
    Form(form): Form<BudgetForm>,
) -> Response {
    let set = async {
        let limits = form.limits()?;
        state
            .host
            .admin()
            .set_budget(&user.name, None, Some(limits))
            .await
    };
    answer(
        &state,
        &user,
        set.await,
        "The default budget saved.".to_owned(),
    )
    .await
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
        .admin()
        .add_user(&user.name, form.name.trim(), form.admin.is_some(), password)
        .await;
    let done = format!("User {} added.", form.name.trim());
    answer(&state, &user, added.map(drop), done).await
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
        .admin()
        .reset_password(&user.name, &name, &form.password)
        .await;
    answer(&state, &user, set, format!("Password of {name} set.")).await
}

/// Makes a token and shows it on the page this once (never in a notice
/// kept in the session, nor in an address).
pub(super) async fn token(
    State(state): State<WebState>,
    Admin(user): Admin,
    Path(name): Path<String>,
) -> Response {
    match state.host.admin().new_token(&user.name, &name).await {
        Ok(token) => render(&state, &user, Some((name, token))).await,
        Err(error) => answer(&state, &user, Err(error), String::new()).await,
    }
}

pub(super) async fn revoke(
    State(state): State<WebState>,
    Admin(user): Admin,
    Path((name, id)): Path<(String, String)>,
) -> Response {
    let revoked = state
        .host
        .admin()
        .revoke_token(&user.name, &name, &id)
        .await;
    answer(
        &state,
        &user,
        revoked,
        format!("Token {id} of {name} revoked."),
    )
    .await
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
    let set = state.host.admin().set_admin(&user.name, &name, on).await;
    let done = if on {
        format!("{name} is an administrator.")
    } else {
        format!("{name} is no longer an administrator.")
    };
    answer(&state, &user, set, done).await
}

pub(super) async fn unlock(
    State(state): State<WebState>,
    Admin(user): Admin,
    Path(name): Path<String>,
) -> Response {
    let lifted = state.host.sessions().unlock(&user.name, &name).await;
    let done = match &lifted {
        Ok(true) => format!("Sign-in of {name} unlocked."),
        _ => format!("Sign-in of {name} was not held back."),
    };
    answer(&state, &user, lifted.map(drop), done).await
}

/// Back to the people page with `done` or why not; 403 for someone the app
/// layer says is no administrator (they lost it since the page loaded).
async fn answer(
    state: &WebState,
    user: &SignedIn,
    outcome: Result<(), HostError>,
    done: String,
) -> Response {
    let notice = match outcome {
        Ok(()) => done,
        Err(refusal @ HostError::NotAdmin { .. }) => return layout::forbidden(user, &refusal),
        Err(error) => format!("Not done: {error}"),
    };
    session::notify(state, user, notice).await;
    Redirect::to("/users").into_response()
}
