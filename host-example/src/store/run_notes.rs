//! What the host notes about a run beside the agent's events: decisions
//! it took before the agent loop started, such as a skill it did not trust.

use crate::store::RunLog;
use std::fmt;

use serde::{Deserialize, Serialize};
use sqlx::Row;
use tool_core::RunId;

use super::Distrust;
use super::{StoreError, from_json, now, to_json};

/// One note on a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "note", rename_all = "snake_case")]
#[non_exhaustive]
pub enum RunNote {
    /// A skill the run selected is not trusted: it allows the run no tools
    /// and its text is not in the prompt.
    SkillRefused {
        /// The skill.
        skill: String,
        /// Why.
        reason: Distrust,
    },
    /// A skill never approved, used because the host's setting
    /// `unapproved_skills` allows it.
    SkillUnapprovedUsed {
        /// The skill.
        skill: String,
    },
    /// The process working on the run stopped (its lease ran out) and
    /// another one recovered the run as said.
    Recovered {
        /// What was done, and why.
        reason: String,
    },
}

impl fmt::Display for RunNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunNote::SkillRefused { skill, reason } => write!(
                f,
                "skill `{skill}` not trusted ({reason}): it allows no tools and its text is not in \
                 the prompt"
            ),
            RunNote::SkillUnapprovedUsed { skill } => write!(
                f,
                "skill `{skill}` is not approved, used because the setting unapproved_skills is \
                 \"allow\""
            ),
            RunNote::Recovered { reason } => write!(f, "recovered: {reason}"),
        }
    }
}

impl RunLog<'_> {
    /// Appends `note` to the run's notes.
    pub async fn record_run_note(&self, run: &RunId, note: &RunNote) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO run_notes (run_id, seq, at, data)
             SELECT $1, COALESCE(MAX(seq), 0) + 1, $2, $3 FROM run_notes WHERE run_id = $1",
        )
        .bind(run.0.as_str())
        .bind(now())
        .bind(to_json(note))
        .execute(&self.store.pool)
        .await?;
        Ok(())
    }

    /// The run's notes, in order.
    pub async fn run_notes(&self, run: &RunId) -> Result<Vec<RunNote>, StoreError> {
        let rows = sqlx::query("SELECT seq, data FROM run_notes WHERE run_id = $1 ORDER BY seq")
            .bind(run.0.as_str())
            .fetch_all(&self.store.pool)
            .await?;
        rows.iter()
            .map(|row| {
                let seq: i64 = row.try_get("seq")?;
                from_json(row, "data", || format!("note {seq} of run {}", run.0))
            })
            .collect()
    }
}
