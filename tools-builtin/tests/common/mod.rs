//! Calling the built-in tools against the in-memory demo site, as one of
//! its people.
#![allow(dead_code, reason = "each test binary uses a different part")]

pub mod walk;

use std::sync::Arc;

use futures_executor::block_on;
use serde_json::Value;
use site_model::{MemorySite, Site};
use tool_core::{Actor, Outcome, Registry, RunId, ToolContext, ToolError};

/// The demo's administrators and editors, by site user name.
pub const ADMIN: &str = "admin";
/// Editor of the Products subtree and the products table; storage `media`.
pub const PETRA: &str = "petra";
/// Editor of the News subtree and the news table.
pub const NILS: &str = "nils";
/// Sees the main site but not the outlet; edits Service; one storage.
pub const CLARA: &str = "clara";
/// Every demo person a per-person test walks.
pub const EVERYONE: [&str; 4] = [ADMIN, PETRA, NILS, CLARA];

pub fn registry() -> Registry {
    tools_builtin::link();
    Registry::linked().expect("the built-in tools are valid")
}

/// A context acting as the demo user `name` (an administrator when the
/// demo says so), with a fresh demo site.
pub fn cx(name: &str) -> ToolContext {
    cx_on(Arc::new(MemorySite::demo()), name)
}

/// A context acting as `name` on `site`.
pub fn cx_on(site: Arc<dyn Site>, name: &str) -> ToolContext {
    let admin = matches!(name, "admin" | "ops");
    ToolContext::new(RunId("builtin-test".into()))
        .with_service(site)
        .with_actor(Actor {
            id: name.into(),
            admin,
        })
}

/// Calls `tool` ungated (the gates are tested in tool-core) as `name`.
pub fn call(tool: &str, arguments: Value, name: &str) -> Result<String, ToolError> {
    call_with(tool, arguments, &cx(name))
}

/// Calls `tool` with a prepared context; the model-facing text of the
/// result or the error.
pub fn call_with(tool: &str, arguments: Value, cx: &ToolContext) -> Result<String, ToolError> {
    match block_on(registry().call_ungated(tool, arguments, cx))? {
        Outcome::Done(output) => Ok(output.to_model_text()),
        Outcome::Proposed(proposal) => panic!("a read tool proposed {proposal:?}"),
    }
}

/// The model-facing text of a call, whether it succeeded or not.
pub fn text(tool: &str, arguments: Value, name: &str) -> String {
    match call(tool, arguments, name) {
        Ok(text) => text,
        Err(error) => error.model_text(),
    }
}

/// Panics naming the secret when any of the demo's secrets is in `output`.
pub fn assert_no_secret(tool: &str, output: &str) {
    for secret in site_model::demo::SECRETS {
        assert!(
            !output.contains(secret),
            "`{tool}` leaked the demo secret `{secret}`:\n{output}"
        );
    }
}

/// The demo site's data, to change before building a site of it.
pub fn demo_data() -> site_model::SiteData {
    MemorySite::demo().data()
}

/// A context acting as `name` on a site holding `data`.
pub fn cx_data(data: site_model::SiteData, name: &str) -> ToolContext {
    cx_on(Arc::new(MemorySite::new(data)), name)
}

/// The JSON result of a call that must succeed, after checking it holds
/// none of the demo's secrets.
pub fn json_with(tool: &str, arguments: Value, cx: &ToolContext) -> Value {
    let text = call_with(tool, arguments, cx).unwrap_or_else(|error| panic!("{tool}: {error}"));
    assert_no_secret(tool, &text);
    serde_json::from_str(&text).unwrap_or_else(|error| panic!("{tool}: {error}: {text}"))
}

/// [`json_with`] on a fresh demo site as `name`.
pub fn json(tool: &str, arguments: Value, name: &str) -> Value {
    json_with(tool, arguments, &cx(name))
}
