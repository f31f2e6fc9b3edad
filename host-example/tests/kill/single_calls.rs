//! Kills inside the decision of a single MCP call's proposal, and two
//! deciders racing for one.
//!
//! A single call (what an MCP client's `tools/call` makes, through the app
//! layer as the MCP door calls it) proposes; the approver's process is
//! killed after the decision is recorded (`claimed`), after the change is
//! written (`applied`) or before the caller's outcome is recorded
//! (`outcome`). After each kill: no change written twice, and each
//! decided proposal audited as one `approved` row followed by one
//! `applied` or `failed` row, or neither (the kill came between). After
//! recovery: no proposal approved and unapplied, and what the caller's
//! task says matches the site.

use std::process::Output;

use host_example::Host;
use host_example::app::calls::CallScope;
use host_example::app::calls::tasks::CallTaskState;
use host_example::store::{AuditEntry, AuditKind, CallOutcome};
use serde_json::json;
use site_model::{PageId, Pages, Records};
use tool_core::calls::CancelToken;
use tool_core::{Outcome, RunId};

use crate::checks::title_written;
use crate::harness::{Target, runtime};

/// Who makes the calls, and who approves them.
const CALLER: &str = "admin";
const APPROVER: &str = "ops";

/// Proposals decided at once by two processes in [`two_deciders_at_once`].
const RACES: usize = 20;

/// `title` for page 2, proposed by one call of [`CALLER`]'s; the
/// proposal's id.
fn propose(target: &Target, title: &str) -> String {
    runtime().block_on(async {
        let host = Host::open(&target.db.url).await.unwrap();
        let caller = host.access().user(CALLER).await.unwrap().unwrap();
        let outcome = host
            .calls()
            .call(
                &caller,
                "update_page_metadata",
                json!({"page": 2, "title": title}),
                RunId(format!("call-{title}")),
                &CallScope::Stateless,
                CancelToken::new(),
            )
            .await
            .unwrap();
        let Outcome::Proposed(proposal) = outcome else {
            panic!("a write call proposes: {outcome:?}")
        };
        proposal.id().as_str().to_owned()
    })
}

/// Approvals of single calls' proposals killed at `point`, `kills`
/// times; then recovered, and every proposal left pending decided again.
pub fn approvals_killed_at(target: &Target, point: &str, kills: usize) {
    let mut proposals = Vec::new();
    for kill in 0..kills {
        let title = format!("M-{point}-{kill}");
        let proposal = propose(target, &title);
        proposals.push(proposal.clone());
        let approve = ["approvals", "approve", &proposal, "--user", APPROVER];
        let killed = target.kill_at(&approve, point, kill);
        let how = if killed.by_signal {
            "killed"
        } else {
            "had ended"
        };
        invariants(target, &format!("{point}, kill {kill} ({how})"), false);
    }
    target.recover();
    invariants(target, &format!("{point}, after recovery"), true);
    recovered_results_raise_the_callers_exposure(target, point, &proposals);
    for proposal in crate::checks::pending(target) {
        let _ = target
            .command(&["approvals", "approve", &proposal, "--user", APPROVER])
            .output()
            .unwrap();
    }
    let at = format!("{point}, after deciding again");
    invariants(target, &at, true);
    crate::checks::none_pending(target, &at);
}

/// A result recovery recorded for the caller (its process stopped before
/// it could): what it carried is not known, so the caller's exposure is
/// raised to untrusted content (fails closed).
fn recovered_results_raise_the_callers_exposure(target: &Target, point: &str, ids: &[String]) {
    let (rt, store) = target.store();
    let recovered = ids.iter().any(|id| {
        let outcome = rt
            .block_on(
                store
                    .decisions()
                    .call_outcome(&tool_core::ProposalId::new(id)),
            )
            .unwrap();
        matches!(outcome, Some((CallOutcome::Applied(output), _))
            if output.to_model_text().contains("process applying it stopped"))
    });
    if !recovered {
        return;
    }
    let window = rt.block_on(store.config().exposure_window()).unwrap();
    let read = rt
        .block_on(
            store
                .run_log()
                .exposure(&format!("caller:{CALLER}"), window),
        )
        .unwrap()
        .exposure;
    assert!(
        !read.raised_by(tool_core::DataClass::Public, tool_core::Content::Untrusted),
        "{point}: a recovered result left the caller's exposure at {read:?}"
    );
}

