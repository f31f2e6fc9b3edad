//! The browser's side of its session: the cookie, the CSRF check of every
//! `POST`, and who is signed in. The sessions themselves live in the
//! database, behind the app layer ([`crate::app::browser_sessions`]), so
//! every host process sharing it knows them. The cookie carries a random
//! id, `HttpOnly` and `SameSite=Strict`; each session has its own CSRF
//! token, which every `POST` must carry in its `csrf` field, and a `POST`
//! from a browser origin the app layer does not admit (`app::origin`) is
//! refused before it is read. A bad, expired or unknown session reads the
//! same: back to sign-in.

use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};

use super::WebState;
use super::layout;
pub(super) use super::user::SignedIn;
use crate::app::HostError;
use crate::app::origin::{OriginVerdict, RequestOrigin};

/// The session cookie's name.
pub(super) const COOKIE: &str = "host_session";

/// The largest form a `POST` may send.
const FORM_LIMIT: usize = 256 * 1024;

/// Leaves `notice` for `user`'s next page. A notice that cannot be kept
/// is only logged: what it reports is done, and the page shows its
/// outcome.
pub(super) async fn notify(state: &WebState, user: &SignedIn, notice: impl Into<String>) {
    let notice = notice.into();
    if let Err(error) = state
        .host
        .sessions()
        .leave_notice(&user.session, &notice)
        .await
    {
        tracing::warn!("a notice was not kept: {error}");
    }
}

/// The `Set-Cookie` value for session `id`.
pub(super) fn cookie(id: &str) -> String {
    format!("{COOKIE}={id}; Path=/; HttpOnly; SameSite=Strict")
}

/// The `Set-Cookie` value that removes the session cookie.
pub(super) fn expired_cookie() -> String {
    format!("{COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0")
}

/// The session id a request's cookie names, if any.
pub(super) fn session_id(parts: &Parts) -> Option<String> {
    parts
        .headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
        .map(|(_, id)| id.to_owned())
}

/// The CSRF token of the request's live session, if it has one (signed
/// in or not): for the sign-in form.
pub(super) async fn csrf_of(state: &WebState, parts: &Parts) -> Result<Option<String>, HostError> {
    match session_id(parts) {
        Some(id) => state.host.sessions().browser_session_csrf(&id).await,
        None => Ok(None),
    }
}

impl FromRequestParts<WebState> for SignedIn {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &WebState) -> Result<SignedIn, Response> {
        let to_signin = || Redirect::to("/signin").into_response();
        let id = session_id(parts).ok_or_else(to_signin)?;
        let session = match state.host.sessions().signed_in_session(&id).await {
            Ok(Some(session)) => session,
            Ok(None) => return Err(to_signin()),
            Err(error) => return Err(layout::failure(&error.to_string())),
        };
        Ok(SignedIn {
            name: session.user.id,
            admin: session.user.admin,
            csrf: session.csrf,
            notice: session.notice,
            session: id,
        })
    }
}

/// A signed-in administrator; anyone else signed in gets 403.
#[derive(Debug, Clone)]
pub(super) struct Admin(pub SignedIn);

impl FromRequestParts<WebState> for Admin {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &WebState) -> Result<Admin, Response> {
        let user = SignedIn::from_request_parts(parts, state).await?;
        match state
            .host
            .access()
            .require_admin(&user.name, "this page")
            .await
        {
            Ok(()) => Ok(Admin(user)),
            Err(refusal @ HostError::NotAdmin { .. }) => Err(layout::forbidden(&user, &refusal)),
            Err(error) => Err(layout::failure(&error.to_string())),
        }
    }
}

/// Refuses, with 403, every `POST` whose `csrf` form field is not its
/// session's token; passes every other request on unchanged.
pub(super) async fn csrf(State(state): State<WebState>, request: Request, next: Next) -> Response {
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, FORM_LIMIT).await else {
        return (StatusCode::PAYLOAD_TOO_LARGE, "form too large").into_response();
    };
    let expected = match csrf_of(&state, &parts).await {
        Ok(expected) => expected,
        Err(error) => return layout::failure(&error.to_string()),
    };
    let sent = form_field(&bytes, "csrf");
    match (expected, sent) {
        (Some(expected), Some(sent)) if same(expected.as_bytes(), sent.as_bytes()) => {
            next.run(Request::from_parts(parts, bytes.into())).await
        }
        _ => (
            StatusCode::FORBIDDEN,
            "refused: the form's CSRF token is missing or not this session's; reload the page and try again",
        )
            .into_response(),
    }
}

/// Refuses, with 403, every `POST` whose `Origin` the app layer does not
/// admit (present, and neither this server's own nor an allowed one);
/// passes every other request on unchanged.
pub(super) async fn origin(
    State(state): State<WebState>,
    request: Request,
    next: Next,
) -> Response {
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let verdict = state
        .host
        .sessions()
        .judge_origin(RequestOrigin::of(request.headers()))
        .await;
    match verdict {
        Ok(OriginVerdict::Admitted) => next.run(request).await,
        Ok(OriginVerdict::Refused) => (
            StatusCode::FORBIDDEN,
            "refused: this form was sent from another site's page",
        )
            .into_response(),
        Err(error) => layout::failure(&error.to_string()),
    }
}

/// The raw value of `name` in an urlencoded form. The CSRF token is hex,
/// so it needs no decoding: an encoded value never matches.
fn form_field<'a>(body: &'a [u8], name: &str) -> Option<&'a str> {
    std::str::from_utf8(body)
        .ok()?
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value)
}

/// Compares in time independent of where the inputs differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
