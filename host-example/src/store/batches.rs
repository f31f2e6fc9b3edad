//! The records of a batch job (table `batch_items`), one row each: waiting,
//! started (its run's id kept before the run is stored, so that a process
//! taking the job over after a crash finds the run rather than starting a
//! second), done with how its run ended, or kept from starting by the
//! batch's budget. Every write names the process holding the job: one
//! whose lease ran out writes nothing.

use crate::store::RunLog;
use sqlx::Row;

use super::jobs::insert_job;
use super::{NewJob, StoreError};

/// One record of a batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchItem {
    /// Its place in the batch, from 0.
    pub position: u32,
    /// The record's id.
    pub record: u64,
    /// `waiting`, `started`, `done` or `kept`.
    pub state: String,
    /// Its run, once chosen.
    pub run: Option<String>,
    /// How its run ended (the report's word), once done.
    pub kind: Option<String>,
    /// The answer, the proposal's summary, or why it failed.
    pub said: Option<String>,
    /// Tokens its run spent.
    pub tokens: u64,
}

/// The job `$1` is held by `$2`.
const HELD: &str =
    "EXISTS (SELECT 1 FROM jobs WHERE id = $1 AND lease_owner = $2 AND status = 'running')";

impl RunLog<'_> {
    /// Stores `job` with one waiting item per record, in one transaction.
    pub async fn enqueue_batch(&self, job: &NewJob, records: &[u64]) -> Result<(), StoreError> {
        let mut tx = self.store.begin_write().await?;
        insert_job(&mut tx, job).await?;
        for (position, record) in records.iter().enumerate() {
            sqlx::query(
                "INSERT INTO batch_items (job_id, position, record, state)
                 VALUES ($1, $2, $3, 'waiting')",
            )
            .bind(job.id.as_str())
            .bind(i64::try_from(position).unwrap_or(i64::MAX))
            .bind(i64::try_from(*record).unwrap_or(i64::MAX))
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// The items of batch job `job`, in order.
    pub async fn batch_items(&self, job: &str) -> Result<Vec<BatchItem>, StoreError> {
        let rows = sqlx::query(
            "SELECT position, record, state, run_id, kind, said, tokens FROM batch_items
             WHERE job_id = $1 ORDER BY position",
        )
        .bind(job)
        .fetch_all(&self.store.pool)
        .await?;
        rows.iter()
            .map(|row| {
                Ok(BatchItem {
                    position: u32::try_from(row.try_get::<i64, _>("position")?).unwrap_or(0),
                    record: u64::try_from(row.try_get::<i64, _>("record")?).unwrap_or(0),
                    state: row.try_get("state")?,
                    run: row.try_get("run_id")?,
                    kind: row.try_get("kind")?,
                    said: row.try_get("said")?,
                    tokens: u64::try_from(row.try_get::<i64, _>("tokens")?).unwrap_or(0),
                })
            })
            .collect()
    }

    /// Marks item `position` started with run `run`, while `owner` holds
    /// the job; `false` (nothing written) otherwise or if it was not
    /// waiting.
    pub async fn start_batch_item(
        &self,
        job: &str,
        owner: &str,
        position: u32,
        run: &str,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query(&format!(
            "UPDATE batch_items SET state = 'started', run_id = $4
             WHERE job_id = $1 AND position = $3 AND state = 'waiting' AND {HELD}"
        ))
        .bind(job)
        .bind(owner)
        .bind(i64::from(position))
        .bind(run)
        .execute(&self.store.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Marks item `position` done (from waiting or started) with how it
    /// ended, while `owner` holds the job; `false` (nothing written)
    /// otherwise.
    #[allow(clippy::too_many_arguments)]
    pub async fn finish_batch_item(
        &self,
        job: &str,
        owner: &str,
        position: u32,
        kind: &str,
        said: &str,
        tokens: u64,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query(&format!(
            "UPDATE batch_items SET state = 'done', kind = $4, said = $5, tokens = $6
             WHERE job_id = $1 AND position = $3 AND state IN ('waiting', 'started') AND {HELD}"
        ))
        .bind(job)
        .bind(owner)
        .bind(i64::from(position))
        .bind(kind)
        .bind(said)
        .bind(i64::try_from(tokens).unwrap_or(i64::MAX))
        .execute(&self.store.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Marks every waiting item from `position` on as kept from starting
    /// by the budget, while `owner` holds the job.
    pub async fn keep_batch_items(
        &self,
        job: &str,
        owner: &str,
        position: u32,
    ) -> Result<(), StoreError> {
        sqlx::query(&format!(
            "UPDATE batch_items SET state = 'kept'
             WHERE job_id = $1 AND position >= $3 AND state = 'waiting' AND {HELD}"
        ))
        .bind(job)
        .bind(owner)
        .bind(i64::from(position))
        .execute(&self.store.pool)
        .await?;
        Ok(())
    }
}
