//! A single gated call through the app layer, without a transport (what
//! MCP asks of it): the grant cached per settings generation, the gated
//! call seeing a change at once, a proposal stored and approved once
//! through the one approval path.

mod mcp_support;

use std::sync::Arc;
use std::time::Duration;

use host_example::HostError;
use host_example::app::approvals::{Applied, EXPIRED_BEFORE_APPROVAL};
use host_example::app::calls::{CallError, CallScope};
use host_example::store::Store;
use mcp_support::{Demo, actor};
use serde_json::json;
use tool_core::approval::{Decision, ProposalLifetime};
use tool_core::calls::CancelToken;
use tool_core::gates::{Denial, Toggle};
use tool_core::{Outcome, RunId, ToolError};

/// `caller`'s single call of `tool` with `arguments`, outside any session.
async fn stateless(
    host: &host_example::Host,
    caller: &tool_core::Actor,
    tool: &str,
    arguments: serde_json::Value,
) -> Result<Outcome, CallError> {
    let scope = CallScope::Stateless;
    host.calls()
        .call(
            caller,
            tool,
            arguments,
            RunId("r".into()),
            &scope,
            CancelToken::new(),
        )
        .await
}

#[tokio::test]
async fn the_grant_is_cached_until_the_settings_change() {
    let demo = Demo::new().await;
    let host = &demo.host;
    let petra = actor("petra");
    let first = host.access().grant(&petra).await.unwrap();
    assert!(Arc::ptr_eq(
        &first,
        &host.access().grant(&petra).await.unwrap()
    ));
    assert!(first.allowance("list_tables").is_some());

    let changes = host.access().changes();
    host.admin()
        .switch_tool("admin", "list_tables", Toggle::Disabled)
        .await
        .unwrap();
    assert!(changes.has_changed().unwrap());
    let second = host.access().grant(&petra).await.unwrap();
    assert!(!Arc::ptr_eq(&first, &second));
    assert!(second.allowance("list_tables").is_none());

    let refused = stateless(host, &petra, "list_tables", json!({}))
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
    let outcome = stateless(
        host,
        &clara,
        "update_page_metadata",
        json!({"page": 20, "title": "Workshop"}),
    )
    .await
    .unwrap();
    let Outcome::Proposed(proposal) = outcome else {
        panic!("{outcome:?}")
    };
    let id = proposal.id().as_str();
    let decided = host
        .approvals()
        .approve(id, "admin", &mut ())
        .await
        .unwrap();
    let Some(Applied::Written(written)) = decided.decided().unwrap().applied else {
        panic!("applied")
    };
    assert!(written.starts_with("written and verified"), "{written}");
    assert!(matches!(
        host.approvals().approve(id, "admin", &mut ()).await,
        Err(HostError::AlreadyDecided(_))
    ));
    assert!(matches!(
        host.approvals().approve("nope", "admin", &mut ()).await,
        Err(HostError::UnknownProposal(_))
    ));
}

