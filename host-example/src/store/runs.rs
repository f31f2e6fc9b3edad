//! Runs: who started them, their grant, their state while suspended, every
//! event as it happens, and how they ended.

use crate::store::RunLog;
use serde::{Deserialize, Serialize};
use sqlx::Row;
use sqlx::any::AnyRow;
use std::collections::BTreeSet;
use tool_core::RunId;
use tool_core::agent::{Event, Finished, Message, RunState, Usage};
use tool_core::gates::{Grant, Selection};

use super::jobs::Lease;
use super::proposals::insert_proposal_once;
use super::{StoreError, from_json, now, to_json};
pub use crate::domain::runs::RunPhase;

/// A stored run's phase from its `status` column: a word no phase has is
/// a corrupt row, named.
pub(super) fn phase_of(text: &str, run: &str) -> Result<RunPhase, StoreError> {
    RunPhase::parse(text).ok_or_else(|| StoreError::Corrupt {
        what: format!("the status of run {run}"),
        reason: format!("`{text}` is no run status"),
    })
}

/// A run as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredRun {
    /// Its id.
    pub id: RunId,
    /// The user it runs as.
    pub user: String,
    /// Where it is.
    pub status: RunPhase,
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
    /// What it was asked, if recorded ([`RunLog::save_run_request`](crate::store::RunLog::save_run_request)).
    pub request: Option<RunRequest>,
    /// The whole conversation of a finished run, to continue it later
    /// (a failed run's is all that is left of its state).
    pub conversation: Option<Vec<Message>>,
}

/// What a run was asked: kept with it, so that resuming it (in any
/// process) rebuilds the same inputs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunRequest {
    /// The user's prompt.
    pub prompt: String,
    /// The skills selected by name.
    pub skills: Vec<String>,
    /// The round cap.
    pub max_rounds: u32,
    /// The model configuration by name (setting `models`); `None`: the
    /// `model` setting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The tools the run is offered, of those the gates allow (absent in
    /// requests stored before it existed: every tool).
    #[serde(default)]
    pub tools: Selection,
    /// Tool groups asked for, each standing for every tool of the group;
    /// with `tools`, the run is offered the union ([`RunRequest::selection`](crate::app::RunRequest::selection)).
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub groups: BTreeSet<String>,
    /// The most tokens (read and written) the run may spend over its whole
    /// life; past it, the next round does not start and the run ends
    /// stopped by the budget. `None` sets no limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_budget: Option<u64>,
    /// Whether the model keeps each answer's JSON as it came (for the
    /// playground's inspector).
    #[serde(default)]
    pub capture_raw: bool,
    /// The record an action's prompt quotes (`page 20`), text people wrote
    /// on the site included: the run starts as having read untrusted
    /// content (gate 9). Absent: the prompt is the user's own words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quotes: Option<String>,
}

/// One line of the runs list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunSummary {
    /// Its id.
    pub id: RunId,
    /// The user it runs as.
    pub user: String,
    /// Where it is.
    pub status: RunPhase,
    /// When it started (seconds since the epoch).
    pub created_at: i64,
    /// Rounds started so far.
    pub rounds: i64,
    /// The final answer, once finished with one.
    pub answer: Option<String>,
}

impl StoredRun {
    /// Whether it is a single call's run of one step (an MCP client's
    /// call that proposed): nothing asked a model, so no request is kept.
    /// Every agent run keeps its request ([`RunLog::save_run_request`](crate::store::RunLog::save_run_request)).
    pub fn is_single_call(&self) -> bool {
        self.request.is_none()
    }

