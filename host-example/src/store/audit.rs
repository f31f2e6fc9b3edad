//! The audit trail: every gate decision, call and write, with who, in which
//! run, on which tool, what was decided and by which gate; for a call made
//! over MCP also the client, the protocol revision and how long it took.

use crate::store::AuditLog;
use std::time::Duration;

use sqlx::Row;

use super::StoreError;

/// What an audit entry records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuditKind {
    /// A gate allowed or denied a tool.
    Gate,
    /// A tool was called.
    Call,
    /// Something was written (a site change, a setting, a user).
    Write,
}

impl AuditKind {
    /// Its name in the table.
    pub fn as_str(self) -> &'static str {
        match self {
            AuditKind::Gate => "gate",
            AuditKind::Call => "call",
            AuditKind::Write => "write",
        }
    }

    fn parse(text: &str) -> AuditKind {
        match text {
            "gate" => AuditKind::Gate,
            "call" => AuditKind::Call,
            _ => AuditKind::Write,
        }
    }
}

/// One entry of the audit trail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditEntry {
    /// When (seconds since the Unix epoch); [`AuditLog::audit`](crate::store::AuditLog::audit) stamps it.
    pub at: i64,
    /// Who acted.
    pub actor: String,
    /// The run, if the act was part of one.
    pub run: Option<String>,
    /// The tool, or the command, acted with.
    pub tool: Option<String>,
    /// What kind of act.
    pub kind: AuditKind,
    /// What was decided: `allowed`, `denied`, `ok`, `failed`, …
    pub decision: String,
    /// The gate that decided, for gate decisions.
    pub gate: Option<String>,
    /// Anything else worth keeping, e.g. the setting changed.
    pub detail: Option<String>,
    /// For an MCP call: the client that made it.
    pub client: Option<McpClient>,
    /// How long the act took, where it was timed (MCP calls).
    pub duration: Option<Duration>,
}

/// The MCP client behind an audited call, as it introduced itself.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct McpClient {
    /// Its name, from `initialize` or the request's `_meta`.
    pub name: Option<String>,
    /// Its version, likewise.
    pub version: Option<String>,
    /// The protocol revision of the request (`2025-11-25`, `2026-07-28`).
    pub protocol: Option<String>,
}

impl AuditEntry {
    /// An entry of `kind` by `actor` with `decision`, the rest empty.
    pub fn new(kind: AuditKind, actor: impl Into<String>, decision: impl Into<String>) -> Self {
        AuditEntry {
            at: 0,
            actor: actor.into(),
            run: None,
            tool: None,
            kind,
            decision: decision.into(),
            gate: None,
            detail: None,
            client: None,
            duration: None,
        }
    }

    /// Its duration in whole milliseconds, as stored.
    pub(super) fn duration_ms(&self) -> Option<i64> {
        self.duration
            .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
    }
}

/// Where a stored row sits in its chain ([`AuditLog::verify_audit`](crate::store::AuditLog::verify_audit)); rows
/// from before the chain have none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainLink {
    /// The chain (one per process that wrote).
    pub chain: String,
    /// Its position there, from 1.
    pub position: i64,
    /// HMAC-SHA256 of the row and of the previous row's hash, hex.
    pub hash: String,
}

/// A stored audit row: its sequence number, its entry and its link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredAudit {
    /// Its place in the table: larger is newer.
    pub seq: i64,
    /// What it records.
    pub entry: AuditEntry,
    /// Its place in its chain.
    pub link: Option<ChainLink>,
}

