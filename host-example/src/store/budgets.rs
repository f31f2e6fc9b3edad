//! What users may spend (setting `budgets`) and what they have spent: the
//! tokens and estimated cost of their runs, summed by when each run was
//! started.

use crate::store::People;

use sqlx::Row;
use tool_core::RunId;

use super::{Spending, StoreError};

impl People<'_> {
    /// What `user`'s runs started at or after `since` have spent, leaving
    /// out `except` (the run being checked, which counts its own).
    pub async fn spent_since(
        &self,
        user: &str,
        since: i64,
        except: Option<&RunId>,
    ) -> Result<Spending, StoreError> {
        let row = sqlx::query(
            "SELECT CAST(COALESCE(SUM(input_tokens + output_tokens), 0) AS BIGINT) AS tokens,
                    CAST(COALESCE(SUM(estimated_cost), 0) AS DOUBLE PRECISION) AS cost
             FROM runs WHERE user_name = $1 AND created_at >= $2 AND id <> $3",
        )
        .bind(user)
        .bind(since)
        .bind(except.map_or("", |run| run.0.as_str()))
        .fetch_one(&self.store.pool)
        .await?;
        Ok(Spending {
            tokens: u64::try_from(row.try_get::<i64, _>("tokens")?).unwrap_or(0),
            cost: row.try_get("cost")?,
        })
    }

    /// Records what `run` is estimated to have cost so far.
    pub async fn set_run_cost(&self, run: &RunId, cost: Option<f64>) -> Result<(), StoreError> {
        sqlx::query("UPDATE runs SET estimated_cost = $1 WHERE id = $2")
            .bind(cost)
            .bind(run.0.as_str())
            .execute(&self.store.pool)
            .await?;
        Ok(())
    }
}