/// Gate 9 for calls outside a run: without a session, a caller's reads
/// follow them from call to call; a session keeps its own; another caller
/// has read nothing.
#[tokio::test]
async fn what_a_caller_read_follows_it_into_every_session_of_its_own() {
    let demo = Demo::new().await;
    let host = &demo.host;
    for (key, value) in [
        ("trust_zone", r#""personal""#),
        ("groups", r#"{"system": {"egress": "own_site"}}"#),
        ("sites", r#"["http://127.0.0.1:9"]"#),
    ] {
        host.admin().set_setting("admin", key, value).await.unwrap();
    }
    let admin = actor("admin");
    let ops = tool_core::Actor {
        id: "ops".into(),
        admin: true,
    };
    let call = |who: &tool_core::Actor, tool: &str, scope: CallScope| {
        let arguments = if tool == "probe_url" {
            json!({"url": "/"})
        } else {
            json!({})
        };
        let (who, tool) = (who.clone(), tool.to_owned());
        async move {
            host.calls()
                .call(
                    &who,
                    &tool,
                    arguments,
                    RunId(format!("mcp-{tool}")),
                    &scope,
                    CancelToken::new(),
                )
                .await
        }
    };
    let refused_by_exposure = |result: &Result<Outcome, CallError>| {
        matches!(
            result,
            Err(CallError::Tool(ToolError::Refused {
                denial: Denial::Exposure { .. },
                ..
            }))
        )
    };
    // Before anything is read, the probe passes the gates (the site on
    // port 9 does not answer: the tool's own error, not a refusal; an error
    // the tool wrote counts as read, so this is a caller of its own).
    // Asked as another administrator, whose reads are its own.
    let clara_admin = tool_core::Actor {
        id: "clara".into(),
        admin: true,
    };
    let before = call(&clara_admin, "probe_url", CallScope::Session("s-0".into())).await;
    assert!(!refused_by_exposure(&before), "{before:?}");

    call(&admin, "fetch_logs", CallScope::Stateless)
        .await
        .unwrap();
    let after = call(&admin, "probe_url", CallScope::Stateless).await;
    let Err(CallError::Tool(ToolError::Refused { denial, .. })) = &after else {
        panic!("{after:?}")
    };
    let Denial::Exposure { raised_by, .. } = denial else {
        panic!("{denial:?}")
    };
    assert_eq!(raised_by.tool, "fetch_logs");

    // A session starts with what its caller read (never lower), and
    // another caller has read nothing at all.
    let in_session = call(&admin, "probe_url", CallScope::Session("s-1".into())).await;
    assert!(refused_by_exposure(&in_session), "{in_session:?}");
    let other = call(&ops, "probe_url", CallScope::Stateless).await;
    assert!(!refused_by_exposure(&other), "{other:?}");
    assert!(
        !matches!(other, Err(CallError::Tool(ToolError::Refused { .. }))),
        "ops passes every other gate: {other:?}"
    );
    // What a session reads, its caller has read: another session of the
    // same caller starts with it; one of the same id presented by
    // another caller shares nothing.
    call(&ops, "fetch_logs", CallScope::Session("s-3".into()))
        .await
        .unwrap();
    let ops_again = call(&ops, "probe_url", CallScope::Session("s-4".into())).await;
    assert!(refused_by_exposure(&ops_again), "{ops_again:?}");
    let nils = tool_core::Actor {
        id: "nils".into(),
        admin: true,
    };
    let same_id = call(&nils, "probe_url", CallScope::Session("s-3".into())).await;
    assert!(!refused_by_exposure(&same_id), "{same_id:?}");
}

#[tokio::test]
async fn approving_an_expired_proposal_records_its_expiry_and_is_told_not_applied() {
    let demo = Demo::new().await;
    let clara = actor("clara");
    let outcome = stateless(
        &demo.host,
        &clara,
        "update_page_metadata",
        json!({"page": 20, "title": "Too late"}),
    )
    .await
    .unwrap();
    let Outcome::Proposed(proposal) = outcome else {
        panic!("{outcome:?}")
    };
    // The same database, served by a host whose proposals live no time.
    let store = Store::open(&demo.url).await.unwrap();
    let host = host_example::Host::new(store.clone())
        .unwrap()
        .with_proposal_lifetime(ProposalLifetime(Duration::ZERO));
    let id = proposal.id().as_str();
    let recorded = host
        .approvals()
        .approve(id, "admin", &mut ())
        .await
        .unwrap();
    let decided = recorded.decided().expect("decided");
    assert_eq!(
        decided.decision,
        Decision::Expired,
        "recorded as what it is"
    );
    let applied = decided.applied.expect("an approval's outcome");
    assert_eq!(
        applied.not_applied().as_deref(),
        Some(format!("Not applied: {EXPIRED_BEFORE_APPROVAL}").as_str())
    );
    let view = host.approvals().proposal_for("admin", id).await.unwrap();
    assert_eq!(view.stored.status, "expired");
    // Audited as the expiry, never as an approval.
    let audit = store.audit_log().audit_tail(100).await.unwrap();
    let about: Vec<&str> = audit
        .iter()
        .filter(|e| e.run.as_deref() == Some(&format!("mcp-{id}")))
        .map(|e| e.decision.as_str())
        .collect();
    assert_eq!(about, ["expired"], "{audit:#?}");
}

/// A single call's proposal, approved in the host: its applied result
/// reaches the caller through the task, so it raises the caller's
/// exposure as a call's result does (untrusted when it carries text the
/// caller did not send: here the page's slug and kind, copied by the
/// translation draft).
#[tokio::test]
async fn an_applied_single_calls_result_raises_its_callers_exposure() {
    let demo = Demo::new().await;
    let host = &demo.host;
    let admin = actor("admin");
    let outcome = stateless(
        host,
        &admin,
        "create_translation_draft",
        json!({"kind": "page", "id": 20, "language": "de", "title": "Reparaturen"}),
    )
    .await
    .unwrap();
    let Outcome::Proposed(proposal) = outcome else {
        panic!("{outcome:?}")
    };
    assert!(proposal.carries_text_not_sent());
    let store = Store::open(&demo.url).await.unwrap();
    let window = store.config().exposure_window().await.unwrap();
    let untrusted = |read: &tool_core::exposure::Exposure| {
        !read.raised_by(tool_core::DataClass::Public, tool_core::Content::Untrusted)
    };
    // The proposal's copied values raised it already; forgotten here (as
    // the exposure window would), so that only the applied result can
    // raise it again.
    assert!(untrusted(
        &store
            .run_log()
            .exposure("caller:admin", window)
            .await
            .unwrap()
            .exposure
    ));
    sqlx::query("DELETE FROM exposures WHERE key = 'caller:admin'")
        .execute(store.pool())
        .await
        .unwrap();
    assert!(
        store
            .run_log()
            .exposure("caller:admin", window)
            .await
            .unwrap()
            .exposure
            .is_empty()
    );

    let decided = host
        .approvals()
        .approve(proposal.id().as_str(), "ops", &mut ())
        .await
        .unwrap();
    assert!(matches!(
        decided.decided().unwrap().applied,
        Some(Applied::Written(_))
    ));
    let read = store
        .run_log()
        .exposure("caller:admin", window)
        .await
        .unwrap()
        .exposure;
    assert!(untrusted(&read), "{read:?}");
}
