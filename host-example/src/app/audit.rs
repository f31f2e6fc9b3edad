//! Reading the audit trail (administrators): filtered by person, tool,
//! kind, decision, gate, run and time, paged newest first, and exported
//! whole as JSON Lines with each row's link in its chain; and the chain
//! verified ([`Admin::audit_verify`](crate::app::Admin::audit_verify)).

use serde::Serialize;

use crate::app::{Admin, HostError};
use crate::store::{AuditFilter, AuditVerification, StoredAudit};

/// The most rows one export holds: an export of more is refused, so a
/// filter is chosen rather than a server held up.
pub const EXPORT_LIMIT: usize = 100_000;

/// One audit entry as a page or an export shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AuditRecord {
    /// Its place in the trail: larger is newer.
    pub seq: i64,
    /// When (seconds since the Unix epoch).
    pub at: i64,
    /// Who acted.
    pub actor: String,
    /// `gate`, `call` or `write`.
    pub kind: &'static str,
    /// The tool or command.
    pub tool: Option<String>,
    /// What was decided.
    pub decision: String,
    /// The gate that decided.
    pub gate: Option<String>,
    /// The run.
    pub run: Option<String>,
    /// Anything else kept.
    pub detail: Option<String>,
    /// For an MCP call: the client's name.
    pub client: Option<String>,
    /// How long it took, where timed.
    pub duration_ms: Option<u128>,
    /// The chain the row belongs to (none for rows from before chains).
    pub chain: Option<String>,
    /// Its position in the chain, from 1.
    pub chain_position: Option<i64>,
    /// HMAC-SHA256 (hex) of the row and of the previous row's hash.
    pub hash: Option<String>,
}

impl AuditRecord {
    fn new(stored: StoredAudit) -> AuditRecord {
        let StoredAudit { seq, entry, link } = stored;
        let (chain, chain_position, hash) = match link {
            Some(link) => (Some(link.chain), Some(link.position), Some(link.hash)),
            None => (None, None, None),
        };
        AuditRecord {
            seq,
            chain,
            chain_position,
            hash,
            at: entry.at,
            actor: entry.actor,
            kind: entry.kind.as_str(),
            tool: entry.tool,
            decision: entry.decision,
            gate: entry.gate,
            run: entry.run,
            detail: entry.detail,
            client: entry.client.and_then(|c| c.name),
            duration_ms: entry.duration.map(|d| d.as_millis()),
        }
    }
}

/// One page of the trail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditPage {
    /// Newest first.
    pub records: Vec<AuditRecord>,
    /// Where the next (older) page starts, if there is one.
    pub older: Option<i64>,
}

impl Admin<'_> {
    /// Up to `size` entries matching `filter` below `before`, newest
    /// first, for `viewer`, an administrator.
    pub async fn audit_page(
        &self,
        viewer: &str,
        filter: &AuditFilter,
        before: Option<i64>,
        size: usize,
    ) -> Result<AuditPage, HostError> {
        self.access
            .require_admin(viewer, "read the audit trail")
            .await?;
        let mut rows = self
            .host
            .store()
            .audit_log()
            .audit_search(filter, before, size + 1)
            .await?;
        let more = rows.len() > size;
        rows.truncate(size);
        let records: Vec<AuditRecord> = rows.into_iter().map(AuditRecord::new).collect();
        Ok(AuditPage {
            older: more.then(|| records.last().map(|r| r.seq)).flatten(),
            records,
        })
    }

    /// Every entry matching `filter`, newest first, for `viewer`, an
    /// administrator; more than [`EXPORT_LIMIT`] is refused.
    pub async fn audit_export(
        &self,
        viewer: &str,
        filter: &AuditFilter,
    ) -> Result<Vec<AuditRecord>, HostError> {
        let page = self.audit_page(viewer, filter, None, EXPORT_LIMIT).await?;
        if page.older.is_some() {
            return Err(HostError::Invalid(format!(
                "more than {EXPORT_LIMIT} entries match: narrow the filter"
            )));
        }
        Ok(page.records)
    }

    /// Checks the audit trail's chains with this host's key and heads
    /// file: every row's keyed hash, no position missing, no row moved, no
    /// tail cut short of the heads file.
    /// For `viewer`, an administrator.
    pub async fn audit_verify(&self, viewer: &str) -> Result<AuditVerification, HostError> {
        self.access.require_admin(viewer, "the audit trail").await?;
        Ok(self.host.store().audit_log().verify_audit().await?)
    }
}
