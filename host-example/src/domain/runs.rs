//! A run's phase as stored (its `status` column, worded once), and how a
//! batch's report counts a run that ended in each.

use tool_core::agent::RunStatus;

/// Where a stored run is: its `status` column, worded once
/// ([`RunPhase::as_str`], also its `Display`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunPhase {
    /// The agent loop is driving it.
    Running,
    /// A write call proposed a change; it waits for a decision.
    Suspended,
    /// A process took it to resume it with a decision.
    Resuming,
    /// The model answered.
    Completed,
    /// It hit its round cap.
    Truncated,
    /// Its token budget stopped it.
    Budget,
    /// The provider or the host failed it.
    Failed,
    /// It was cancelled.
    Cancelled,
}

impl RunPhase {
    /// Every phase.
    pub const ALL: [RunPhase; 8] = [
        RunPhase::Running,
        RunPhase::Suspended,
        RunPhase::Resuming,
        RunPhase::Completed,
        RunPhase::Truncated,
        RunPhase::Budget,
        RunPhase::Failed,
        RunPhase::Cancelled,
    ];

    /// Its word in the `status` column and on every page.
    pub fn as_str(self) -> &'static str {
        match self {
            RunPhase::Running => "running",
            RunPhase::Suspended => "suspended",
            RunPhase::Resuming => "resuming",
            RunPhase::Completed => "completed",
            RunPhase::Truncated => "truncated",
            RunPhase::Budget => "budget",
            RunPhase::Failed => "failed",
            RunPhase::Cancelled => "cancelled",
        }
    }

    /// How a finished run ended.
    pub fn of(status: &RunStatus) -> RunPhase {
        match status {
            RunStatus::Completed => RunPhase::Completed,
            RunStatus::Truncated => RunPhase::Truncated,
            RunStatus::Budget { .. } => RunPhase::Budget,
            RunStatus::Cancelled => RunPhase::Cancelled,
            // A status added to the agent loop later counts as a failure
            // until it has a word of its own.
            _ => RunPhase::Failed,
        }
    }

    /// Whether it waits for, or is being resumed with, a decision.
    pub fn awaits_decision(self) -> bool {
        matches!(self, RunPhase::Suspended | RunPhase::Resuming)
    }

    /// The phase `text` names ([`RunPhase::as_str`]), if any.
    pub fn parse(text: &str) -> Option<RunPhase> {
        RunPhase::ALL
            .into_iter()
            .find(|phase| phase.as_str() == text)
    }
}

impl std::fmt::Display for RunPhase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a run of a batch ended, as the report counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum RunKind {
    /// It proposed a change, which waits in the inbox.
    Proposed,
    /// It finished without proposing a change.
    Unchanged,
    /// The model or the host failed it.
    Failed,
    /// A guardrail stopped it: the round cap or the token budget.
    Guardrail,
    /// It was cancelled.
    Cancelled,
}

impl RunKind {
    /// Every kind, in the order the report lists them.
    pub const ALL: [RunKind; 5] = [
        RunKind::Proposed,
        RunKind::Unchanged,
        RunKind::Failed,
        RunKind::Guardrail,
        RunKind::Cancelled,
    ];

    /// As the report says it.
    pub fn label(self) -> &'static str {
        match self {
            RunKind::Proposed => "proposed a change",
            RunKind::Unchanged => "finished without a change",
            RunKind::Failed => "failed",
            RunKind::Guardrail => "stopped by a guardrail",
            RunKind::Cancelled => "cancelled",
        }
    }

    /// Its word in the database and the page's `data-kind`.
    pub fn as_str(self) -> &'static str {
        match self {
            RunKind::Proposed => "proposed",
            RunKind::Unchanged => "unchanged",
            RunKind::Failed => "failed",
            RunKind::Guardrail => "guardrail",
            RunKind::Cancelled => "cancelled",
        }
    }

    /// The kind `word` names ([`RunKind::as_str`]); an unknown word is a
    /// failure.
    pub fn parse(word: &str) -> RunKind {
        RunKind::ALL
            .into_iter()
            .find(|kind| kind.as_str() == word)
            .unwrap_or(RunKind::Failed)
    }

    /// How a run in `phase` counts.
    pub fn of(phase: RunPhase) -> RunKind {
        match phase {
            RunPhase::Suspended | RunPhase::Resuming => RunKind::Proposed,
            RunPhase::Completed => RunKind::Unchanged,
            RunPhase::Truncated | RunPhase::Budget => RunKind::Guardrail,
            RunPhase::Cancelled => RunKind::Cancelled,
            RunPhase::Running | RunPhase::Failed => RunKind::Failed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{RunKind, RunPhase};

    #[test]
    fn every_phase_and_kind_reads_back_from_its_word() {
        for phase in RunPhase::ALL {
            assert_eq!(RunPhase::parse(phase.as_str()), Some(phase));
        }
        assert_eq!(RunPhase::parse("paused"), None);
        for kind in RunKind::ALL {
            assert_eq!(RunKind::parse(kind.as_str()), kind);
        }
        // A word no kind has counts as a failure, never as a success.
        assert_eq!(RunKind::parse("done"), RunKind::Failed);
    }

    #[test]
    fn a_run_waiting_for_a_decision_counts_as_proposed() {
        for phase in RunPhase::ALL {
            assert_eq!(
                phase.awaits_decision(),
                RunKind::of(phase) == RunKind::Proposed,
                "{phase}"
            );
        }
    }
}
