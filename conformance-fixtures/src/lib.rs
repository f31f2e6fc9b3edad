//! Test only: the tools the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`) calls by name, declared with
//! `#[derive(Tool)]` like any host's tools, in group `conformance`.
//! `host-conformance` (this crate's binary) is the host built with them;
//! the product binary (`host-example`) never links this crate.
//!
//! Each tool answers what the suite's scenario of the same name checks
//! (the scenario's text is quoted beside each). Scenarios the host does
//! not serve (sampling, elicitation, logging, completion, the fixed
//! prompts and resources) have no tool here; `expected-failures.yml`
//! names them with the reason.
#![forbid(unsafe_code)]

mod asking;
mod catalog;
mod input_required;
mod task_tools;
mod tools;

pub use asking::*;
use axum::Router;
use axum::extract::Request;
use axum::http::{HeaderValue, header};
use axum::middleware::{self, Next};
pub use catalog::{SuiteCompletions, SuitePrompts, SuiteResources};
pub use input_required::*;
pub use task_tools::*;
pub use tools::*;

/// The group every fixture tool is in.
pub const GROUP: &str = "conformance";

tool_core::linkable!();

/// `router` with `token` added as `Authorization: Bearer TOKEN` to every
/// request that carries none: the suite sends no token, and both servers
/// refuse a request without one. The server's own bearer check then
/// judges it like any other.
pub fn with_token(
    router: Router,
    token: &str,
) -> Result<Router, axum::http::header::InvalidHeaderValue> {
    let bearer = HeaderValue::from_str(&format!("Bearer {token}"))?;
    Ok(router.layer(middleware::from_fn(
        move |mut request: Request, next: Next| {
            request
                .headers_mut()
                .entry(header::AUTHORIZATION)
                .or_insert(bearer.clone());
            next.run(request)
        },
    )))
}
