//! Sessions of signed-in browsers, kept in memory: a host restart signs
//! everyone out, and two host processes do not share them (a browser stays
//! on the process it signed in with). An id is 32 random bytes in hex, in
//! an `HttpOnly`, `SameSite=Strict` cookie; each session has its own CSRF
//! token, which every `POST` must carry in its `csrf` field, and a `POST`
//! from a browser origin the app layer does not admit (`app::origin`) is
//! refused before it is read.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use argon2::password_hash::rand_core::{OsRng, RngCore};
use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};

use super::WebState;
use super::layout;
pub(super) use super::user::SignedIn;
use crate::app::HostError;
use crate::app::origin::OriginVerdict;

/// The session cookie's name.
pub(super) const COOKIE: &str = "host_session";

/// A session ends this long after it began.
const LIFETIME: Duration = Duration::from_secs(12 * 60 * 60);

/// The largest form a `POST` may send.
const FORM_LIMIT: usize = 256 * 1024;

#[derive(Debug, Clone)]
struct Session {
    /// Who signed in; `None` before sign-in (the sign-in form's own token).
    user: Option<String>,
    csrf: String,
    began: Instant,
    /// A one-time message for the next page.
    notice: Option<String>,
}

/// Every live session, by id.
#[derive(Debug, Default)]
pub struct Sessions {
    by_id: Mutex<HashMap<String, Session>>,
}

impl Sessions {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Session>> {
        // Every write is one insert or remove: a panic cannot leave it half done.
        self.by_id.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn get(&self, id: &str) -> Option<Session> {
        let mut sessions = self.lock();
        sessions.retain(|_, session| session.began.elapsed() < LIFETIME);
        sessions.get(id).cloned()
    }

    /// A new session for `user` (or for the sign-in form); returns its id
    /// and CSRF token.
    pub(super) fn begin(&self, user: Option<String>) -> (String, String) {
        let id = random_hex();
        let csrf = random_hex();
        self.lock().insert(
            id.clone(),
            Session {
                user,
                csrf: csrf.clone(),
                began: Instant::now(),
                notice: None,
            },
        );
        (id, csrf)
    }

    /// Ends the session `id`.
    pub(super) fn end(&self, id: &str) {
        self.lock().remove(id);
    }

    /// Leaves `notice` for the session's next page.
    pub(super) fn notify(&self, id: &str, notice: impl Into<String>) {
        if let Some(session) = self.lock().get_mut(id) {
            session.notice = Some(notice.into());
        }
    }

    fn take_notice(&self, id: &str) -> Option<String> {
        self.lock().get_mut(id).and_then(|s| s.notice.take())
    }
}

fn random_hex() -> String {
    let mut bytes = [0u8; 32];
    OsRng.fill_bytes(&mut bytes);
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
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

/// The CSRF token of the request's session, if it has one (signed in or
/// not): for the sign-in form.
pub(super) fn csrf_of(state: &WebState, parts: &Parts) -> Option<(String, String)> {
    let id = session_id(parts)?;
    let session = state.sessions.get(&id)?;
    Some((id, session.csrf))
}

impl FromRequestParts<WebState> for SignedIn {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &WebState) -> Result<SignedIn, Response> {
        let to_signin = || Redirect::to("/signin").into_response();
        let id = session_id(parts).ok_or_else(to_signin)?;
        let session = state.sessions.get(&id).ok_or_else(to_signin)?;
        let name = session.user.ok_or_else(to_signin)?;
        let user = match state.host.user(&name).await {
            Ok(Some(user)) => user,
            Ok(None) => {
                state.sessions.end(&id);
                return Err(to_signin());
            }
            Err(error) => return Err(layout::failure(&error.to_string())),
        };
        Ok(SignedIn {
            name: user.id,
            admin: user.admin,
            csrf: session.csrf,
            notice: state.sessions.take_notice(&id),
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
        match state.host.require_admin(&user.name, "this page").await {
            Ok(()) => Ok(Admin(user)),
            Err(HostError::NotAdmin { .. }) => Err(layout::forbidden(&user)),
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
    let expected = csrf_of(&state, &parts).map(|(_, token)| token);
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
    let verdict = state.host.judge_origin(request.headers()).await;
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
