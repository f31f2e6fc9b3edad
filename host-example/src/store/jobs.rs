//! Background jobs (table `jobs`): queued, claimed by one host process at a
//! time with a lease it renews, finished, retried later or dead.
//!
//! A claim is a compare-and-set (`UPDATE … WHERE status = 'queued' AND due,
//! OR status = 'running' AND its lease ran out`): of several processes
//! racing for one job, on SQLite or PostgreSQL, exactly one updates the row.
//! Every later write of a claimed job names its owner, so a process whose
//! lease ran out (and whose job another process took) changes nothing.

use crate::store::JobQueue;
use serde_json::Value;
use sqlx::Row;
use sqlx::any::AnyRow;
use sqlx::{Any, Transaction};

use super::{StoreError, from_json, now, to_json};

/// Where a job is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobStatus {
    /// Waiting for its `run_after` time and a worker.
    Queued,
    /// Claimed by a process (its lease says until when).
    Running,
    /// Finished; its result is kept.
    Done,
    /// Failed on its last attempt, or for good: kept, not tried again.
    Dead,
}

impl JobStatus {
    /// Its word in the `status` column.
    pub fn as_str(self) -> &'static str {
        match self {
            JobStatus::Queued => "queued",
            JobStatus::Running => "running",
            JobStatus::Done => "done",
            JobStatus::Dead => "dead",
        }
    }

    fn parse(text: &str, id: &str) -> Result<JobStatus, StoreError> {
        Ok(match text {
            "queued" => JobStatus::Queued,
            "running" => JobStatus::Running,
            "done" => JobStatus::Done,
            "dead" => JobStatus::Dead,
            _ => {
                return Err(StoreError::Corrupt {
                    what: format!("the status of job {id}"),
                    reason: format!("`{text}` is no job status"),
                });
            }
        })
    }
}

/// A job to store.
#[derive(Debug, Clone, PartialEq)]
pub struct NewJob {
    /// Its id (random, chosen by the caller).
    pub id: String,
    /// Its kind's name.
    pub kind: String,
    /// Who asked for it, if a user did: only they (and administrators)
    /// see it.
    pub user: Option<String>,
    /// What its kind needs to run it.
    pub payload: Value,
    /// How many attempts it gets before it is dead (at least 1).
    pub max_attempts: u32,
    /// Not before this time (milliseconds since the Unix epoch).
    pub run_after_ms: i64,
}

/// A job as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredJob {
    /// Its id.
    pub id: String,
    /// Its kind's name.
    pub kind: String,
    /// Who asked for it.
    pub user: Option<String>,
    /// What its kind needs to run it.
    pub payload: Value,
    /// Where it is.
    pub status: JobStatus,
    /// Attempts begun so far (a claim begins one).
    pub attempts: u32,
    /// Attempts it gets.
    pub max_attempts: u32,
    /// Not run before this (milliseconds since the epoch).
    pub run_after_ms: i64,
    /// The process working on it, while it runs.
    pub lease_owner: Option<String>,
    /// Until when that process holds it (milliseconds since the epoch).
    pub lease_until_ms: Option<i64>,
    /// How far it got, as its kind words it.
    pub progress: Option<Value>,
    /// What it came to, once done.
    pub result: Option<Value>,
    /// Why its last attempt failed.
    pub last_error: Option<String>,
    /// When it was stored (seconds since the epoch).
    pub created_at: i64,
    /// When it last changed (seconds).
    pub updated_at: i64,
    /// When it was done or died (seconds).
    pub finished_at: Option<i64>,
}

/// A lease: which process holds something, and until when (milliseconds
/// since the Unix epoch).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lease<'a> {
    /// The holding process's id.
    pub owner: &'a str,
    /// When the lease runs out unless renewed.
    pub until_ms: i64,
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

const COLUMNS: &str = "id, kind, user_name, payload, status, attempts, max_attempts, run_after_ms,
    lease_owner, lease_until_ms, progress, result, last_error, created_at, updated_at, finished_at";

