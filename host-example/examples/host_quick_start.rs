//! The README's host quick start, whole: link the tool crates, build the
//! registry, start a run (its grant resolved through the gates), call a
//! tool through them, and approve a write tool's proposal through the one
//! approval path.
//!
//! `cargo test --workspace` builds it; `cargo run -p host-example --example
//! host_quick_start` runs it.

use std::sync::Arc;

use futures_executor::block_on;
use serde_json::json;
use site_model::{MemorySite, PageId, Site};
use tool_core::approval::MemoryApprovals;
use tool_core::{Actor, DataClass, Outcome, Registry};

/// The host's own configuration, as it would come from its storage: the
/// `update_page_metadata` tool, which ships disabled (every write tool
/// does), switched on by an administrator.
const STORED_SETTINGS: &str = r#"{ "tools": { "update_page_metadata": { "state": "enabled" } } }"#;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // One line per tool crate, or the linker drops its tools.
    tools_builtin::link();
    tools_editing::link();
    // Fails, listing every problem at once, on duplicate or invalid tools.
    let registry = Registry::linked()?;

    // The run: who it acts for (a user of the site, by name), what the
    // host configured, the most sensitive data its model may see, and the
    // site its tools work on (here the in-memory demo site; a host
    // implements site-model's traits over its own storage).
    let site: Arc<dyn Site> = Arc::new(MemorySite::demo());
    let run = registry
        .run("run-1", Actor::admin("admin"))
        .settings(serde_json::from_str(STORED_SETTINGS)?)
        .trust_zone(DataClass::Confidential)
        .service(Arc::clone(&site))
        .start(); // store run.grant() with the run; log run.resolution().denials

    // A read tool runs at once.
    let outcome = block_on(run.call("get_pagetree", json!({})))?;
    assert!(matches!(outcome, Outcome::Done(_)));

    // A write tool proposes; nothing is written until a person approves,
    // through the one approval path.
    let arguments = json!({"page": 2, "title": "Bikes and parts"});
    let Outcome::Proposed(proposal) = block_on(run.call("update_page_metadata", arguments))? else {
        return Err("update_page_metadata proposes".into());
    };
    println!("{}", proposal.summary); // what a person reads before approving
    let decisions = MemoryApprovals::new(); // a host keeps these in its database
    block_on(run.approve(&proposal, &Actor::admin("ops"), &decisions))?;
    assert_eq!(block_on(site.page(PageId(2)))?.title, "Bikes and parts");
    Ok(())
}

#[test]
fn runs() {
    main().unwrap();
}
