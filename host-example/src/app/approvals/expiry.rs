//! The host's sweep of proposals nobody decided in time: each pending
//! proposal older than the host's [`ProposalLifetime`](tool_core::approval::ProposalLifetime)
//! is decided `expired` through the one decision path (its run resumes and
//! the model is told; a single call's caller sees its task fail), so the
//! webhooks subscribed to `proposal.expired` hear it when it happens, not
//! when someone next tries to approve it. The background worker runs it at
//! every turn; with several processes, the first to claim a proposal
//! decides it and the others find it decided.

use tool_core::ProposalId;

use super::Verdict;
use crate::app::{Approvals, HostError};
use crate::store::now;

/// Who the decision records as having expired a proposal: the host.
pub(super) const EXPIRED_BY: &str = "host";

/// The most proposals expired in one turn (each resumes its run).
const MOST_PER_TURN: usize = 10;

impl Approvals<'_> {
    /// Decides `expired` every pending proposal past the host's proposal
    /// lifetime (at most ten a turn, the oldest first); returns the ones
    /// this call expired. One another process decided first is skipped.
    pub async fn expire_overdue(&self) -> Result<Vec<ProposalId>, HostError> {
        let overdue = self
            .host
            .store()
            .decisions()
            .pending_proposals()
            .await?
            .into_iter()
            .filter(|stored| self.expired(stored.proposal.created_at()))
            .take(MOST_PER_TURN);
        let mut expired = Vec::new();
        for stored in overdue {
            let id = stored.proposal.id().clone();
            match self.expire_proposal(&id).await {
                Ok(true) => expired.push(id),
                Ok(false) => {}
                Err(error) => {
                    tracing::warn!(proposal = %id.as_str(), %error, "expiring a proposal failed");
                }
            }
        }
        Ok(expired)
    }

    /// Whether a proposal made at `created_at` is past the host's
    /// lifetime of proposals (`ProposalLifetime::expired`, the one
    /// reckoning the approval path uses too).
    pub(crate) fn expired(&self, created_at: u64) -> bool {
        self.host
            .lifetime
            .expired(created_at, u64::try_from(now()).unwrap_or(0))
    }

    /// When a proposal made at `created_at` expires undecided.
    pub(crate) fn expires_at(&self, created_at: u64) -> i64 {
        i64::try_from(self.host.lifetime.expires_at(created_at)).unwrap_or(i64::MAX)
    }

    /// Decides the overdue proposal `id` expired through the one decision
    /// path; `false` when it was decided, or taken to be decided, by
    /// another process (or here) first.
    pub(crate) async fn expire_proposal(&self, id: &ProposalId) -> Result<bool, HostError> {
        match self
            .decide_once(id.as_str(), EXPIRED_BY, Verdict::Expire, &mut ())
            .await
        {
            Ok(_) => Ok(true),
            Err(HostError::AlreadyDecided(_) | HostError::NotWaiting { .. }) => Ok(false),
            Err(error) => Err(error),
        }
    }
}
