//! Background work: one worker per host process runs the jobs stored in
//! the database (table `jobs`), whichever process stored them, and keeps
//! every lease this process holds (on jobs and on runs) renewed.
//!
//! - A job has a kind ([`JobKind`], registered with the [`Host`]: see
//!   [`crate::app::job_kinds`]), a JSON payload, and attempts. [`Jobs::enqueue`](crate::app::Jobs::enqueue) stores one.
//! - The worker ([`Jobs::start_worker`](crate::app::Host::start_worker)) claims due jobs with a
//!   compare-and-set (one process gets each), at most the `worker`
//!   setting's `concurrency` at once, and runs them. A job that fails with
//!   [`JobError::Retry`] is queued again after its kind's backoff
//!   ([`Retries`]) until its last attempt; then, or at once with
//!   [`JobError::Fail`], it is `dead` (kept, listed by
//!   [`Jobs::dead_jobs`](crate::app::Jobs::dead_jobs), queued again by [`Jobs::revive_job`](crate::app::Jobs::revive_job)).
//! - A process holds what it works on with a lease (`worker.lease_seconds`)
//!   it renews every third of that. When a process stops, its
//!   leases run out: its jobs are claimed again by any worker, and its
//!   runs are recovered ([`Jobs::recover_abandoned`](crate::app::Jobs::recover_abandoned), at the worker's start
//!   and at every turn).

mod recovery;

use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, OnceLock, Weak};
use std::time::Duration;

use argon2::password_hash::rand_core::{OsRng, RngCore};
use futures_util::FutureExt;
use serde_json::Value;
use tokio::sync::Notify;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use tool_core::BoxFuture;

use crate::app::{Host, HostError, Jobs};
use crate::store::{JobStatus, Lease, NewJob, Store, StoredJob, WorkerSettings, now_ms};

pub use recovery::Recovered;

/// How often the worker looks for due jobs and abandoned work at most
/// (sooner when a job is queued in this process or one of its jobs ends).
const MOST_IDLE: Duration = Duration::from_secs(1);

/// What a kind of job does. Registered with the host
/// ([`crate::app::job_kinds::kinds`],
/// [`Jobs::with_job_kind`](crate::app::Host::with_job_kind)); its [`JobKind::name`] is stored with each
/// job, so it must not change once jobs of it exist.
pub trait JobKind: Send + Sync + 'static {
    /// Its name, stored in the `kind` column.
    fn name(&self) -> &'static str;

    /// How often a job of this kind is tried, and how long the worker
    /// waits between attempts. One attempt unless overridden.
    fn retries(&self) -> Retries {
        Retries::ONCE
    }

    /// Runs one attempt of `job`: its result (kept in the `result`
    /// column), or why it failed. An attempt may be a later one, after a
    /// failed attempt or after the process running an earlier one
    /// stopped: a kind keeps its own progress where it can find it again
    /// ([`JobRun::progress`] or its own rows) so that nothing is done
    /// twice.
    fn run<'a>(&'a self, host: &'a Host, job: &'a JobRun)
    -> BoxFuture<'a, Result<Value, JobError>>;
}

/// How a job of a kind is retried: at most `attempts` attempts, the first
/// retry `backoff` after a failure, each later one twice as long after the
/// one before, never more than `most_backoff`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retries {
    /// Attempts in all (at least 1).
    pub attempts: u32,
    /// The wait before the first retry.
    pub backoff: Duration,
    /// The longest wait.
    pub most_backoff: Duration,
}

impl Retries {
    /// One attempt, no retry.
    pub const ONCE: Retries = Retries {
        attempts: 1,
        backoff: Duration::ZERO,
        most_backoff: Duration::ZERO,
    };

    /// The wait after failed attempt number `attempt` (from 1).
    pub fn wait_after(&self, attempt: u32) -> Duration {
        let doubled = self
            .backoff
            .saturating_mul(2u32.saturating_pow(attempt.saturating_sub(1)));
        doubled.min(self.most_backoff)
    }
}

/// Why an attempt failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JobError {
    /// Worth trying again (if attempts are left).
    #[error("{0}")]
    Retry(String),
    /// Never worth trying again: the job is dead at once.
    #[error("{0}")]
    Fail(String),
}

impl From<crate::store::StoreError> for JobError {
    /// A store error is retried: the database may be back next time.
    fn from(error: crate::store::StoreError) -> Self {
        JobError::Retry(error.to_string())
    }
}

impl From<HostError> for JobError {
    /// A host error is retried: the database may be back next time.
    fn from(error: HostError) -> Self {
        JobError::Retry(error.to_string())
    }
}

/// One attempt of a claimed job, as its kind sees it.
#[derive(Debug, Clone)]
pub struct JobRun {
    /// The job as claimed (its `attempts` counts this one).
    pub job: StoredJob,
    owner: String,
}

impl JobRun {
    /// The process holding the job.
    pub(crate) fn owner(&self) -> &str {
        &self.owner
    }

