//! A single gated call through the app layer, without a transport (what
//! MCP asks of it): the grant cached per settings generation, the gated
//! call seeing a change at once, a proposal stored and approved once
//! through the one approval path.

mod mcp_support;

use std::sync::Arc;

use host_example::HostError;
use host_example::app::calls::{CallError, CallScope};
use mcp_support::{Demo, actor};
use serde_json::json;
use tool_core::calls::CancelToken;
use tool_core::gates::{Denial, Toggle};
use tool_core::{Outcome, RunId, ToolError};

#[tokio::test]
async fn the_grant_is_cached_until_the_settings_change() {
    let demo = Demo::new().await;
    let host = &demo.host;
    let petra = actor("petra");
    let first = host.grant(&petra).await.unwrap();
    assert!(Arc::ptr_eq(&first, &host.grant(&petra).await.unwrap()));
    assert!(first.allowance("list_tables").is_some());

    let changes = host.changes();
    host.switch_tool("admin", "list_tables", Toggle::Disabled)
        .await
        .unwrap();
    assert!(changes.has_changed().unwrap());
    let second = host.grant(&petra).await.unwrap();
    assert!(!Arc::ptr_eq(&first, &second));
    assert!(second.allowance("list_tables").is_none());

    let refused = host
        .call(
            &petra,
            "list_tables",
            json!({}),
            RunId("r".into()),
            &CallScope::Stateless,
            CancelToken::new(),
        )
        .await
        .unwrap_err();
    let CallError::Tool(ToolError::Refused { denial, .. }) = refused else {
        panic!("{refused:?}")
    };
    assert_eq!(denial, Denial::ToolDisabled);
}

#[tokio::test]
async fn a_proposal_is_stored_and_approved_once() {
    let demo = Demo::new().await;
    let host = &demo.host;
    let clara = actor("clara");
    let outcome = host
        .call(
            &clara,
            "update_page_metadata",
            json!({"page": 20, "title": "Workshop"}),
            RunId("r".into()),
            &CallScope::Stateless,
            CancelToken::new(),
        )
        .await
        .unwrap();
    let Outcome::Proposed(proposal) = outcome else {
        panic!("{outcome:?}")
    };
    let id = proposal.id().as_str();
    let decided = host.approve(id, "admin", &mut ()).await.unwrap();
    let written = decided.applied.unwrap().unwrap();
    assert!(written.starts_with("written and verified"), "{written}");
    assert!(matches!(
        host.approve(id, "admin", &mut ()).await,
        Err(HostError::AlreadyDecided(_))
    ));
    assert!(matches!(
        host.approve("nope", "admin", &mut ()).await,
        Err(HostError::UnknownProposal(_))
    ));
}