fn job(row: &AnyRow) -> Result<StoredJob, StoreError> {
    let id: String = row.try_get("id")?;
    let json = |column: &str| -> Result<Option<Value>, StoreError> {
        match row.try_get::<Option<String>, _>(column)? {
            Some(_) => Ok(Some(from_json(row, column, || {
                format!("the {column} of job {id}")
            })?)),
            None => Ok(None),
        }
    };
    let count = |column: &str| -> Result<u32, StoreError> {
        Ok(u32::try_from(row.try_get::<i64, _>(column)?).unwrap_or(0))
    };
    Ok(StoredJob {
        kind: row.try_get("kind")?,
        user: row.try_get("user_name")?,
        payload: json("payload")?.unwrap_or(Value::Null),
        status: JobStatus::parse(&row.try_get::<String, _>("status")?, &id)?,
        attempts: count("attempts")?,
        max_attempts: count("max_attempts")?,
        run_after_ms: row.try_get("run_after_ms")?,
        lease_owner: row.try_get("lease_owner")?,
        lease_until_ms: row.try_get("lease_until_ms")?,
        progress: json("progress")?,
        result: json("result")?,
        last_error: row.try_get("last_error")?,
        created_at: row.try_get("created_at")?,
        updated_at: row.try_get("updated_at")?,
        finished_at: row.try_get("finished_at")?,
        id,
    })
}

/// Stores `job`, queued, inside `tx` (so a kind can store its own rows
/// beside it, all or nothing).
pub(crate) async fn insert_job(
    tx: &mut Transaction<'static, Any>,
    job: &NewJob,
) -> Result<(), StoreError> {
    let at = now();
    sqlx::query(
        "INSERT INTO jobs (id, kind, user_name, payload, status, attempts, max_attempts,
             run_after_ms, created_at, updated_at)
         VALUES ($1, $2, $3, $4, 'queued', 0, $5, $6, $7, $7)",
    )
    .bind(job.id.as_str())
    .bind(job.kind.as_str())
    .bind(job.user.as_deref())
    .bind(to_json(&job.payload))
    .bind(i64::from(job.max_attempts.max(1)))
    .bind(job.run_after_ms)
    .bind(at)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