    fn from_row(row: &AnyRow) -> Result<StoredRun, StoreError> {
        let id: String = row.try_get("id")?;
        let state: Option<String> = row.try_get("state")?;
        let what = |part: &str| format!("the {part} of run {id}");
        let optional = |column: &str| -> Result<Option<String>, StoreError> {
            Ok(row.try_get::<Option<String>, _>(column)?)
        };
        let request = optional("request")?
            .map(|text| {
                serde_json::from_str(&text).map_err(|error| StoreError::Corrupt {
                    what: what("request"),
                    reason: error.to_string(),
                })
            })
            .transpose()?;
        let conversation = optional("conversation")?
            .map(|text| {
                serde_json::from_str(&text).map_err(|error| StoreError::Corrupt {
                    what: what("conversation"),
                    reason: error.to_string(),
                })
            })
            .transpose()?;
        Ok(StoredRun {
            request,
            conversation,
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
            status: phase_of(&row.try_get::<String, _>("status")?, &id)?,
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

impl RunLog<'_> {
    /// Records a new run, `running`, held by `lease`.
    pub async fn create_run(
        &self,
        id: &RunId,
        user: &str,
        grant: &Grant,
        lease: Lease<'_>,
    ) -> Result<(), StoreError> {
        let at = now();
        sqlx::query(
            "INSERT INTO runs (id, user_name, status, grant_json, created_at, updated_at,
                 lease_owner, lease_until_ms)
             VALUES ($1, $2, 'running', $3, $4, $4, $5, $6)",
        )
        .bind(id.0.as_str())
        .bind(user)
        .bind(to_json(grant))
        .bind(at)
        .bind(lease.owner)
        .bind(lease.until_ms)
        .execute(&self.store.pool)
        .await?;
        Ok(())
    }

    /// Appends `event` to the run's events; returns its number (from 1).
    pub async fn record_event(&self, run: &RunId, event: &Event<'_>) -> Result<i64, StoreError> {
        let row = sqlx::query(
            "INSERT INTO run_events (run_id, seq, at, data)
             SELECT $1, COALESCE(MAX(seq), 0) + 1, $2, $3 FROM run_events WHERE run_id = $1
             RETURNING seq",
        )
        .bind(run.0.as_str())
        .bind(now())
        .bind(to_json(event))
        .fetch_one(&self.store.pool)
        .await?;
        Ok(row.try_get("seq")?)
    }

    /// The run's events, in order.
    pub async fn run_events(&self, run: &RunId) -> Result<Vec<Event<'static>>, StoreError> {
        let rows = sqlx::query("SELECT seq, data FROM run_events WHERE run_id = $1 ORDER BY seq")
            .bind(run.0.as_str())
            .fetch_all(&self.store.pool)
            .await?;
        rows.iter()
            .map(|row| {
                let seq: i64 = row.try_get("seq")?;
                from_json(row, "data", || format!("event {seq} of run {}", run.0))
            })
            .collect()
    }

    /// Stores the state of a run waiting for an approval, with the
    /// proposal it waits on (kept once: the event that made it may have
    /// stored it already), in one transaction.
    pub async fn suspend_run(&self, run: &RunId, state: &RunState) -> Result<(), StoreError> {
        let usage = state.usage();
        let mut tx = self.store.begin_write().await?;
        insert_proposal_once(run, state.proposal())
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "UPDATE runs SET status = 'suspended', state = $2, input_tokens = $3,
             output_tokens = $4, updated_at = $5, lease_owner = NULL, lease_until_ms = NULL
             WHERE id = $1",
        )
        .bind(run.0.as_str())
        .bind(to_json(state))
        .bind(tokens(usage.input_tokens))
        .bind(tokens(usage.output_tokens))
        .bind(now())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Keeps what `run` was asked with it.
    pub async fn save_run_request(
        &self,
        run: &RunId,
        request: &RunRequest,
    ) -> Result<(), StoreError> {
        sqlx::query("UPDATE runs SET request = $2 WHERE id = $1")
            .bind(run.0.as_str())
            .bind(to_json(request))
            .execute(&self.store.pool)
            .await?;
        Ok(())
    }

    /// Takes a suspended run to resume it (`suspended` → `resuming`), held
    /// by `lease`; `false` when it is not suspended, e.g. another process
    /// took it first. Of two processes racing, exactly one gets `true`.
    pub async fn take_suspended_run(
        &self,
        run: &RunId,
        lease: Lease<'_>,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE runs SET status = 'resuming', updated_at = $2, lease_owner = $3,
                 lease_until_ms = $4
             WHERE id = $1 AND status = 'suspended'",
        )
        .bind(run.0.as_str())
        .bind(now())
        .bind(lease.owner)
        .bind(lease.until_ms)
        .execute(&self.store.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Gives back a run taken with [`RunLog::take_suspended_run`](crate::store::RunLog::take_suspended_run) and not
    /// resumed after all: `resuming` → `suspended`, its state untouched.
    pub async fn release_run(&self, run: &RunId) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE runs SET status = 'suspended', updated_at = $2, lease_owner = NULL,
                 lease_until_ms = NULL
             WHERE id = $1 AND status = 'resuming'",
        )
        .bind(run.0.as_str())
        .bind(now())
        .execute(&self.store.pool)
        .await?;
        Ok(())
    }

