//! A batch as a background job ([`BatchJob`]): its records are rows of
//! their own, each run once, in order, by whichever process's worker holds
//! the job; the report is read back from those rows ([`Runs::batch`](crate::app::Runs::batch)).
//!
//! Each record's run id is chosen and kept before the run is stored. A
//! process taking the job over after the one before stopped (its lease ran
//! out) finds a record started but not done, and finishes it without
//! running it twice: a run that was never stored is started now with that
//! id; one that was is read back as it ended (recovered first if its
//! process left it running: see [`crate::app::worker`]).

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tool_core::{BoxFuture, RunId};

use super::{BatchReport, BatchRun, RunKind};
use crate::app::actions::{Action, Unfit};
use crate::app::killpoint::{self, points};
use crate::app::runs::{RunEnded, new_run_id};
use crate::app::worker::{JobError, JobKind, JobRun, Retries};
use crate::app::{Host, HostError, Runs};
use crate::store::{BatchItem, JobStatus, RunPhase};
use tool_core::agent::RunStatus;

/// The job kind's name.
pub(super) const BATCH_KIND: &str = "batch";

/// What a batch job is asked to do (its payload); the records are its
/// items.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct BatchOrder {
    /// The action's tool.
    pub tool: String,
    /// The note for the model.
    pub note: String,
    /// The batch's token budget.
    pub budget: u64,
    /// Records past the press's limit, for the next press.
    pub next_press: Vec<u64>,
}

impl BatchOrder {
    pub(super) fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// A batch as its page shows it: where the job is, and its report so far.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchView {
    /// The action's tool.
    pub tool: String,
    /// Where the job is: queued, running, done or dead.
    pub status: JobStatus,
    /// The records of this press.
    pub total: usize,
    /// The runs done so far (and what the budget kept).
    pub report: BatchReport,
    /// Why the job died, if it did.
    pub error: Option<String>,
}

impl BatchView {
    /// Whether the worker still has records of it to run.
    pub fn is_live(&self) -> bool {
        matches!(self.status, JobStatus::Queued | JobStatus::Running)
    }
}

/// Runs a stored batch: one run per record, in order, each checked
/// against what is left of the budget. Tried up to five times: a process
/// that stops takes its attempt with it, and the next one goes on from
/// the records' rows.
#[derive(Debug, Clone, Copy)]
pub struct BatchJob;

impl JobKind for BatchJob {
    fn name(&self) -> &'static str {
        BATCH_KIND
    }

    fn retries(&self) -> Retries {
        Retries {
            attempts: 5,
            backoff: std::time::Duration::from_secs(1),
            most_backoff: std::time::Duration::from_secs(30),
        }
    }

    fn run<'a>(
        &'a self,
        host: &'a Host,
        job: &'a JobRun,
    ) -> BoxFuture<'a, Result<Value, JobError>> {
        Box::pin(async move { host.runs().run_batch(job).await })
    }
}

