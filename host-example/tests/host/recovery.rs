//! Leases and recovery with several processes on one database: a run being
//! worked on belongs to the process working on it while that process
//! renews its lease; another process recovers it only once the lease ran
//! out — a run left `running` is failed, one left `resuming` before its
//! decision is given back (and can be decided again), one left `resuming`
//! after an approval whose change was not applied is given back too, the
//! approval taken back (decided again, applied once). Each recovery is
//! noted on the run and in the audit trail.

use std::sync::Arc;
use std::time::Duration;

use host_example::app::worker::Recovered;
use host_example::store::{Lease, Recovery, RunNote, RunPhase, Store, now_ms};
use serde_json::json;
use sqlx::Row;
use tokio_util::sync::CancellationToken;
use tool_core::RunId;
use tool_core::approval::Decision;
use tool_core::{Actor, gates::Grant};

use super::fake_model::FakeModel;
use super::{Host, NEW_TITLE, propose_title, suspended_run};

fn multi_thread() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

async fn run_of(store: &Store, proposal: &str) -> RunId {
    let row = sqlx::query("SELECT run_id FROM proposals WHERE id = $1")
        .bind(proposal)
        .fetch_one(store.pool())
        .await
        .unwrap();
    RunId(row.try_get("run_id").unwrap())
}

/// Leaves `run` `resuming`, held by `owner` until `until_ms`, as a process
/// that took it would.
async fn take(store: &Store, run: &RunId, owner: &str, until_ms: i64) {
    sqlx::query(
        "UPDATE runs SET status = 'resuming', lease_owner = $2, lease_until_ms = $3 WHERE id = $1",
    )
    .bind(run.0.as_str())
    .bind(owner)
    .bind(until_ms)
    .execute(store.pool())
    .await
    .unwrap();
}

async fn status(store: &Store, run: &RunId) -> RunPhase {
    store.run_log().run(run).await.unwrap().unwrap().status
}

pub fn a_live_lease_is_left_and_expired_work_is_recovered(host: &Host) {
    let model = FakeModel::start([propose_title(), super::fake_model::answering("Renamed.")]);
    let proposal = suspended_run(host, &model);
    host.setting("worker", r#"{"concurrency": 2, "lease_seconds": 1}"#);
    let rt = multi_thread();
    let url = host.db.url.clone();
    let (first, second, store, resumed, running) = rt.block_on(async {
        let store = Store::open(&url).await.unwrap();
        let first = Arc::new(host_example::Host::open(&url).await.unwrap());
        let second = host_example::Host::open(&url).await.unwrap();
        assert_ne!(first.jobs().process_id(), second.jobs().process_id());
        // The first process takes the waiting run and starts another.
        let resumed = run_of(&store, &proposal).await;
        take(&store, &resumed, first.jobs().process_id(), now_ms() + 1000).await;
        let running = RunId("run-held".to_owned());
        let lease = Lease {
            owner: first.jobs().process_id(),
            until_ms: now_ms() + 1000,
        };
        store
            .run_log()
            .create_run(&running, "admin", &Grant::empty(), lease)
            .await
            .unwrap();
        (first, second, store, resumed, running)
    });
    // The first process lives: its worker renews its leases.
    let stop = CancellationToken::new();
    let worker = {
        let _inside = rt.enter();
        first.start_worker(stop.clone())
    };
    rt.block_on(async {
        tokio::time::sleep(Duration::from_millis(2500)).await;
        assert_eq!(second.jobs().recover_abandoned().await.unwrap(), []);
        assert_eq!(status(&store, &resumed).await, RunPhase::Resuming);
        assert_eq!(status(&store, &running).await, RunPhase::Running);
    });

    // The first process stops: its leases run out.
    stop.cancel();
    rt.block_on(worker.unwrap()).unwrap();
    drop(first);
    let recovered = rt.block_on(async {
        tokio::time::sleep(Duration::from_millis(2500)).await;
        let mut recovered = second.jobs().recover_abandoned().await.unwrap();
        recovered.sort_by(|a, b| a.run.0.cmp(&b.run.0));
        recovered
    });
    let runs: Vec<(&str, Recovery)> = recovered
        .iter()
        .map(|Recovered { run, recovery, .. }| (run.0.as_str(), *recovery))
        .collect();
    let mut expected = vec![
        (resumed.0.as_str(), Recovery::Release),
        (running.0.as_str(), Recovery::Fail),
    ];
    expected.sort_by_key(|(run, _)| *run);
    assert_eq!(runs, expected);
    rt.block_on(async {
        assert_eq!(status(&store, &resumed).await, RunPhase::Suspended);
        assert_eq!(status(&store, &running).await, RunPhase::Failed);
        let notes = store.run_log().run_notes(&running).await.unwrap();
        assert!(
            matches!(&notes[..], [RunNote::Recovered { reason }] if reason.contains("stopped")),
            "{notes:?}"
        );
        let audited = sqlx::query(
            "SELECT run_id, decision FROM audit WHERE tool = 'recovery' AND actor = 'host'",
        )
        .fetch_all(store.pool())
        .await
        .unwrap();
        assert_eq!(audited.len(), 2);
        // Recovered once: nothing is left to recover.
        assert_eq!(second.jobs().recover_abandoned().await.unwrap(), []);
    });
    // The released proposal can be decided again, and is applied once.
    host.ok(&["approvals", "approve", &proposal, "--user", "admin"]);
    assert_eq!(host.page_title(2), NEW_TITLE);
}

pub fn a_run_left_resuming_after_an_unapplied_approval_is_given_back(host: &Host) {
    let model = FakeModel::start([propose_title(), super::fake_model::answering("Renamed.")]);
    let proposal = suspended_run(host, &model);
    host.setting("worker", r#"{"concurrency": 2, "lease_seconds": 1}"#);
    let rt = multi_thread();
    let url = host.db.url.clone();
    rt.block_on(async {
        let store = Store::open(&url).await.unwrap();
        let run = run_of(&store, &proposal).await;
        take(&store, &run, "process-gone", now_ms() - 1).await;
        let decision = Decision::Approved {
            approver: Actor {
                id: "admin".to_owned(),
                admin: true,
            },
        };
        sqlx::query("INSERT INTO decisions (proposal_id, data, decided_at) VALUES ($1, $2, 0)")
            .bind(proposal.as_str())
            .bind(json!(decision).to_string())
            .execute(store.pool())
            .await
            .unwrap();
        sqlx::query("UPDATE proposals SET status = 'approved' WHERE id = $1")
            .bind(proposal.as_str())
            .execute(store.pool())
            .await
            .unwrap();
        // Approved, its change not applied (no `applied` row): the
        // approval is taken back and the run waits again.
        let host = host_example::Host::open(&url).await.unwrap();
        let recovered = host.jobs().recover_abandoned().await.unwrap();
        assert_eq!(recovered.len(), 1);
        assert_eq!(recovered[0].recovery, Recovery::Release);
        assert!(recovered[0].reason.contains("approval is taken back"));
        assert_eq!(status(&store, &run).await, RunPhase::Suspended);
        let id = tool_core::ProposalId::new(proposal.as_str());
        assert!(store.decisions().decision(&id).await.unwrap().is_none());
    });
    // Decided again, applied once. (Left `resuming` after its change, with
    // the change's `applied` row, a run is failed: tests/kill.)
    host.ok(&["approvals", "approve", proposal.as_str(), "--user", "admin"]);
    assert_eq!(host.page_title(2), NEW_TITLE);
}