impl JobQueue<'_> {
    /// Stores `job`, queued.
    pub async fn enqueue_job(&self, job: &NewJob) -> Result<(), StoreError> {
        let mut tx = self.store.begin_write().await?;
        insert_job(&mut tx, job).await?;
        tx.commit().await?;
        Ok(())
    }

    /// The job `id`.
    pub async fn job(&self, id: &str) -> Result<Option<StoredJob>, StoreError> {
        let row = sqlx::query(&format!("SELECT {COLUMNS} FROM jobs WHERE id = $1"))
            .bind(id)
            .fetch_optional(&self.store.pool)
            .await?;
        row.as_ref().map(job).transpose()
    }

    /// Up to `limit` jobs with `status`, newest first.
    pub async fn jobs_with_status(
        &self,
        status: JobStatus,
        limit: usize,
    ) -> Result<Vec<StoredJob>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM jobs WHERE status = $1 ORDER BY updated_at DESC, id LIMIT $2"
        ))
        .bind(status.as_str())
        .bind(i64::try_from(limit).unwrap_or(i64::MAX))
        .fetch_all(&self.store.pool)
        .await?;
        rows.iter().map(job).collect()
    }

    /// Claims one due job of the `kinds` named for `lease`: a queued job
    /// whose time has come, or a running one whose lease ran out (its
    /// process stopped). Begins an attempt. `None` when none is due, or
    /// other processes took every one first.
    pub async fn claim_job(
        &self,
        kinds: &[&str],
        lease: Lease<'_>,
    ) -> Result<Option<StoredJob>, StoreError> {
        let at = now_ms();
        let due = "((status = 'queued' AND run_after_ms <= $1)
                    OR (status = 'running' AND lease_until_ms < $1))";
        let candidates = sqlx::query(&format!(
            "SELECT id, kind FROM jobs WHERE {due} ORDER BY run_after_ms, id LIMIT 16"
        ))
        .bind(at)
        .fetch_all(&self.store.pool)
        .await?;
        for row in candidates {
            let id: String = row.try_get("id")?;
            let kind: String = row.try_get("kind")?;
            if !kinds.contains(&kind.as_str()) {
                continue;
            }
            let claimed = sqlx::query(&format!(
                "UPDATE jobs SET status = 'running', lease_owner = $2, lease_until_ms = $3,
                     attempts = attempts + 1, updated_at = $4
                 WHERE id = $5 AND {due}"
            ))
            .bind(at)
            .bind(lease.owner)
            .bind(lease.until_ms)
            .bind(now())
            .bind(id.as_str())
            .execute(&self.store.pool)
            .await?;
            if claimed.rows_affected() == 1 {
                return self.job(&id).await;
            }
        }
        Ok(None)
    }

    /// Renews every lease `owner` holds, on jobs and on runs, until
    /// `until_ms`; returns how many.
    ///
    /// Two statements, each atomic by itself, and no transaction around
    /// them: a job's lease and a run's are independent, and a transaction
    /// held across an `await` holds SQLite's write lock for as long as the
    /// task is not polled. The renewal runs as a background task, and on a
    /// runtime nobody drives for a while (a `current_thread` runtime
    /// between two `block_on`s) it would lock every other process out
    /// until the next one. A lone statement is run whole by the
    /// database's own thread.
    pub async fn renew_leases(&self, owner: &str, until_ms: i64) -> Result<u64, StoreError> {
        let jobs = sqlx::query(
            "UPDATE jobs SET lease_until_ms = $2 WHERE lease_owner = $1 AND status = 'running'",
        )
        .bind(owner)
        .bind(until_ms)
        .execute(&self.store.pool)
        .await?;
        let runs = sqlx::query(
            "UPDATE runs SET lease_until_ms = $2
             WHERE lease_owner = $1 AND status IN ('running', 'resuming')",
        )
        .bind(owner)
        .bind(until_ms)
        .execute(&self.store.pool)
        .await?;
        Ok(jobs.rows_affected() + runs.rows_affected())
    }

    /// Records how far job `id` got; `false` when `owner` no longer holds
    /// it.
    pub async fn set_job_progress(
        &self,
        id: &str,
        owner: &str,
        progress: &Value,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE jobs SET progress = $3, updated_at = $4
             WHERE id = $1 AND lease_owner = $2 AND status = 'running'",
        )
        .bind(id)
        .bind(owner)
        .bind(to_json(progress))
        .bind(now())
        .execute(&self.store.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Ends job `id` held by `owner`: `done` with `result`, or `dead` with
    /// `error` (`result` kept beside it if given). `false` when `owner` no
    /// longer holds it.
    pub async fn end_job(
        &self,
        id: &str,
        owner: &str,
        status: JobStatus,
        result: Option<&Value>,
        error: Option<&str>,
    ) -> Result<bool, StoreError> {
        let at = now();
        let done = sqlx::query(
            "UPDATE jobs SET status = $3, result = $4, last_error = $5, lease_owner = NULL,
                 lease_until_ms = NULL, updated_at = $6, finished_at = $6
             WHERE id = $1 AND lease_owner = $2 AND status = 'running'",
        )
        .bind(id)
        .bind(owner)
        .bind(status.as_str())
        .bind(result.map(to_json))
        .bind(error)
        .bind(at)
        .execute(&self.store.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Gives job `id` back to the queue after a failed attempt, to be
    /// tried again from `run_after_ms`. `false` when `owner` no longer
    /// holds it.
    pub async fn retry_job(
        &self,
        id: &str,
        owner: &str,
        error: &str,
        run_after_ms: i64,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE jobs SET status = 'queued', last_error = $3, run_after_ms = $4,
                 lease_owner = NULL, lease_until_ms = NULL, updated_at = $5
             WHERE id = $1 AND lease_owner = $2 AND status = 'running'",
        )
        .bind(id)
        .bind(owner)
        .bind(error)
        .bind(run_after_ms)
        .bind(now())
        .execute(&self.store.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Queues a dead job again, with its attempts counted from zero;
    /// `false` when it is not dead.
    pub async fn revive_job(&self, id: &str) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE jobs SET status = 'queued', attempts = 0, run_after_ms = $2,
                 finished_at = NULL, updated_at = $3
             WHERE id = $1 AND status = 'dead'",
        )
        .bind(id)
        .bind(now_ms())
        .bind(now())
        .execute(&self.store.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }
}
