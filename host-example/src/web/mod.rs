//! The browser front door: sign-in, the tools and their switches, the
//! people (users, passwords, tokens, administrators, sign-in locks), the
//! settings (a page per concern), the skills and their approvals, the
//! audit trail, the overview's charts, the
//! approvals inbox, the runs, the content browser with its actions on
//! records, and the playground, served as
//! server-rendered pages ([`maud`], which escapes every value it
//! interpolates: nothing a model, a tool or a record writes becomes markup).
//!
//! [`router`] is one axum `Router` a host merges beside the MCP router.
//! Every page needs a signed-in user (the `session` module; the sessions
//! live in the database, so any process sharing it knows them); every `POST` carries the
//! session's CSRF token, checked once for all of them (`session::csrf`),
//! and comes from this server's own origin or an allowed one
//! (`session::origin`).
//! No inline script or style: the Content-Security-Policy admits only this
//! server's own `/static/` files.
//!
//! Every rule lives in the app layer ([`Host`]): a page parses
//! its form and calls it, as the command line does.

mod actions;
mod approvals;
mod audit;
mod batch;
mod content;
mod draft;
mod inspector;
mod layout;
mod live;
mod overview;
mod people;
mod playground;
mod runs;
mod session;
mod settings;
mod signin;
mod skills;
mod tools;
mod user;
mod webhooks;
mod why_not;

use std::sync::Arc;

use axum::Router;
use axum::extract::{FromRequestParts, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use tool_core::Registry;

use crate::app::Host;
use live::LiveRuns;
use user::SignedIn;

/// What every page reads: the app layer (which keeps the sessions of
/// signed-in browsers and the batches) and the playground's live runs.
#[derive(Clone)]
pub struct WebState {
    host: Arc<Host>,
    live: Arc<LiveRuns>,
}

impl std::fmt::Debug for WebState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebState").finish_non_exhaustive()
    }
}

impl WebState {
    /// The pages over `host`, with no one signed in.
    pub fn new(host: Arc<Host>) -> WebState {
        WebState {
            host,
            live: Arc::new(LiveRuns::default()),
        }
    }

    fn registry(&self) -> &Registry {
        self.host.registry()
    }
}

/// Every page and form of the browser front door.
pub fn router(state: WebState) -> Router {
    Router::new()
        .route("/", get(|| async { Redirect::to("/approvals") }))
        .route("/signin", get(signin::form).post(signin::submit))
        .route("/signout", post(signin::signout))
        .route("/tools", get(tools::page))
        .route("/tools/group", post(tools::switch_group))
        .route("/tools/tool", post(tools::switch_tool))
        .route("/tools/policy", post(tools::save_policy))
        .route("/tools/sites", post(tools::save_sites))
        .route("/settings", get(settings::index))
        .route("/settings/{slug}", get(settings::page).post(settings::save))
        .route("/settings/models/test", post(settings::test_model))
        .route("/settings/webhooks/save", post(webhooks::save))
        .route("/settings/webhooks/{name}/remove", post(webhooks::remove))
        .route("/settings/webhooks/retry/{id}", post(webhooks::retry))
        .route("/overview", get(overview::page))
        .route("/skills", get(skills::page))
        .route("/skills/{name}/approve", post(skills::approve))
        .route("/audit", get(audit::page))
        .route("/audit/export", get(audit::export))
        .route("/users", get(people::page))
        .route("/users/add", post(people::add))
        .route("/users/{name}/password", post(people::password))
        .route("/users/{name}/token", post(people::token))
        .route("/users/{name}/tokens/{id}/revoke", post(people::revoke))
        .route("/users/{name}/admin", post(people::admin))
        .route("/users/{name}/unlock", post(people::unlock))
        .route("/users/{name}/budget", post(people::budget))
        .route("/users/default-budget", post(people::default_budget))
        .route("/approvals", get(approvals::page))
        .route("/approvals/{id}/approve", post(approvals::approve))
        .route("/approvals/{id}/edit", post(approvals::preview_edit))
        .route(
            "/approvals/{id}/edit/confirm",
            post(approvals::approve_edited),
        )
        .route("/approvals/{id}/reject", post(approvals::reject))
        .route("/approvals/{id}/withdraw", post(approvals::withdraw))
        .route(
            "/approvals/{id}/approve-standing",
            post(approvals::approve_standing),
        )
        .route("/approvals/run/{run}", post(approvals::decide_run))
        .route("/runs", get(runs::list))
        .route("/runs/{id}", get(runs::show))
        .route("/actions/start", post(actions::start))
        .route("/actions/batch", get(batch::form))
        .route("/actions/batch/preview", post(batch::preview))
        .route("/actions/batch/start", post(batch::start))
        .route("/actions/batch/report/{id}", get(batch::report))
        .route("/content", get(content::tree))
        .route("/content/page/{id}", get(content::page))
        .route("/content/files", get(content::files))
        .route("/playground", get(playground::page))
        .route("/playground/dry-run", post(playground::dry_run))
        .route("/playground/run", post(playground::run))
        .route("/playground/live/{id}", get(playground::live))
        .route("/playground/live/{id}/events", get(live::events))
        .route("/static/app.css", get(stylesheet))
        .route("/static/playground.js", get(playground_script))
        .fallback(not_found)
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            session::csrf,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            session::origin,
        ))
        .layer(axum::middleware::map_response(security_headers))
        .with_state(state)
}

/// Every address no route serves: the host's own page, with its
/// navigation for whoever is signed in, and 404.
async fn not_found(State(state): State<WebState>, mut parts: Parts) -> Response {
    let user = SignedIn::from_request_parts(&mut parts, &state).await.ok();
    let body = maud::html! {
        p { "There is no page at this address." }
        p { a href="/approvals" { "Go to the approvals" } }
    };
    let page = layout::page("Not found", user.as_ref(), body);
    (StatusCode::NOT_FOUND, page).into_response()
}

async fn stylesheet() -> Response {
    static_file("text/css", include_str!("static/app.css"))
}

async fn playground_script() -> Response {
    static_file("text/javascript", include_str!("static/playground.js"))
}

fn static_file(mime: &'static str, body: &'static str) -> Response {
    ([(header::CONTENT_TYPE, mime)], body).into_response()
}

/// Only this server's own files may run or style a page, no page may be
/// framed, nothing is sniffed into another type, and no address of a page
/// leaves for another site. `same-origin`, not `no-referrer`: under
/// `no-referrer` a browser sends `Origin: null` with the pages' own forms,
/// which the `Origin` check refuses (`session::origin`).
async fn security_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
             connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        ),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    response
}