    /// Records how far the job got (the `progress` column, shown while it
    /// runs). [`JobError::Fail`] if this process no longer holds the job:
    /// another one took it after this one's lease ran out, and this
    /// attempt must stop.
    pub async fn progress(&self, host: &Host, progress: &Value) -> Result<(), JobError> {
        let held = host
            .store()
            .job_queue()
            .set_job_progress(&self.job.id, &self.owner, progress)
            .await
            .map_err(|e| JobError::Retry(e.to_string()))?;
        if held {
            Ok(())
        } else {
            Err(lost(&self.job.id))
        }
    }
}

fn lost(id: &str) -> JobError {
    JobError::Fail(format!(
        "job {id} is no longer held by this process (its lease ran out)"
    ))
}

/// This process's id and its leases' renewal.
#[derive(Debug)]
pub(crate) struct Leases {
    owner: String,
    heartbeat: OnceLock<()>,
    wake: Notify,
}

impl Leases {
    pub(crate) fn new() -> Arc<Leases> {
        let mut bytes = [0u8; 8];
        OsRng.fill_bytes(&mut bytes);
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        Arc::new(Leases {
            owner: format!("process-{hex}"),
            heartbeat: OnceLock::new(),
            wake: Notify::new(),
        })
    }
}

/// Renews every lease `leases`' process holds, a third of the lease's
/// length apart, while the host holding `leases` lives.
async fn renew(store: Store, leases: Weak<Leases>) {
    loop {
        let Some(held) = leases.upgrade() else { return };
        let settings = store.config().worker_settings().await.unwrap_or_default();
        let until = now_ms() + millis(settings.lease());
        if let Err(error) = store.job_queue().renew_leases(&held.owner, until).await {
            tracing::warn!(%error, "renewing this process's leases failed");
        }
        drop(held);
        tokio::time::sleep(settings.lease() / 3).await;
    }
}

fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

impl Host {
    /// The same host with `kind` registered beside the built-in kinds
    /// (replacing one of the same name).
    pub fn with_job_kind(mut self, kind: Arc<dyn JobKind>) -> Self {
        let mut all = (*self.job_kinds).clone();
        all.insert(kind.name(), kind);
        self.job_kinds = Arc::new(all);
        self
    }

    /// Starts this process's worker on the current Tokio runtime: it
    /// recovers abandoned work, then claims and runs due jobs until `stop`
    /// is cancelled (jobs still running then are dropped, and picked up
    /// again by a worker once their lease runs out). `None`, and no
    /// worker, when called outside a runtime.
    pub fn start_worker(
        self: &Arc<Host>,
        stop: CancellationToken,
    ) -> Option<tokio::task::JoinHandle<()>> {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            tracing::warn!("no Tokio runtime: the background worker is not started");
            return None;
        };
        let host = Arc::clone(self);
        self.jobs().hold_leases();
        Some(runtime.spawn(async move { host.work(stop).await }))
    }

    async fn work(self: Arc<Host>, stop: CancellationToken) {
        let mut running: JoinSet<()> = JoinSet::new();
        loop {
            let settings = match self.store().config().worker_settings().await {
                Ok(settings) => settings,
                Err(error) => {
                    tracing::warn!(%error, "the worker setting cannot be read; using the default");
                    WorkerSettings::default()
                }
            };
            if let Err(error) = self.jobs().recover_abandoned().await {
                tracing::warn!(%error, "recovering abandoned runs failed");
            }
            if let Err(error) = self.approvals().expire_overdue().await {
                tracing::warn!(%error, "expiring overdue proposals failed");
            }
            while running.len() < settings.concurrency as usize {
                match self.jobs().claim().await {
                    Ok(Some(job)) => {
                        let host = Arc::clone(&self);
                        running.spawn(async move { host.jobs().attempt(job).await });
                    }
                    Ok(None) => break,
                    Err(error) => {
                        tracing::warn!(%error, "claiming a job failed");
                        break;
                    }
                }
            }
            let idle = MOST_IDLE.min(settings.lease() / 3);
            tokio::select! {
                () = stop.cancelled() => return,
                () = self.leases.wake.notified() => {}
                Some(_) = running.join_next(), if !running.is_empty() => {}
                () = tokio::time::sleep(idle) => {}
            }
        }
    }
}

