//! Background jobs on every backend: one process claims a job, however
//! many race for it; a live lease is left alone and an expired one is
//! taken; a failing job is retried after its backoff and is dead after its
//! last attempt.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use host_example::app::Host;
use host_example::app::worker::{JobError, JobKind, JobRun, Retries};
use host_example::store::{JobStatus, Lease, NewJob, Store, now_ms};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use tool_core::BoxFuture;

/// Notes which process ran which job, and fails as told.
struct Noting {
    name: &'static str,
    ran: Arc<Mutex<Vec<(String, String)>>>,
    fail: Option<JobError>,
    retries: Retries,
}

impl JobKind for Noting {
    fn name(&self) -> &'static str {
        self.name
    }

    fn retries(&self) -> Retries {
        self.retries
    }

    fn run<'a>(
        &'a self,
        host: &'a Host,
        job: &'a JobRun,
    ) -> BoxFuture<'a, Result<Value, JobError>> {
        Box::pin(async move {
            self.ran
                .lock()
                .unwrap()
                .push((job.job.id.clone(), host.jobs().process_id().to_owned()));
            job.progress(host, &json!({"step": 1})).await?;
            match &self.fail {
                Some(error) => Err(error.clone()),
                None => Ok(json!({"payload": job.job.payload})),
            }
        })
    }
}

fn job(id: &str, kind: &str) -> NewJob {
    NewJob {
        id: id.to_owned(),
        kind: kind.to_owned(),
        user: None,
        payload: json!({"n": id}),
        max_attempts: 1,
        run_after_ms: now_ms(),
    }
}