impl AuditLog<'_> {
    /// The last `n` entries, oldest first.
    pub async fn audit_tail(&self, n: usize) -> Result<Vec<AuditEntry>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM audit ORDER BY seq DESC LIMIT $1"
        ))
        .bind(i64::try_from(n).unwrap_or(i64::MAX))
        .fetch_all(&self.store.pool)
        .await?;
        let mut entries = rows
            .iter()
            .map(|row| stored(row).map(|stored| stored.entry))
            .collect::<Result<Vec<_>, StoreError>>()?;
        entries.reverse();
        Ok(entries)
    }

    /// Up to `limit` entries matching `filter` with a sequence number
    /// below `before` (all for `None`), newest first, each with its
    /// sequence number and link.
    pub async fn audit_search(
        &self,
        filter: &AuditFilter,
        before: Option<i64>,
        limit: usize,
    ) -> Result<Vec<StoredAudit>, StoreError> {
        let mut conditions = Vec::new();
        let mut texts = Vec::new();
        for (column, value) in [
            ("actor", &filter.actor),
            ("tool", &filter.tool),
            ("kind", &filter.kind),
            ("decision", &filter.decision),
            ("gate", &filter.gate),
            ("run_id", &filter.run),
        ] {
            if let Some(value) = value {
                texts.push(value.clone());
                conditions.push(format!("{column} = ${}", texts.len()));
            }
        }
        let mut numbers = Vec::new();
        for (condition, value) in [
            ("at >=", filter.from),
            ("at <", filter.until),
            ("seq <", before),
        ] {
            if let Some(value) = value {
                numbers.push(value);
                conditions.push(format!("{condition} ${}", texts.len() + numbers.len()));
            }
        }
        let filtered = if conditions.is_empty() {
            String::new()
        } else {
            format!("WHERE {}", conditions.join(" AND "))
        };
        let sql = format!(
            "SELECT {COLUMNS} FROM audit {filtered} ORDER BY seq DESC LIMIT ${}",
            texts.len() + numbers.len() + 1
        );
        let mut query = sqlx::query(&sql);
        for text in texts {
            query = query.bind(text);
        }
        for number in numbers {
            query = query.bind(number);
        }
        let rows = query
            .bind(i64::try_from(limit).unwrap_or(i64::MAX))
            .fetch_all(&self.store.pool)
            .await?;
        rows.iter().map(stored).collect()
    }
}

/// Which audit entries to read: each `Some` must match exactly; `from`
/// and `until` bound the time (seconds since the Unix epoch, `until`
/// excluded).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuditFilter {
    /// Who acted.
    pub actor: Option<String>,
    /// The tool or command.
    pub tool: Option<String>,
    /// `gate`, `call` or `write`.
    pub kind: Option<String>,
    /// `allowed`, `denied`, `ok`, `refused`, …
    pub decision: Option<String>,
    /// The gate that decided.
    pub gate: Option<String>,
    /// The run.
    pub run: Option<String>,
    /// At or after.
    pub from: Option<i64>,
    /// Before.
    pub until: Option<i64>,
}

const COLUMNS: &str = "seq, at, actor, run_id, tool, kind, decision, gate, detail, client_name,
    client_version, protocol, duration_ms, chain, chain_pos, hash";

/// One row as stored.
fn stored(row: &sqlx::any::AnyRow) -> Result<StoredAudit, StoreError> {
    let link = match (
        row.try_get::<Option<String>, _>("chain")?,
        row.try_get::<Option<i64>, _>("chain_pos")?,
        row.try_get::<Option<String>, _>("hash")?,
    ) {
        (Some(chain), Some(position), Some(hash)) => Some(ChainLink {
            chain,
            position,
            hash,
        }),
        _ => None,
    };
    Ok(StoredAudit {
        seq: row.try_get("seq")?,
        link,
        entry: AuditEntry {
            at: row.try_get("at")?,
            actor: row.try_get("actor")?,
            run: row.try_get("run_id")?,
            tool: row.try_get("tool")?,
            kind: AuditKind::parse(&row.try_get::<String, _>("kind")?),
            decision: row.try_get("decision")?,
            gate: row.try_get("gate")?,
            detail: row.try_get("detail")?,
            client: McpClient::from_columns(
                row.try_get("client_name")?,
                row.try_get("client_version")?,
                row.try_get("protocol")?,
            ),
            duration: row
                .try_get::<Option<i64>, _>("duration_ms")?
                .map(|ms| Duration::from_millis(u64::try_from(ms).unwrap_or(0))),
        },
    })
}

impl McpClient {
    /// `None` when all three columns are empty: the entry was not an MCP
    /// call.
    fn from_columns(
        name: Option<String>,
        version: Option<String>,
        protocol: Option<String>,
    ) -> Option<McpClient> {
        let client = McpClient {
            name,
            version,
            protocol,
        };
        (client != McpClient::default()).then_some(client)
    }
}