/// Every proposal decided by two `approvals approve` processes started
/// together: the same approver for the first half, two approvers for the
/// rest. One of them applies it, the other is told it was already
/// decided, and the outcome stored for the caller is the winner's.
pub fn two_deciders_at_once(target: &Target) {
    for race in 0..RACES {
        let title = format!("R-{race}");
        let proposal = propose(target, &title);
        let second = if race < RACES / 2 { APPROVER } else { CALLER };
        let start = |who: &str| {
            target
                .command(&["approvals", "approve", &proposal, "--user", who])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        };
        let (one, two) = (start(APPROVER), start(second));
        let outputs = [one, two].map(|child| child.wait_with_output().unwrap());
        let at = format!("race {race} ({APPROVER} and {second})");
        let won: Vec<&Output> = outputs.iter().filter(|o| o.status.success()).collect();
        assert_eq!(won.len(), 1, "{at}: one winner: {outputs:#?}");
        assert!(
            String::from_utf8_lossy(&won[0].stdout).contains("applied: "),
            "{at}: the winner applied it: {outputs:#?}"
        );
        let lost = outputs.iter().find(|o| !o.status.success()).unwrap();
        assert!(
            String::from_utf8_lossy(&lost.stderr).contains("already decided"),
            "{at}: the other is told it was decided: {outputs:#?}"
        );
        let (rt, store) = target.store();
        let id = tool_core::ProposalId::new(&proposal);
        let outcome = rt.block_on(store.decisions().call_outcome(&id)).unwrap();
        assert!(
            matches!(outcome, Some((CallOutcome::Applied(_), _))),
            "{at}: the stored outcome is the winner's: {outcome:?}"
        );
        invariants(target, &at, true);
    }
}

/// What must hold for every single call's proposal; `settled` once no
/// process is working on one (after recovery): then every approved one
/// was applied or failed, and the caller's task says which.
fn invariants(target: &Target, at: &str, settled: bool) {
    target.ok(&["db", "check"]);
    target.ok(&["--user", "admin", "audit", "verify"]);
    let (rt, store) = target.store();
    let audit = rt
        .block_on(store.audit_log().audit_tail(1_000_000))
        .unwrap();
    let site = store.site();
    let history = rt.block_on(site.history("pages", 2)).unwrap();
    let written: Vec<String> = history.iter().filter_map(title_written).collect();
    for title in &written {
        let times = written.iter().filter(|t| *t == title).count();
        assert_eq!(times, 1, "{at}: {title} applied {times} times");
    }
    let page = rt.block_on(site.page(PageId(2))).unwrap();
    if let Some(last) = written.first() {
        assert_eq!(
            page.title.for_host(),
            last,
            "{at}: the page and its history disagree"
        );
    }
    let host = rt.block_on(Host::open(&target.db.url)).unwrap();
    let caller = rt.block_on(host.access().user(CALLER)).unwrap().unwrap();
    let runs = rt.block_on(store.run_log().runs(1_000_000)).unwrap();
    for run in &runs {
        for stored in rt
            .block_on(store.decisions().run_proposals(&run.id))
            .unwrap()
        {
            let id = stored.proposal.id().as_str().to_owned();
            let title = stored.proposal.arguments()["title"]
                .as_str()
                .unwrap_or_default();
            let decision = rt
                .block_on(store.decisions().decision(stored.proposal.id()))
                .unwrap();
            assert_eq!(
                decision.is_some(),
                stored.status != "pending",
                "{at}: proposal {id} is {} with decision {decision:?}",
                stored.status
            );
            let rows = Rows::of(&audit, &id);
            let applied = written.iter().any(|t| t == title);
            rows.check(at, &id, applied);
            if applied {
                assert_eq!(
                    stored.status, "approved",
                    "{at}: {id} written, not approved"
                );
            }
            if !settled || stored.status != "approved" {
                continue;
            }
            assert_eq!(
                rows.approved.len(),
                1,
                "{at}: proposal {id} approved and neither applied nor failed"
            );
            let task = rt.block_on(host.calls().call_task(&caller, &id)).unwrap();
            match (&task.state, applied) {
                (CallTaskState::Applied(_), true) | (CallTaskState::NotApplied(_), false) => {}
                (state, _) => panic!("{at}: {id}'s task says {state:?}; written: {applied}"),
            }
        }
    }
}

/// The audit rows of one proposal's decision, by their place in the trail.
struct Rows {
    approved: Vec<usize>,
    applied: Vec<usize>,
    failed: Vec<usize>,
}

impl Rows {
    fn of(audit: &[AuditEntry], id: &str) -> Rows {
        let named = format!("proposal {id}");
        let shown = format!("({id})");
        let places = |decision: &str, name: &str| {
            audit
                .iter()
                .enumerate()
                .filter(|(_, e)| e.kind == AuditKind::Write && e.decision == decision)
                .filter(|(_, e)| e.detail.as_deref().is_some_and(|d| d.contains(name)))
                .map(|(place, _)| place)
                .collect::<Vec<_>>()
        };
        Rows {
            approved: places("approved", &named),
            applied: places("applied", &shown),
            failed: places("failed", &shown),
        }
    }

    /// One `approved` row and one `applied` or `failed` row after it, or
    /// none of them; `applied` exactly when the change was written.
    fn check(&self, at: &str, id: &str, written: bool) {
        let outcomes: Vec<usize> = self.applied.iter().chain(&self.failed).copied().collect();
        assert!(
            self.approved.len() <= 1 && outcomes.len() == self.approved.len(),
            "{at}: proposal {id}: approved rows {:?}, applied {:?}, failed {:?}",
            self.approved,
            self.applied,
            self.failed
        );
        if let (Some(decided), Some(outcome)) = (self.approved.first(), outcomes.first()) {
            assert!(
                decided < outcome,
                "{at}: proposal {id} applied before decided"
            );
        }
        assert_eq!(
            self.applied.len(),
            usize::from(written),
            "{at}: proposal {id} written: {written}, applied rows {:?}",
            self.applied
        );
    }
}