impl Runs<'_> {
    /// Batch job `id` as `viewer` sees it; one that is not theirs reads
    /// like one that does not exist.
    pub async fn batch(&self, viewer: &str, id: &str) -> Result<BatchView, HostError> {
        let missing = || HostError::Job(format!("no batch `{id}`"));
        let job = self
            .host
            .store()
            .job_queue()
            .job(id)
            .await?
            .ok_or_else(missing)?;
        if job.kind != BATCH_KIND || job.user.as_deref() != Some(viewer) {
            return Err(missing());
        }
        let order: BatchOrder = serde_json::from_value(job.payload.clone())
            .map_err(|error| HostError::Job(format!("batch `{id}` is corrupt: {error}")))?;
        let items = self.host.store().run_log().batch_items(id).await?;
        let mut report = BatchReport {
            runs: Vec::new(),
            next_press: order.next_press,
            kept_by_budget: Vec::new(),
            spent: 0,
            budget: order.budget,
        };
        for item in &items {
            report.spent += item.tokens;
            match item.state.as_str() {
                "done" => report.runs.push(BatchRun {
                    record: item.record,
                    run: item.run.clone().map(RunId),
                    kind: RunKind::parse(item.kind.as_deref().unwrap_or_default()),
                    said: item.said.clone().unwrap_or_default(),
                }),
                "kept" => report.kept_by_budget.push(item.record),
                _ => {}
            }
        }
        Ok(BatchView {
            tool: order.tool,
            status: job.status,
            total: items.len(),
            report,
            error: job.last_error.filter(|_| job.status == JobStatus::Dead),
        })
    }

    /// One attempt of a batch job: every record not done yet.
    async fn run_batch(&self, job: &JobRun) -> Result<Value, JobError> {
        let id = job.job.id.as_str();
        let owner = job.owner();
        let order: BatchOrder = serde_json::from_value(job.job.payload.clone())
            .map_err(|error| JobError::Fail(format!("the batch is corrupt: {error}")))?;
        let action = Action::of_tool(&order.tool)
            .ok_or_else(|| JobError::Fail(format!("there is no action `{}`", order.tool)))?;
        let user = job
            .job
            .user
            .clone()
            .ok_or_else(|| JobError::Fail("the batch names no user".to_owned()))?;
        let actor = self.host.actor(&user).await?;
        let permissions = self.site_permissions(&actor).await;
        let store = self.host.store();
        let items = store.run_log().batch_items(id).await?;
        let total = items.len();
        let mut spent: u64 = items.iter().map(|item| item.tokens).sum();
        let mut done = items
            .iter()
            .filter(|item| matches!(item.state.as_str(), "done" | "kept"))
            .count();
        for item in items {
            let held = match item.state.as_str() {
                "started" => self.settle(job, &item).await?,
                "waiting" => {
                    let record = match &permissions {
                        Ok(permissions) => {
                            self.editable_record(permissions, action.kind, item.record)
                                .await
                        }
                        Err(error) => Err(Unfit::Site(error.to_string())),
                    };
                    let record = match record {
                        Ok(record) => record,
                        Err(unfit) => {
                            let said = format!("not started: {unfit}");
                            self.finish_item(job, &item, RunKind::Failed, &said, 0)
                                .await?;
                            done += 1;
                            job.progress(self.host, &progress(done, total)).await?;
                            continue;
                        }
                    };
                    let left = order.budget.saturating_sub(spent);
                    let floor = self
                        .estimate(&actor, &action, std::slice::from_ref(&record))
                        .await?
                        .per_run_floor;
                    if left < floor {
                        store
                            .run_log()
                            .keep_batch_items(id, owner, item.position)
                            .await
                            .map_err(HostError::from)?;
                        break;
                    }
                    let mut request = action.request(&record, &user, &order.note);
                    request.token_budget = Some(left);
                    let run = new_run_id();
                    if !store
                        .run_log()
                        .start_batch_item(id, owner, item.position, &run.0)
                        .await
                        .map_err(HostError::from)?
                    {
                        return Err(lost(id));
                    }
                    killpoint::reached(points::BATCH).await;
                    self.run_item(job, &item, run, &user, request).await?
                }
                _ => {
                    continue;
                }
            };
            spent += held;
            done += 1;
            job.progress(self.host, &progress(done, total)).await?;
        }
        Ok(json!({ "spent": spent }))
    }

    /// Runs the started item `item` with run id `run`; returns the tokens
    /// it spent.
    async fn run_item(
        &self,
        job: &JobRun,
        item: &BatchItem,
        run: RunId,
        user: &str,
        request: crate::store::RunRequest,
    ) -> Result<u64, JobError> {
        let (kind, said, tokens) =
            match self.start_run_as(run.clone(), user, request, &mut ()).await {
                Ok(report) => {
                    let stored = self.host.store().run_log().run(&run).await?;
                    let tokens = stored.map_or(0, |s| s.usage.input_tokens + s.usage.output_tokens);
                    let said = match &report.ended {
                        RunEnded::Suspended(proposal) => proposal.summary.clone(),
                        RunEnded::Finished(finished) => match &finished.status {
                            RunStatus::Failed { error } => error.to_string(),
                            RunStatus::Budget { reason } => reason.clone(),
                            _ => finished.answer.clone().unwrap_or_default(),
                        },
                    };
                    let phase = match &report.ended {
                        RunEnded::Suspended(_) => RunPhase::Suspended,
                        RunEnded::Finished(finished) => RunPhase::of(&finished.status),
                    };
                    (RunKind::of(phase), said, tokens)
                }
                Err(error) => (RunKind::Failed, error.to_string(), 0),
            };
        self.finish_item(job, item, kind, &said, tokens).await?;
        Ok(tokens)
    }

    /// Finishes an item a process before this one started: its run is read
    /// back as it ended, or started now if it was never stored. Returns the
    /// tokens it spent.
    async fn settle(&self, job: &JobRun, item: &BatchItem) -> Result<u64, JobError> {
        let run = RunId(item.run.clone().unwrap_or_default());
        let mut stored = self.host.store().run_log().run(&run).await?;
        if stored.is_none() {
            // Stopped before the run was stored: it never started.
            let user = job.job.user.clone().unwrap_or_default();
            let order: BatchOrder = serde_json::from_value(job.job.payload.clone())
                .map_err(|error| JobError::Fail(format!("the batch is corrupt: {error}")))?;
            let action = Action::of_tool(&order.tool)
                .ok_or_else(|| JobError::Fail(format!("there is no action `{}`", order.tool)))?;
            let actor = self.host.actor(&user).await?;
            let permissions = self
                .site_permissions(&actor)
                .await
                .map_err(|e| JobError::Retry(e.to_string()))?;
            let record = match self
                .editable_record(&permissions, action.kind, item.record)
                .await
            {
                Ok(record) => record,
                Err(unfit) => {
                    let said = format!("not started: {unfit}");
                    self.finish_item(job, item, RunKind::Failed, &said, 0)
                        .await?;
                    return Ok(0);
                }
            };
            let request = action.request(&record, &user, &order.note);
            return self.run_item(job, item, run, &user, request).await;
        }
        if stored
            .as_ref()
            .is_some_and(|s| matches!(s.status, RunPhase::Running | RunPhase::Resuming))
        {
            // Its process left it: recovered once its lease ran out.
            self.jobs.recover_abandoned().await?;
            stored = self.host.store().run_log().run(&run).await?;
        }
        let Some(stored) = stored else {
            return Err(JobError::Retry(format!("run {} vanished", run.0)));
        };
        if matches!(stored.status, RunPhase::Running | RunPhase::Resuming) {
            return Err(JobError::Retry(format!(
                "run {} is still held by a live process",
                run.0
            )));
        }
        let tokens = stored.usage.input_tokens + stored.usage.output_tokens;
        let notes = self.host.store().run_log().run_notes(&run).await?;
        let said = match notes.last() {
            Some(note @ crate::store::RunNote::Recovered { .. }) => note.to_string(),
            _ => stored.answer.clone().unwrap_or_default(),
        };
        let kind = RunKind::of(stored.status);
        self.finish_item(job, item, kind, &said, tokens).await?;
        Ok(tokens)
    }

    async fn finish_item(
        &self,
        job: &JobRun,
        item: &BatchItem,
        kind: RunKind,
        said: &str,
        tokens: u64,
    ) -> Result<(), JobError> {
        let id = job.job.id.as_str();
        let recorded = self
            .host
            .store()
            .run_log()
            .finish_batch_item(id, job.owner(), item.position, kind.as_str(), said, tokens)
            .await
            .map_err(HostError::from)?;
        if recorded { Ok(()) } else { Err(lost(id)) }
    }
}

fn progress(done: usize, total: usize) -> Value {
    json!({ "done": done, "total": total })
}

fn lost(id: &str) -> JobError {
    JobError::Fail(format!(
        "batch {id} is no longer held by this process (its lease ran out)"
    ))
}
