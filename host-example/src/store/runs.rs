//! Runs: who started them, their grant, their state while suspended, every
//! event as it happens, and how they ended.

use sqlx::Row;
use sqlx::any::AnyRow;
use tool_core::RunId;
use tool_core::agent::{Event, Finished, RunState, Usage};
use tool_core::gates::Grant;

use super::{Store, StoreError, from_json, now, to_json};

/// A run as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredRun {
    /// Its id.
    pub id: RunId,
    /// The user it runs as.
    pub user: String,
    /// `running`, `suspended`, or how it ended (`completed`, `truncated`,
    /// `budget`, `failed`).
    pub status: String,
    /// What it may call, fixed when it started.
    pub grant: Grant,
    /// Its state while suspended, waiting for an approval.
    pub state: Option<RunState>,
    /// The final answer, once finished with one.
    pub answer: Option<String>,
    /// Tokens used so far.
    pub usage: Usage,
    /// When it started and when it last changed (seconds since the epoch).
    pub created_at: i64,
    /// See `created_at`.
    pub updated_at: i64,
}

impl StoredRun {
    fn from_row(row: &AnyRow) -> Result<StoredRun, StoreError> {
        let id: String = row.try_get("id")?;
        let state: Option<String> = row.try_get("state")?;
        let what = |part: &str| format!("the {part} of run {id}");
        Ok(StoredRun {
            grant: from_json(row, "grant_json", || what("grant"))?,
            state: state
                .map(|text| {
                    serde_json::from_str(&text).map_err(|error| StoreError::Corrupt {
                        what: what("state"),
                        reason: error.to_string(),
                    })
                })
                .transpose()?,
            user: row.try_get("user_name")?,
            status: row.try_get("status")?,
            answer: row.try_get("answer")?,
            usage: Usage {
                input_tokens: row.try_get::<i64, _>("input_tokens")?.max(0) as u64,
                output_tokens: row.try_get::<i64, _>("output_tokens")?.max(0) as u64,
            },
            created_at: row.try_get("created_at")?,
            updated_at: row.try_get("updated_at")?,
            id: RunId(id),
        })
    }
}

fn tokens(count: u64) -> i64 {
    i64::try_from(count).unwrap_or(i64::MAX)
}

impl Store {
    /// Records a new run, `running`.
    pub async fn create_run(
        &self,
        id: &RunId,
        user: &str,
        grant: &Grant,
    ) -> Result<(), StoreError> {
        let at = now();
        sqlx::query(
            "INSERT INTO runs (id, user_name, status, grant_json, created_at, updated_at)
             VALUES ($1, $2, 'running', $3, $4, $4)",
        )
        .bind(id.0.as_str())
        .bind(user)
        .bind(to_json(grant))
        .bind(at)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Appends `event` to the run's events; returns its number (from 1).
    pub async fn record_event(&self, run: &RunId, event: &Event) -> Result<i64, StoreError> {
        let row = sqlx::query(
            "INSERT INTO run_events (run_id, seq, at, data)
             SELECT $1, COALESCE(MAX(seq), 0) + 1, $2, $3 FROM run_events WHERE run_id = $1
             RETURNING seq",
        )
        .bind(run.0.as_str())
        .bind(now())
        .bind(to_json(event))
        .fetch_one(&self.pool)
        .await?;
        Ok(row.try_get("seq")?)
    }

    /// The run's events, in order.
    pub async fn run_events(&self, run: &RunId) -> Result<Vec<Event>, StoreError> {
        let rows = sqlx::query("SELECT seq, data FROM run_events WHERE run_id = $1 ORDER BY seq")
            .bind(run.0.as_str())
            .fetch_all(&self.pool)
            .await?;
        rows.iter()
            .map(|row| {
                let seq: i64 = row.try_get("seq")?;
                from_json(row, "data", || format!("event {seq} of run {}", run.0))
            })
            .collect()
    }

    /// Stores the state of a run waiting for an approval.
    pub async fn suspend_run(&self, run: &RunId, state: &RunState) -> Result<(), StoreError> {
        let usage = state.usage();
        sqlx::query(
            "UPDATE runs SET status = 'suspended', state = $2, input_tokens = $3,
             output_tokens = $4, updated_at = $5 WHERE id = $1",
        )
        .bind(run.0.as_str())
        .bind(to_json(state))
        .bind(tokens(usage.input_tokens))
        .bind(tokens(usage.output_tokens))
        .bind(now())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Records how a run ended: its status, answer and usage.
    pub async fn finish_run(&self, run: &RunId, finished: &Finished) -> Result<(), StoreError> {
        let outcome = serde_json::to_value(&finished.status).unwrap_or_default();
        let status = outcome["status"].as_str().unwrap_or("finished").to_owned();
        sqlx::query(
            "UPDATE runs SET status = $2, outcome = $3, answer = $4, state = NULL,
             input_tokens = $5, output_tokens = $6, updated_at = $7 WHERE id = $1",
        )
        .bind(run.0.as_str())
        .bind(status)
        .bind(outcome.to_string())
        .bind(finished.answer.clone())
        .bind(tokens(finished.usage.input_tokens))
        .bind(tokens(finished.usage.output_tokens))
        .bind(now())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// One run, if it exists.
    pub async fn run(&self, id: &RunId) -> Result<Option<StoredRun>, StoreError> {
        sqlx::query(
            "SELECT id, user_name, status, grant_json, state, answer, input_tokens,
             output_tokens, created_at, updated_at FROM runs WHERE id = $1",
        )
        .bind(id.0.as_str())
        .fetch_optional(&self.pool)
        .await?
        .as_ref()
        .map(StoredRun::from_row)
        .transpose()
    }
}
