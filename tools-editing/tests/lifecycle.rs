//! The approval lifecycle with a real tool (`update_page_metadata`):
//! rejection, edited approval, expiry and batches.

mod common;

use std::time::Duration;

use futures_executor::block_on;
use serde_json::json;
use site_model::{PageId, Pages};
use tool_core::agent::Decision;
use tool_core::approval::{ApprovalError, ProposalLifetime};

use common::{Host, actor, through_the_agent};

fn retitle(page: u64, title: &str) -> serde_json::Value {
    json!({"page": page, "title": title})
}

fn title(host: &Host, page: u64) -> String {
    block_on(host.site.page(PageId(page)))
        .unwrap()
        .title
        .for_host()
        .clone()
}

#[test]
fn a_rejections_reason_reaches_the_model() {
    let host = Host::new("clara");
    let before = host.site.snapshot();
    let rejected = Decision::Rejected {
        approver: actor("admin"),
        reason: "keep the short title".into(),
    };
    let (text, is_error) = through_the_agent(
        &host,
        "update_page_metadata",
        retitle(20, "Repair shop"),
        rejected,
    );
    assert!(is_error);
    assert!(text.contains("keep the short title"), "{text}");
    assert_eq!(host.site.snapshot(), before);
}

#[test]
fn an_expiry_reaches_the_model_as_expired() {
    let host = Host::new("clara");
    let (text, is_error) = through_the_agent(
        &host,
        "update_page_metadata",
        retitle(20, "Repair shop"),
        Decision::Expired,
    );
    assert!(is_error);
    assert!(text.contains("expired"), "{text}");
    assert_eq!(title(&host, 20), "Repairs");
}

#[test]
fn an_edited_approval_is_checked_again_and_both_values_are_kept() {
    let host = Host::new("clara");
    let proposal = host
        .propose("update_page_metadata", retitle(20, "Repair shop"))
        .unwrap();
    let approval = host.approval();
    let admin = actor("admin");

    // An edit that breaks a rule is refused, and does not use the decision.
    let broken = json!({"page": 20, "title": "Repair shop", "slug": "warranty"});
    assert!(matches!(
        block_on(approval.approve_edited(&proposal, broken, &admin, &host.cx())),
        Err(ApprovalError::Tool(_))
    ));
    // An edit of another record is refused.
    assert_eq!(
        block_on(approval.approve_edited(&proposal, retitle(21, "x"), &admin, &host.cx())),
        Err(ApprovalError::Mismatch)
    );
    assert_eq!(title(&host, 20), "Repairs");

    let edited = retitle(20, "Repairs and servicing");
    block_on(approval.approve_edited(&proposal, edited, &admin, &host.cx())).unwrap();
    assert_eq!(title(&host, 20), "Repairs and servicing");
    let entry = &host.history("pages", 20)[0];
    assert_eq!(
        entry.changes[0].new.for_host(),
        &json!("Repairs and servicing")
    );
    assert_eq!(
        entry.proposed.as_ref().unwrap()["title"],
        json!("Repair shop")
    );
    // The original is decided: it cannot be approved as well.
    assert!(matches!(
        host.approve(&proposal, "admin"),
        Err(ApprovalError::AlreadyDecided(_))
    ));
}

#[test]
fn an_edit_outside_the_runs_scope_is_refused() {
    let host = Host::new("clara");
    let proposal = host
        .propose("update_page_metadata", retitle(20, "Repair shop"))
        .unwrap();
    // An edit naming a field the tool does not know fails its schema.
    let error = block_on(host.approval().approve_edited(
        &proposal,
        json!({"page": 20, "deleted": true}),
        &actor("admin"),
        &host.cx(),
    ))
    .unwrap_err();
    assert!(matches!(
        error,
        ApprovalError::Tool(tool_core::ToolError::InvalidArguments { .. })
    ));
}

#[test]
fn an_expired_proposal_cannot_be_approved() {
    let mut host = Host::new("clara");
    let proposal = host
        .propose("update_page_metadata", retitle(20, "Repair shop"))
        .unwrap();
    host.extra = Some(|cx| cx.with_service(ProposalLifetime(Duration::ZERO)));
    let before = host.site.snapshot();
    assert_eq!(
        host.approve(&proposal, "admin"),
        Err(ApprovalError::Expired)
    );
    assert_eq!(host.site.snapshot(), before);
    // It stays expired, whatever the lifetime later.
    host.extra = None;
    assert!(matches!(
        host.approve(&proposal, "admin"),
        Err(ApprovalError::AlreadyDecided(_))
    ));
}

#[test]
fn the_default_lifetime_is_seven_days_from_creation() {
    let host = Host::new("clara");
    let proposal = host
        .propose("update_page_metadata", retitle(20, "Repair shop"))
        .unwrap();
    let mut stored = serde_json::to_value(&proposal).unwrap();
    stored["created_at"] = json!(proposal.created_at() - 7 * 24 * 60 * 60);
    let old: tool_core::Proposal = serde_json::from_value(stored).unwrap();
    assert_eq!(host.approve(&old, "admin"), Err(ApprovalError::Expired));
    assert_eq!(title(&host, 20), "Repairs");
}

#[test]
fn a_batch_with_one_stale_proposal_applies_the_others() {
    let host = Host::new("clara");
    let proposals = [
        host.propose("update_page_metadata", retitle(20, "Repair shop"))
            .unwrap(),
        host.propose("update_page_metadata", retitle(21, "Guarantee"))
            .unwrap(),
        host.propose("update_page_metadata", retitle(22, "Find a dealer"))
            .unwrap(),
    ];
    common::update(
        &host.site,
        site_model::Target::Page(PageId(21)),
        "title",
        json!("Warranty"),
        json!("Warranty terms"),
    );
    let results = block_on(
        host.approval()
            .approve_all(&proposals, &actor("admin"), &host.cx()),
    );
    assert!(results[0].is_ok());
    assert_eq!(results[1], Err(ApprovalError::Stale));
    assert!(results[2].is_ok());
    assert_eq!(title(&host, 20), "Repair shop");
    assert_eq!(title(&host, 21), "Warranty terms");
    assert_eq!(title(&host, 22), "Find a dealer");
}