impl<'h> Jobs<'h> {
    /// This process's id, the owner named in its leases.
    pub fn process_id(&self) -> &'h str {
        let host: &'h Host = self.host;
        &host.leases.owner
    }

    /// A lease for this process from now, as long as the `worker` setting
    /// says; renewed from now on while this host lives.
    pub(crate) async fn lease(&self) -> Result<Lease<'h>, HostError> {
        let host: &'h Host = self.host;
        let settings = host.store().config().worker_settings().await?;
        self.hold_leases();
        Ok(Lease {
            owner: &host.leases.owner,
            until_ms: now_ms() + millis(settings.lease()),
        })
    }

    /// Starts renewing this process's leases, once, on the current Tokio
    /// runtime (outside one, at the next lease taken inside one).
    fn hold_leases(&self) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        self.host.leases.heartbeat.get_or_init(|| {
            let store = self.host.store().clone();
            runtime.spawn(renew(store, Arc::downgrade(&self.host.leases)));
        });
    }

    /// Stores a job of the kind `kind` with `payload`, for `user` if a
    /// user asked for it; returns its id. The kind's [`Retries`] say how
    /// many attempts it gets. A worker in this process is woken at once.
    ///
    /// # Errors
    ///
    /// [`HostError::Job`] for a kind this host does not know.
    pub async fn enqueue(
        &self,
        kind: &str,
        user: Option<&str>,
        payload: Value,
    ) -> Result<String, HostError> {
        let job = self.new_job(kind, user, payload)?;
        self.host.store().job_queue().enqueue_job(&job).await?;
        self.host.leases.wake.notify_one();
        Ok(job.id)
    }

    /// A job of `kind` to store, not stored yet.
    pub(crate) fn new_job(
        &self,
        kind: &str,
        user: Option<&str>,
        payload: Value,
    ) -> Result<NewJob, HostError> {
        let known = self
            .host
            .job_kinds
            .get(kind)
            .ok_or_else(|| HostError::Job(format!("no job kind `{kind}`")))?;
        let mut bytes = [0u8; 8];
        OsRng.fill_bytes(&mut bytes);
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        Ok(NewJob {
            id: format!("job-{hex}"),
            kind: known.name().to_owned(),
            user: user.map(str::to_owned),
            payload,
            max_attempts: known.retries().attempts.max(1),
            run_after_ms: now_ms(),
        })
    }

    /// Wakes this process's worker (a job was stored).
    pub(crate) fn wake_worker(&self) {
        self.host.leases.wake.notify_one();
    }

    /// The job `id`, as stored.
    pub async fn job(&self, id: &str) -> Result<Option<StoredJob>, HostError> {
        Ok(self.host.store().job_queue().job(id).await?)
    }

    /// Up to `limit` dead jobs, newest first: failed on their last
    /// attempt, or for good.
    pub async fn dead_jobs(&self, limit: usize) -> Result<Vec<StoredJob>, HostError> {
        Ok(self
            .host
            .store()
            .job_queue()
            .jobs_with_status(JobStatus::Dead, limit)
            .await?)
    }

    /// Queues dead job `id` again with fresh attempts; `false` when it is
    /// not dead.
    pub async fn revive_job(&self, id: &str) -> Result<bool, HostError> {
        let revived = self.host.store().job_queue().revive_job(id).await?;
        self.wake_worker();
        Ok(revived)
    }

    async fn claim(&self) -> Result<Option<JobRun>, HostError> {
        let lease = self.lease().await?;
        let kinds: Vec<&str> = self.host.job_kinds.keys().copied().collect();
        let job = self
            .host
            .store()
            .job_queue()
            .claim_job(&kinds, lease)
            .await?;
        Ok(job.map(|job| JobRun {
            job,
            owner: self.host.leases.owner.clone(),
        }))
    }

    #[cfg(any(test, feature = "test-support"))]
    /// Claims and runs every due job, one after the other, in this task;
    /// returns how many attempts were made. For a process that does not
    /// run a worker (a command, a test) to do the work at hand.
    pub async fn run_due_jobs(&self) -> Result<usize, HostError> {
        let mut attempts = 0;
        while let Some(job) = self.claim().await? {
            self.attempt(job).await;
            attempts += 1;
        }
        Ok(attempts)
    }

    /// Runs one attempt of `job` and records how it went.
    async fn attempt(&self, run: JobRun) {
        let id = run.job.id.clone();
        let owner = run.owner.clone();
        let Some(kind) = self.host.job_kinds.get(run.job.kind.as_str()).cloned() else {
            return;
        };
        let outcome = if run.job.attempts > run.job.max_attempts {
            Err(JobError::Fail(
                "the process running its last attempt stopped".to_owned(),
            ))
        } else {
            // A panic in a kind ends its attempt, not the worker.
            AssertUnwindSafe(kind.run(self.host, &run))
                .catch_unwind()
                .await
                .unwrap_or_else(|_| Err(JobError::Retry("the job's attempt panicked".to_owned())))
        };
        let store = self.host.store();
        let recorded = match outcome {
            Ok(result) => {
                store
                    .job_queue()
                    .end_job(&id, &owner, JobStatus::Done, Some(&result), None)
                    .await
            }
            Err(JobError::Retry(error)) if run.job.attempts < run.job.max_attempts => {
                let wait = kind.retries().wait_after(run.job.attempts);
                store
                    .job_queue()
                    .retry_job(&id, &owner, &error, now_ms() + millis(wait))
                    .await
            }
            Err(JobError::Retry(error) | JobError::Fail(error)) => {
                store
                    .job_queue()
                    .end_job(&id, &owner, JobStatus::Dead, None, Some(&error))
                    .await
            }
        };
        if let Err(error) = recorded {
            tracing::warn!(%error, job = %id, "recording how a job's attempt went failed");
        }
    }
}

/// The job kinds a host knows, by name.
pub(crate) type JobKinds = Arc<BTreeMap<&'static str, Arc<dyn JobKind>>>;

/// `list` by name.
pub(crate) fn by_name(list: Vec<Arc<dyn JobKind>>) -> JobKinds {
    Arc::new(list.into_iter().map(|kind| (kind.name(), kind)).collect())
}
