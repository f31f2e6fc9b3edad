//! The backend's rules without a transport: the grant cached per settings
//! generation, the gated call seeing a change at once, approval of a stored
//! proposal.

mod mcp_support;

use std::sync::Arc;

use host_example::mcp::{ApproveError, CallError};
use mcp_support::{actor, backend};
use serde_json::json;
use tool_core::calls::CancelToken;
use tool_core::gates::{Denial, Toggle};
use tool_core::{Outcome, ProposalId, RunId, ToolError};

#[tokio::test]
async fn the_grant_is_cached_until_the_settings_change() {
    let backend = backend();
    let petra = actor("petra");
    let first = backend.grant(&petra).await.unwrap();
    assert!(Arc::ptr_eq(&first, &backend.grant(&petra).await.unwrap()));
    assert!(first.allowance("list_tables").is_some());

    let changes = backend.changes();
    backend
        .set_tool_state("list_tables", Toggle::Disabled)
        .await
        .unwrap();
    assert!(changes.has_changed().unwrap());
    let second = backend.grant(&petra).await.unwrap();
    assert!(!Arc::ptr_eq(&first, &second));
    assert!(second.allowance("list_tables").is_none());

    let refused = backend
        .call(
            &petra,
            "list_tables",
            json!({}),
            RunId("r".into()),
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
    let backend = backend();
    let clara = actor("clara");
    let outcome = backend
        .call(
            &clara,
            "update_page_metadata",
            json!({"page": 20, "title": "Workshop"}),
            RunId("r".into()),
            CancelToken::new(),
        )
        .await
        .unwrap();
    let Outcome::Proposed(proposal) = outcome else {
        panic!("{outcome:?}")
    };
    let admin = actor("admin");
    backend.approve(proposal.id(), &admin).await.unwrap();
    assert!(matches!(
        backend.approve(proposal.id(), &admin).await,
        Err(ApproveError::Approval(_))
    ));
    assert!(matches!(
        backend.approve(&ProposalId::new("nope"), &admin).await,
        Err(ApproveError::UnknownProposal(_))
    ));
}
