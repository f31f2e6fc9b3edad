//! Signing in with a host user's name and password, and signing out. The
//! app layer holds guessers back ([`crate::app::signin`]), by the peer's
//! address (`serve` passes it) or, behind a trusted proxy, the forwarded one.

use axum::Form;
use std::net::SocketAddr;

use axum::extract::{ConnectInfo, State};
use axum::http::request::Parts;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use maud::html;
use serde::Deserialize;

use super::WebState;
use super::layout::{self, OrFailure};
use super::session::{self, SignedIn};

/// The sign-in form. A browser without a session gets one, not yet signed
/// in, so the form carries a CSRF token like every other.
pub(super) async fn form(State(state): State<WebState>, parts: Parts) -> Response {
    render(&state, &parts, None, StatusCode::OK).await
}

async fn render(
    state: &WebState,
    parts: &Parts,
    problem: Option<&str>,
    status: StatusCode,
) -> Response {
    let known = match session::csrf_of(state, parts).await.or_failure() {
        Ok(known) => known,
        Err(response) => return response,
    };
    let (cookie, csrf) = match known {
        Some(csrf) => (None, csrf),
        None => match state
            .host
            .sessions()
            .begin_signin_session()
            .await
            .or_failure()
        {
            Ok(new) => (Some(session::cookie(&new.id)), new.csrf),
            Err(response) => return response,
        },
    };
    let body = html! {
        @if let Some(problem) = problem { p.problem role="alert" { (problem) } }
        form.signin method="post" action="/signin" {
            input type="hidden" name="csrf" value=(csrf);
            label { "Name " input name="name" autocomplete="username" required autofocus; }
            label { "Password " input type="password" name="password" autocomplete="current-password" required; }
            button type="submit" { "Sign in" }
        }
    };
    let mut response = (status, layout::page("Sign in", None, body)).into_response();
    if let Some(Ok(value)) = cookie.map(|cookie| cookie.parse()) {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    response
}

/// The one answer to every refused sign-in: a wrong password, a name that
/// does not exist and a name held back or locked read the same, so the page
/// tells a guesser nothing.
const REFUSED: &str = "Unknown name or wrong password, or too many failed attempts: \
     wait a while and try again, or ask an administrator.";

#[derive(Deserialize)]
pub(super) struct Credentials {
    name: String,
    password: String,
}

/// Checks the password; on success the app layer ends the pre-sign-in
/// session and begins a new one, so an id known before sign-in is worth
/// nothing after.
pub(super) async fn submit(
    State(state): State<WebState>,
    parts: Parts,
    Form(credentials): Form<Credentials>,
) -> Response {
    let peer = parts
        .extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|info| info.0.ip());
    let forwarded = parts
        .headers
        .get("x-forwarded-for")
        .and_then(|value| value.to_str().ok());
    let old = session::session_id(&parts);
    let signed_in = async {
        let address = state
            .host
            .sessions()
            .client_address(peer, forwarded)
            .await?;
        state
            .host
            .sessions()
            .sign_in_browser(
                &credentials.name,
                &credentials.password,
                address,
                old.as_deref(),
            )
            .await
    };
    let new = match signed_in.await.or_failure() {
        Ok(Some(new)) => new,
        Ok(None) => {
            return render(&state, &parts, Some(REFUSED), StatusCode::UNAUTHORIZED).await;
        }
        Err(response) => return response,
    };
    (
        [(header::SET_COOKIE, session::cookie(&new.id))],
        Redirect::to("/approvals"),
    )
        .into_response()
}

/// Ends the session.
pub(super) async fn signout(State(state): State<WebState>, user: SignedIn) -> Response {
    if let Err(response) = state
        .host
        .sessions()
        .end_browser_session(&user.session)
        .await
        .or_failure()
    {
        return response;
    }
    (
        [(header::SET_COOKIE, session::expired_cookie())],
        Redirect::to("/signin"),
    )
        .into_response()
}
