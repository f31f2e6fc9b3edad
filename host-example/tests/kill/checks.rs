//! What must hold after any kill, read from the database the killed
//! process left (docs/crash-safety.md).

use host_example::store::{AuditEntry, AuditKind, RunNote, RunPhase};
use site_model::{HistoryEntry, PageId, Pages, Records};
use tool_core::agent::{CallResult, Event};

use crate::harness::{Killed, Target};

/// The title the demo site's page 2 starts with.
const FIRST_TITLE: &str = "Products";

/// Every invariant, after the process was killed as `killed` says.
pub fn after_restart(target: &Target, killed: &Killed) {
    let at = format!(
        "kill point {}, kill {} ({})",
        killed.point,
        killed.kill,
        if killed.by_signal {
            "killed"
        } else {
            "had ended"
        }
    );
    // The database opens, and the host works on it.
    target.ok(&["db", "check"]);
    // The audit chain verifies: a killed write left no linked row behind
    // half-committed, and the heads file names no row that is not there.
    target.ok(&["--user", "admin", "audit", "verify"]);

    let (rt, store) = target.store();
    let audit = rt
        .block_on(store.audit_log().audit_tail(1_000_000))
        .unwrap();
    let runs = rt.block_on(store.run_log().runs(1_000_000)).unwrap();
    let mut proposals = Vec::new();
    let mut proposed_events = Vec::new();
    for run in &runs {
        proposals.extend(
            rt.block_on(store.decisions().run_proposals(&run.id))
                .unwrap(),
        );
        for event in rt.block_on(store.run_log().run_events(&run.id)).unwrap() {
            if let Event::ToolExecuted {
                result: CallResult::Proposed { proposal },
                ..
            } = event
            {
                proposed_events.push(proposal.id().as_str().to_owned());
            }
        }
    }

    // A call's rows are one: its event, its audit rows and its proposal
    // all stored, or none of them.
    let proposed_audit: Vec<&AuditEntry> = audit
        .iter()
        .filter(|e| e.kind == AuditKind::Call && e.decision == "proposed")
        .collect();
    for stored in &proposals {
        let id = stored.proposal.id().as_str();
        assert!(
            proposed_events.iter().any(|e| e == id),
            "{at}: proposal {id} has no event"
        );
        let named = format!("proposal {id}");
        assert!(
            proposed_audit
                .iter()
                .any(|e| e.detail.as_deref().is_some_and(|d| d.contains(&named))),
            "{at}: proposal {id} has no audit row"
        );
    }
    for id in &proposed_events {
        assert!(
            proposals.iter().any(|p| p.proposal.id().as_str() == id),
            "{at}: the event of proposal {id} without the proposal"
        );
    }
    assert_eq!(
        proposed_audit.len(),
        proposals.len(),
        "{at}: an audit row per proposal, and only those"
    );

    // A decision recorded is the proposal's status, and the other way.
    for stored in &proposals {
        let decision = rt
            .block_on(store.decisions().decision(stored.proposal.id()))
            .unwrap();
        assert_eq!(
            decision.is_some(),
            stored.status != "pending",
            "{at}: proposal {} is {} with decision {decision:?}",
            stored.proposal.id().as_str(),
            stored.status
        );
    }

    // No change applied twice or half: each title written at most once,
    // and the page is what its last history entry says.
    let site = store.site();
    let history = rt.block_on(site.history("pages", 2)).unwrap();
    let written: Vec<String> = history.iter().filter_map(title_written).collect();
    for title in &written {
        let times = written.iter().filter(|t| *t == title).count();
        assert_eq!(times, 1, "{at}: {title} applied {times} times");
    }
    let page = rt.block_on(site.page(PageId(2))).unwrap();
    // History is newest first.
    let last = written.first().map_or(FIRST_TITLE, String::as_str);
    assert_eq!(page.title, last, "{at}: the page and its history disagree");

    // Every applied change has its audit row, and every `applied` row its
    // change.
    let applied: Vec<&AuditEntry> = audit
        .iter()
        .filter(|e| e.kind == AuditKind::Write && e.decision == "applied")
        .collect();
    for title in &written {
        let mut asked = proposals
            .iter()
            .filter(|p| p.proposal.arguments()["title"] == title.as_str());
        let id = asked
            .next()
            .unwrap_or_else(|| panic!("{at}: {title} written with no proposal"))
            .proposal
            .id()
            .as_str();
        assert!(asked.next().is_none(), "{at}: {title} proposed twice");
        let shown = format!("({id})");
        let rows = applied
            .iter()
            .filter(|e| e.detail.as_deref().is_some_and(|d| d.contains(&shown)))
            .count();
        assert_eq!(rows, 1, "{at}: {title} applied, {rows} audit rows");
    }
    assert_eq!(
        applied.len(),
        written.len(),
        "{at}: an `applied` row for a change not written"
    );
}

/// The title a history entry of page 2 wrote, if it wrote one.
pub fn title_written(entry: &HistoryEntry) -> Option<String> {
    entry
        .changes
        .iter()
        .find(|change| change.field == "title")
        .and_then(|change| change.new.for_host().as_str())
        .map(str::to_owned)
}

/// After recovery: no run is left `running` or `resuming`; every failed
/// run was failed by recovery, which said why (on the run and in the audit
/// trail); no proposal is approved with its change not applied (an
/// approval is finished or released).
pub fn recovered(target: &Target, point: &str) {
    let (rt, store) = target.store();
    let audit = rt
        .block_on(store.audit_log().audit_tail(1_000_000))
        .unwrap();
    let runs = rt.block_on(store.run_log().runs(1_000_000)).unwrap();
    for run in &runs {
        let id = &run.id.0;
        assert!(
            !matches!(run.status, RunPhase::Running | RunPhase::Resuming),
            "{point}: run {id} left {}",
            run.status
        );
        if run.status != RunPhase::Failed {
            continue;
        }
        let notes = rt.block_on(store.run_log().run_notes(&run.id)).unwrap();
        assert!(
            notes
                .iter()
                .any(|note| matches!(note, RunNote::Recovered { reason } if !reason.is_empty())),
            "{point}: failed run {id} without the reason: {notes:?}"
        );
        assert!(
            audit.iter().any(|e| e.run.as_deref() == Some(id.as_str())
                && e.tool.as_deref() == Some("recovery")
                && e.decision == "failed"),
            "{point}: failed run {id} without its audit row"
        );
    }
    let site = store.site();
    let history = rt.block_on(site.history("pages", 2)).unwrap();
    let written: Vec<String> = history.iter().filter_map(title_written).collect();
    for run in &runs {
        for stored in rt
            .block_on(store.decisions().run_proposals(&run.id))
            .unwrap()
        {
            let title = stored.proposal.arguments()["title"].as_str().unwrap_or("");
            if stored.status == "approved" {
                assert!(
                    written.iter().any(|t| t == title),
                    "{point}: proposal {} approved, its change ({title}) not applied",
                    stored.proposal.id().as_str()
                );
            }
        }
    }
}

/// The proposals waiting for a decision.
pub fn pending(target: &Target) -> Vec<String> {
    let (rt, store) = target.store();
    rt.block_on(store.decisions().pending_proposals())
        .unwrap()
        .iter()
        .map(|p| p.proposal.id().as_str().to_owned())
        .collect()
}

/// Every proposal decided.
pub fn none_pending(target: &Target, point: &str) {
    let left = pending(target);
    assert!(left.is_empty(), "{point}: still pending: {left:?}");
}
