//! The page shell every page shares, and the error pages.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use maud::{DOCTYPE, Markup, html};

use super::user::SignedIn;
use crate::app::HostError;
use crate::app::approvals::NOT_APPLIED;
use crate::app::timestamps::Utc;

/// A whole page: the navigation for `user` (administrators see every
/// page), the one-time notice, and `body`.
pub(super) fn page(title: &str, user: Option<&SignedIn>, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · host-example" }
                link rel="stylesheet" href="/static/app.css";
            }
            body {
                a.skip href="#content" { "Skip to the content" }
                @if let Some(user) = user {
                    nav aria-label="Pages" {
                        a href="/approvals" { "Approvals" }
                        a href="/runs" { "Runs" }
                        a href="/content" { "Content" }
                        @if user.admin {
                            a href="/tools" { "Tools" }
                            a href="/users" { "People" }
                            a href="/settings" { "Settings" }
                            a href="/skills" { "Skills" }
                            a href="/audit" { "Audit" }
                            a href="/overview" { "Overview" }
                        }
                        a href="/playground" { "Playground" }
                        span.who { "Signed in as " strong { (user.name) } @if user.admin { " (administrator)" } }
                        form method="post" action="/signout" {
                            (csrf_field(user))
                            button type="submit" { "Sign out" }
                        }
                    }
                }
                main #content tabindex="-1" {
                    h1 { (title) }
                    @if let Some(notice) = user.and_then(|u| u.notice.as_deref()) {
                        // Nothing written is not a success: told apart,
                        // and announced at once.
                        @if notice.starts_with(NOT_APPLIED) {
                            p.notice.not-applied role="alert" { (notice) }
                        } @else {
                            p.notice role="status" { (notice) }
                        }
                    }
                    (body)
                }
            }
        }
    }
}

/// The hidden field every form carries.
pub(super) fn csrf_field(user: &SignedIn) -> Markup {
    html! { input type="hidden" name="csrf" value=(user.csrf); }
}

/// 403: `user` may not open this page.
pub(super) fn forbidden(user: &SignedIn, refusal: &HostError) -> Response {
    // The app's words too, as the command line says them.
    let body = html! { p { "This page is for administrators." } p.refusal { (refusal) } };
    (StatusCode::FORBIDDEN, page("Not allowed", Some(user), body)).into_response()
}

/// 500 with the reason, for a store that failed.
pub(super) fn failure(reason: &str) -> Response {
    let body = html! { p { "The host could not answer: " (reason) } };
    (
        StatusCode::INTERNAL_SERVER_ERROR,
        page("Something failed", None, body),
    )
        .into_response()
}

/// A date and time (UTC) for seconds since the Unix epoch.
pub(super) fn when(seconds: i64) -> String {
    let at = Utc::from_epoch(seconds);
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02} UTC",
        at.year, at.month, at.day, at.hour, at.minute
    )
}

/// A `Result` from the store or the site as a page or the failure page.
pub(super) trait OrFailure<T> {
    // The error is the response a handler returns at once, as axum's own
    // rejections are: boxing it would only add an allocation.
    #[allow(clippy::result_large_err)]
    fn or_failure(self) -> Result<T, Response>;
}

impl<T, E: std::fmt::Display> OrFailure<T> for Result<T, E> {
    fn or_failure(self) -> Result<T, Response> {
        self.map_err(|error| failure(&error.to_string()))
    }
}