async fn until_settled(store: &Store, ids: &[String]) {
    for _ in 0..200 {
        let mut settled = true;
        for id in ids {
            let status = store.job_queue().job(id).await.unwrap().unwrap().status;
            settled &= matches!(status, JobStatus::Done | JobStatus::Dead);
        }
        if settled {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the jobs did not settle");
}

pub async fn two_workers_run_each_job_once(url: &str) {
    let ran = Arc::new(Mutex::new(Vec::new()));
    let host = |store: Store| {
        Arc::new(Host::new(store).unwrap().with_job_kind(Arc::new(Noting {
            name: "note",
            ran: Arc::clone(&ran),
            fail: None,
            retries: Retries::ONCE,
        })))
    };
    let first = host(Store::open(url).await.unwrap());
    let second = host(Store::open(url).await.unwrap());
    let stop = CancellationToken::new();
    first.start_worker(stop.clone());
    second.start_worker(stop.clone());
    let mut ids = Vec::new();
    for n in 0..24 {
        let on = if n % 2 == 0 { &first } else { &second };
        ids.push(
            on.jobs()
                .enqueue("note", None, json!({"n": n}))
                .await
                .unwrap(),
        );
    }
    let store = Store::open(url).await.unwrap();
    until_settled(&store, &ids).await;
    stop.cancel();
    let ran = ran.lock().unwrap().clone();
    let mut seen: Vec<&String> = ran.iter().map(|(id, _)| id).collect();
    seen.sort();
    seen.dedup();
    assert_eq!(ran.len(), ids.len(), "each job ran once: {ran:?}");
    assert_eq!(seen.len(), ids.len());
    for id in &ids {
        let job = store.job_queue().job(id).await.unwrap().unwrap();
        assert_eq!(job.status, JobStatus::Done);
        assert_eq!(job.attempts, 1);
        assert_eq!(job.progress, Some(json!({"step": 1})));
        assert_eq!(job.result.unwrap()["payload"], job.payload);
        assert_eq!(job.lease_owner, None);
    }
}

pub async fn of_racing_claims_one_wins(url: &str) {
    let store = Store::open(url).await.unwrap();
    store
        .job_queue()
        .enqueue_job(&job("job-race", "race"))
        .await
        .unwrap();
    let mut racers = Vec::new();
    for n in 0..8 {
        let store = Store::open(url).await.unwrap();
        racers.push(tokio::spawn(async move {
            let owner = format!("racer-{n}");
            let lease = Lease {
                owner: &owner,
                until_ms: now_ms() + 60_000,
            };
            store
                .job_queue()
                .claim_job(&["race"], lease)
                .await
                .unwrap()
                .is_some()
        }));
    }
    let mut won = 0;
    for racer in racers {
        won += usize::from(racer.await.unwrap());
    }
    assert_eq!(won, 1);
}

pub async fn a_live_lease_is_left_and_an_expired_one_taken(url: &str) {
    let store = Store::open(url).await.unwrap();
    store
        .job_queue()
        .enqueue_job(&job("job-lease", "lease"))
        .await
        .unwrap();
    let live = Lease {
        owner: "alive",
        until_ms: now_ms() + 60_000,
    };
    let claimed = store
        .job_queue()
        .claim_job(&["lease"], live)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(claimed.attempts, 1);
    assert_eq!(claimed.lease_owner.as_deref(), Some("alive"));
    let other = Lease {
        owner: "other",
        until_ms: now_ms() + 60_000,
    };
    assert!(
        store
            .job_queue()
            .claim_job(&["lease"], other)
            .await
            .unwrap()
            .is_none()
    );
    // A kind this process does not know is not claimed.
    store
        .job_queue()
        .enqueue_job(&job("job-unknown", "unknown"))
        .await
        .unwrap();
    assert!(
        store
            .job_queue()
            .claim_job(&["lease"], other)
            .await
            .unwrap()
            .is_none()
    );
    // The holder stops renewing: its lease runs out.
    store
        .job_queue()
        .renew_leases("alive", now_ms() - 1)
        .await
        .unwrap();
    let taken = store
        .job_queue()
        .claim_job(&["lease"], other)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(taken.id, "job-lease");
    assert_eq!(taken.attempts, 2);
    assert_eq!(taken.lease_owner.as_deref(), Some("other"));
    // The first holder can no longer write it.
    assert!(
        !store
            .job_queue()
            .set_job_progress("job-lease", "alive", &json!(1))
            .await
            .unwrap()
    );
    assert!(
        !store
            .job_queue()
            .end_job("job-lease", "alive", JobStatus::Done, None, None)
            .await
            .unwrap()
    );
    assert!(
        store
            .job_queue()
            .end_job("job-lease", "other", JobStatus::Done, Some(&json!(2)), None)
            .await
            .unwrap()
    );
}

pub async fn a_failing_job_is_retried_then_dead_and_can_be_revived(url: &str) {
    let ran = Arc::new(Mutex::new(Vec::new()));
    let retries = Retries {
        attempts: 3,
        backoff: Duration::from_millis(100),
        most_backoff: Duration::from_millis(150),
    };
    assert_eq!(retries.wait_after(1), Duration::from_millis(100));
    assert_eq!(retries.wait_after(2), Duration::from_millis(150));
    let host = Arc::new(
        Host::new(Store::open(url).await.unwrap())
            .unwrap()
            .with_job_kind(Arc::new(Noting {
                name: "flaky",
                ran: Arc::clone(&ran),
                fail: Some(JobError::Retry("the far end is down".to_owned())),
                retries,
            }))
            .with_job_kind(Arc::new(Noting {
                name: "broken",
                ran: Arc::clone(&ran),
                fail: Some(JobError::Fail("the payload is wrong".to_owned())),
                retries,
            })),
    );
    assert!(
        host.jobs()
            .enqueue("nonesuch", None, json!({}))
            .await
            .is_err()
    );
    let stop = CancellationToken::new();
    let worker = host.start_worker(stop.clone()).expect("inside a runtime");
    let flaky = host.jobs().enqueue("flaky", None, json!({})).await.unwrap();
    let broken = host
        .jobs()
        .enqueue("broken", None, json!({}))
        .await
        .unwrap();
    let store = Store::open(url).await.unwrap();
    until_settled(&store, &[flaky.clone(), broken.clone()]).await;
    let flaky_job = store.job_queue().job(&flaky).await.unwrap().unwrap();
    assert_eq!(flaky_job.status, JobStatus::Dead);
    assert_eq!(flaky_job.attempts, 3);
    assert_eq!(flaky_job.last_error.as_deref(), Some("the far end is down"));
    let broken_job = store.job_queue().job(&broken).await.unwrap().unwrap();
    assert_eq!(broken_job.status, JobStatus::Dead);
    assert_eq!(broken_job.attempts, 1, "a failure for good is not retried");
    let dead: Vec<String> = host
        .jobs()
        .dead_jobs(10)
        .await
        .unwrap()
        .into_iter()
        .map(|job| job.id)
        .collect();
    assert!(dead.contains(&flaky) && dead.contains(&broken), "{dead:?}");
    let runs = |id: &str| ran.lock().unwrap().iter().filter(|(j, _)| j == id).count();
    assert_eq!(runs(&flaky), 3);
    assert_eq!(runs(&broken), 1);
    // The worker stops first: it would take the revived job at once and
    // could fail it for good again before the second revival is asked.
    stop.cancel();
    worker.await.unwrap();
    assert!(host.jobs().revive_job(&broken).await.unwrap());
    assert!(
        !host.jobs().revive_job(&broken).await.unwrap(),
        "no longer dead"
    );
    assert_eq!(
        store
            .job_queue()
            .job(&broken)
            .await
            .unwrap()
            .unwrap()
            .status,
        JobStatus::Queued
    );
    // Revived, it runs again (here, in this task) and fails for good again.
    assert_eq!(host.jobs().run_due_jobs().await.unwrap(), 1);
    assert_eq!(runs(&broken), 2);
    assert_eq!(
        store
            .job_queue()
            .job(&broken)
            .await
            .unwrap()
            .unwrap()
            .status,
        JobStatus::Dead
    );
}
