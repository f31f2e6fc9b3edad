//! Kill point `batch`: a batch's item has its run id kept and its run not
//! started, in the `serve` whose worker runs the batch.

use host_example::app::Host;
use host_example::app::actions::Action;
use host_example::store::JobStatus;

use crate::harness::{Killed, Target, runtime};
use crate::{KILLS, checks, recovered};

/// Records of each batch (pages the admin may edit).
const RECORDS: [u64; 3] = [2, 3, 4];

/// One batch of three pages per kill, its `serve` killed at the first,
/// second or third item with each timing; then every batch finished by a
/// `serve` started again, each item run exactly once.
pub fn killed_during_a_batch(target: &Target) {
    let rt = runtime();
    let host = rt.block_on(Host::open(&target.db.url)).unwrap();
    let action = Action::of_tool("update_page_metadata").unwrap();
    let mut jobs = Vec::new();
    for kill in 0..KILLS {
        let job = rt
            .block_on(
                host.runs()
                    .start_batch("admin", &action, &RECORDS, "kill", 1_000_000),
            )
            .unwrap();
        jobs.push(job);
        let hit = (kill % RECORDS.len() + 1).to_string();
        let serve = ["serve", "--addr", "127.0.0.1:0"];
        let killed: Killed = target.kill_at_hit(&serve, "batch", &hit, kill);
        checks::after_restart(target, &killed);
        if kill == 0 {
            // Stopped at the point: the batch is not done.
            let stored = rt.block_on(host.jobs().job(&jobs[0])).unwrap().unwrap();
            assert_ne!(stored.status, JobStatus::Done, "{stored:?}");
        }
        // Another process (this one's host) takes the killed work over once
        // its lease (1 s) runs out and finishes it, before the next kill: a
        // batch job is given up after its fifth attempt, and a process
        // killed while holding a job spends one, so without this the
        // oldest batches would be spent by the next kills' processes.
        finish(&rt, &host, &jobs);
    }
    target.serve_until("every batch done", |rt, store| {
        jobs.iter().all(|job| {
            let stored = rt.block_on(store.job_queue().job(job)).unwrap();
            stored.is_some_and(|job| job.status == JobStatus::Done)
        })
    });
    recovered(target, "batch");
    // Every batch finished, each item once: one run each, and only those.
    let store = host_example::store::Store::open(&target.db.url);
    let store = rt.block_on(store).unwrap();
    let mut runs_of_items = Vec::new();
    for job in &jobs {
        let stored = rt.block_on(store.job_queue().job(job)).unwrap().unwrap();
        assert_eq!(stored.status, JobStatus::Done, "batch {job}: {stored:?}");
        let items = rt.block_on(store.run_log().batch_items(job)).unwrap();
        assert_eq!(items.len(), RECORDS.len(), "batch {job}");
        for item in items {
            assert_eq!(item.state, "done", "batch {job}: {item:?}");
            runs_of_items.push(item.run.expect("a done item has its run"));
        }
    }
    let all = rt.block_on(store.run_log().runs(1_000_000)).unwrap();
    for run in &runs_of_items {
        let times = all.iter().filter(|r| &r.id.0 == run).count();
        assert_eq!(times, 1, "item run {run} stored {times} times");
    }
    let mut unique = runs_of_items.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), runs_of_items.len(), "two items share a run");
}

/// Runs due jobs in `host` until every one of `jobs` is done (at most
/// 30 s: a killed process's lease runs out after 1 s).
fn finish(rt: &tokio::runtime::Runtime, host: &Host, jobs: &[String]) {
    for _ in 0..150 {
        rt.block_on(host.jobs().run_due_jobs()).unwrap();
        let done = jobs.iter().all(|job| {
            rt.block_on(host.jobs().job(job))
                .unwrap()
                .is_some_and(|job| job.status == JobStatus::Done)
        });
        if done {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    panic!("the killed batches were not finished by another process");
}