    /// The newest `limit` runs, newest first, with the rounds each started.
    pub async fn runs(&self, limit: usize) -> Result<Vec<RunSummary>, StoreError> {
        self.runs_of(None, limit).await
    }

    /// The newest `limit` runs of `user` (of everyone for `None`), newest
    /// first.
    pub async fn runs_of(
        &self,
        user: Option<&str>,
        limit: usize,
    ) -> Result<Vec<RunSummary>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let select = "SELECT r.id, r.user_name, r.status, r.created_at, r.answer,
             (SELECT COUNT(*) FROM run_events e WHERE e.run_id = r.id
              AND e.data LIKE '{\"event\":\"round_started\"%') AS rounds
             FROM runs r";
        let order = "ORDER BY r.created_at DESC, r.id DESC";
        let rows = match user {
            Some(user) => {
                sqlx::query(&format!("{select} WHERE r.user_name = $1 {order} LIMIT $2"))
                    .bind(user)
                    .bind(limit)
                    .fetch_all(&self.store.pool)
                    .await?
            }
            None => {
                sqlx::query(&format!("{select} {order} LIMIT $1"))
                    .bind(limit)
                    .fetch_all(&self.store.pool)
                    .await?
            }
        };
        rows.iter()
            .map(|row| {
                let id: String = row.try_get("id")?;
                Ok(RunSummary {
                    status: phase_of(&row.try_get::<String, _>("status")?, &id)?,
                    id: RunId(id),
                    user: row.try_get("user_name")?,
                    created_at: row.try_get("created_at")?,
                    rounds: row.try_get("rounds")?,
                    answer: row.try_get("answer")?,
                })
            })
            .collect()
    }

    /// Records how a run ended: its status, answer and usage.
    pub async fn finish_run(&self, run: &RunId, finished: &Finished) -> Result<(), StoreError> {
        let outcome = serde_json::to_value(&finished.status).unwrap_or_default();
        let status = RunPhase::of(&finished.status).as_str();
        sqlx::query(
            "UPDATE runs SET status = $2, outcome = $3, answer = $4, state = NULL,
             input_tokens = $5, output_tokens = $6, updated_at = $7, conversation = $8,
             lease_owner = NULL, lease_until_ms = NULL
             WHERE id = $1",
        )
        .bind(run.0.as_str())
        .bind(status)
        .bind(outcome.to_string())
        .bind(finished.answer.clone())
        .bind(tokens(finished.usage.input_tokens))
        .bind(tokens(finished.usage.output_tokens))
        .bind(now())
        .bind(to_json(&finished.messages))
        .execute(&self.store.pool)
        .await?;
        Ok(())
    }

    /// One run, if it exists.
    pub async fn run(&self, id: &RunId) -> Result<Option<StoredRun>, StoreError> {
        sqlx::query(
            "SELECT id, user_name, status, grant_json, state, answer, input_tokens,
             output_tokens, created_at, updated_at, request, conversation
             FROM runs WHERE id = $1",
        )
        .bind(id.0.as_str())
        .fetch_optional(&self.store.pool)
        .await?
        .as_ref()
        .map(StoredRun::from_row)
        .transpose()
    }
}
