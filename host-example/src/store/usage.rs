//! How the host is used, over a period: calls per tool per day, refusals
//! per gate, how long decided proposals waited, and tokens and estimated
//! cost per day; read from the audit trail, the proposals and the runs.

use crate::store::RunLog;
use sqlx::Row;

use super::StoreError;

/// The figures of one period (days are counted from the Unix epoch, UTC).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HostUsage {
    /// (day, tool, calls), by day then tool.
    pub calls: Vec<(i64, String, u64)>,
    /// (gate, refusals), by gate.
    pub refusals: Vec<(String, u64)>,
    /// Seconds each decided proposal waited for its decision.
    pub waits: Vec<i64>,
    /// (day, tokens, estimated cost), by day.
    pub spending: Vec<(i64, u64, f64)>,
}

fn count(row: &sqlx::any::AnyRow, column: &str) -> Result<u64, StoreError> {
    Ok(u64::try_from(row.try_get::<i64, _>(column)?).unwrap_or(0))
}

impl RunLog<'_> {
    /// The figures since `since` (seconds since the Unix epoch).
    pub async fn usage_since(&self, since: i64) -> Result<HostUsage, StoreError> {
        let calls = sqlx::query(
            "SELECT at / 86400 AS day, tool, COUNT(*) AS n FROM audit
             WHERE kind = 'call' AND at >= $1 AND tool IS NOT NULL
             GROUP BY at / 86400, tool ORDER BY day, tool",
        )
        .bind(since)
        .fetch_all(&self.store.pool)
        .await?
        .iter()
        .map(|row| Ok((row.try_get("day")?, row.try_get("tool")?, count(row, "n")?)))
        .collect::<Result<_, StoreError>>()?;
        let refusals = sqlx::query(
            "SELECT gate, COUNT(*) AS n FROM audit
             WHERE at >= $1 AND gate IS NOT NULL AND decision IN ('denied', 'refused')
             GROUP BY gate ORDER BY gate",
        )
        .bind(since)
        .fetch_all(&self.store.pool)
        .await?
        .iter()
        .map(|row| Ok((row.try_get("gate")?, count(row, "n")?)))
        .collect::<Result<_, StoreError>>()?;
        let waits = sqlx::query(
            "SELECT d.decided_at - p.created_at AS waited FROM proposals p
             JOIN decisions d ON d.proposal_id = p.id WHERE d.decided_at >= $1
             ORDER BY waited",
        )
        .bind(since)
        .fetch_all(&self.store.pool)
        .await?
        .iter()
        .map(|row| row.try_get("waited").map_err(StoreError::from))
        .collect::<Result<_, StoreError>>()?;
        let spending = sqlx::query(
            "SELECT created_at / 86400 AS day,
                    CAST(SUM(input_tokens + output_tokens) AS BIGINT) AS tokens,
                    CAST(COALESCE(SUM(estimated_cost), 0) AS DOUBLE PRECISION) AS cost
             FROM runs WHERE created_at >= $1 GROUP BY created_at / 86400 ORDER BY day",
        )
        .bind(since)
        .fetch_all(&self.store.pool)
        .await?
        .iter()
        .map(|row| {
            Ok((
                row.try_get("day")?,
                count(row, "tokens")?,
                row.try_get("cost")?,
            ))
        })
        .collect::<Result<_, StoreError>>()?;
        Ok(HostUsage {
            calls,
            refusals,
            waits,
            spending,
        })
    }
}
