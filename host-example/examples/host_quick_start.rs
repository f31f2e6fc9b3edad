//! The README's host quick start, whole: link the tool crates, build the
//! registry, resolve a run's grant through the gates, call a tool through
//! them, and approve a write tool's proposal through the one approval path.
//!
//! `cargo test --workspace` builds it; `cargo run -p host-example --example
//! host_quick_start` runs it.

use std::sync::Arc;

use futures_executor::block_on;
use serde_json::json;
use site_model::{MemorySite, PageId, Site};
use tool_core::approval::{Approval, MemoryApprovals};
use tool_core::gates::{Gates, HostSettings, RunConfig, RunInputs, Selection};
use tool_core::{Actor, DataClass, Outcome, Registry, RunId, ToolContext};

/// The host's own configuration, as it would come from its storage: the
/// `update_page_metadata` tool, which ships disabled (every write tool
/// does), switched on by an administrator.
const STORED_SETTINGS: &str = r#"{ "tools": { "update_page_metadata": { "state": "enabled" } } }"#;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // One line per tool crate: a host that names nothing of a crate may have
    // the linker drop it, and its tools with it.
    tools_builtin::link();
    tools_editing::link();

    // Fails, listing every problem at once, on duplicate or invalid tools.
    let registry = Registry::linked()?;

    // The run: who it acts for, what it may use.
    let settings: HostSettings = serde_json::from_str(STORED_SETTINGS)?;
    let actor = Actor {
        id: "admin".into(), // a user of the site, by name
        admin: true,
    };
    let config = RunConfig {
        trust_zone: DataClass::Confidential, // the most sensitive data the model may see
        ..RunConfig::default()               // all groups, read and write
    };
    let inputs = RunInputs {
        settings: &settings,
        actor: Some(&actor), // no actor is never an administrator
        config: &config,
        skills: &[], // the run's skills; their allowed-tools is gate 6
        selection: &Selection::All,
    };
    let gates = Gates::new(&registry, inputs);
    let resolution = gates.resolve(); // store resolution.grant with the run; log resolution.denials

    // The context the tools see: the same actor as the gates, and the
    // host's site (here the in-memory demo site; a host implements
    // site-model's traits over its own storage).
    let site: Arc<dyn Site> = Arc::new(MemorySite::demo());
    let cx = ToolContext::new(RunId("run-1".into()))
        .with_actor(actor.clone())
        .with_service(Arc::clone(&site));

    // A read tool runs at once.
    let outcome = block_on(gates.call(&resolution.grant, "get_pagetree", json!({}), &cx))?;
    assert!(matches!(outcome, Outcome::Done(_)));

    // A write tool proposes; nothing is written until a person approves,
    // through the one approval path.
    let Outcome::Proposed(proposal) = block_on(gates.call(
        &resolution.grant,
        "update_page_metadata",
        json!({"page": 2, "title": "Bikes and parts"}),
        &cx,
    ))?
    else {
        return Err("update_page_metadata proposes".into());
    };
    println!("{}", proposal.summary); // what a person reads before approving
    let decisions = MemoryApprovals::new(); // a host keeps these in its database
    let approval = Approval {
        registry: &registry,
        run: inputs,
        grant: Some(&resolution.grant),
        store: &decisions,
    };
    let approver = Actor {
        id: "ops".into(),
        admin: true,
    };
    block_on(approval.approve(&proposal, &approver, &cx))?;
    assert_eq!(block_on(site.page(PageId(2)))?.title, "Bikes and parts");
    Ok(())
}
