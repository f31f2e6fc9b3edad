//! [`SqlStore`]: the MCP server's [`Store`] over the host's database, so
//! every process sharing it (`host-example mcp`, `host-example serve`, the
//! command line changing settings or approving) sees the same users,
//! settings, proposals, decisions and audit trail.

use std::sync::{Arc, Mutex};

use site_model::Site;
use tool_core::approval::{ApprovalStore, DEFAULT_PROPOSAL_LIFETIME, ProposalLifetime};
use tool_core::gates::{HostSettings, RunConfig};
use tool_core::{Actor, BoxFuture, ProposalId, RunId, ToolContext};

use super::audit_writer::AuditWriter;
use super::backend::{
    AuditEntry, Backend, CallDecision, Settings, Store, StoreError, StoredProposal,
};
use crate::store::{self, AuditKind, HostUser, McpClient, SqlApprovals};

/// A [`Backend`] over a [`SqlStore`].
pub type SqlBackend = Backend<SqlStore>;

/// The host's database as the MCP server's [`Store`]: bearer tokens and
/// users from its `users` and `tokens`, the settings with their durable
/// generation, proposals pending in `proposals` (with a run holding the
/// proposer and grant), decisions through [`SqlApprovals`], every call in
/// the audit trail.
pub struct SqlStore {
    database: store::Store,
    site: Arc<dyn Site>,
    approvals: SqlApprovals,
    lifetime: ProposalLifetime,
    /// The settings of the newest generation read: one `SELECT` of the
    /// generation answers most requests.
    settings: Mutex<Option<Arc<Settings>>>,
    /// Calls finishing together share one audit commit.
    audit: AuditWriter,
}

impl SqlStore {
    /// The MCP store over `database`, its site served with the demo
    /// site's source code ([`site_model::demo::source_root`]) and
    /// proposals living [`DEFAULT_PROPOSAL_LIFETIME`].
    pub fn new(database: store::Store) -> Self {
        let site = database
            .site()
            .with_source_root(site_model::demo::source_root());
        SqlStore {
            approvals: database.approvals(),
            audit: AuditWriter::new(database.clone()),
            site: Arc::new(site),
            database,
            lifetime: ProposalLifetime(DEFAULT_PROPOSAL_LIFETIME),
            settings: Mutex::new(None),
        }
    }

    /// Sets how long a proposal waits for a decision before it expires.
    pub fn with_proposal_lifetime(mut self, lifetime: ProposalLifetime) -> Self {
        self.lifetime = lifetime;
        self
    }

    /// The database.
    pub fn database(&self) -> &store::Store {
        &self.database
    }

    async fn load_settings(&self) -> Result<Arc<Settings>, store::StoreError> {
        let generation = self.database.settings_generation().await?;
        if let Some(cached) = self.cached_settings()
            && cached.generation == generation
        {
            return Ok(cached);
        }
        // Read after the generation: what is read is at least that new, and
        // a write in between bumps the generation past it, so the next read
        // loads again.
        let settings = Arc::new(Settings {
            generation,
            host: self.database.host_settings().await?,
            run: RunConfig {
                trust_zone: self.database.trust_zone().await?,
                ..RunConfig::default()
            },
            oauth: self.database.oauth_settings().await?.map(Arc::new),
        });
        let mut cached = self.settings.lock().unwrap_or_else(|e| e.into_inner());
        if cached.as_ref().is_none_or(|c| c.generation <= generation) {
            *cached = Some(Arc::clone(&settings));
        }
        Ok(settings)
    }

    fn cached_settings(&self) -> Option<Arc<Settings>> {
        self.settings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    async fn stored_proposal(
        &self,
        id: &ProposalId,
    ) -> Result<Option<StoredProposal>, store::StoreError> {
        let Some(stored) = self.database.proposal(id).await? else {
            return Ok(None);
        };
        let Some(run) = self.database.run(&stored.run).await? else {
            return Ok(None);
        };
        // The proposer's administrator flag as it is now: approval checks
        // the proposer's rights again.
        let admin = self
            .database
            .user(&run.user)
            .await?
            .is_some_and(|user| user.admin);
        Ok(Some(StoredProposal {
            proposal: stored.proposal,
            proposer: Actor {
                id: run.user,
                admin,
            },
            grant: run.grant,
        }))
    }
}

fn actor(user: HostUser) -> Actor {
    Actor {
        id: user.name,
        admin: user.admin,
    }
}

fn failed(error: store::StoreError) -> StoreError {
    StoreError(error.to_string())
}

/// One MCP call as an entry of the host's audit trail.
fn audit_entry(entry: AuditEntry) -> store::AuditEntry {
    let (decision, gate, detail) = match &entry.decision {
        CallDecision::Done => ("done", None, None),
        CallDecision::Proposed { proposal } => {
            ("proposed", None, Some(format!("proposal {proposal}")))
        }
        CallDecision::Failed => ("failed", None, None),
        CallDecision::Refused { denial } => (
            "refused",
            Some(denial.gate().to_string()),
            Some(denial.to_string()),
        ),
        CallDecision::Cancelled => ("cancelled", None, None),
    };
    let mut stored = store::AuditEntry::new(AuditKind::Call, entry.caller.actor.id, decision);
    stored.tool = Some(entry.tool);
    stored.gate = gate;
    stored.detail = detail;
    stored.client = Some(McpClient {
        name: entry.caller.client_name,
        version: entry.caller.client_version,
        protocol: entry.caller.protocol,
    });
    stored.duration = Some(entry.duration);
    stored
}

impl Store for SqlStore {
    fn authenticate<'a>(
        &'a self,
        token: &'a str,
    ) -> BoxFuture<'a, Result<Option<Actor>, StoreError>> {
        Box::pin(async move {
            let user = self.database.user_for_token(token).await.map_err(failed)?;
            Ok(user.map(actor))
        })
    }

    fn user<'a>(&'a self, name: &'a str) -> BoxFuture<'a, Result<Option<Actor>, StoreError>> {
        Box::pin(async move {
            let user = self.database.user(name).await.map_err(failed)?;
            Ok(user.map(actor))
        })
    }

    fn settings(&self) -> BoxFuture<'_, Result<Arc<Settings>, StoreError>> {
        Box::pin(async move { self.load_settings().await.map_err(failed) })
    }

    fn save_settings(&self, host: HostSettings) -> BoxFuture<'_, Result<u64, StoreError>> {
        Box::pin(async move {
            self.database
                .save_host_settings(&host)
                .await
                .map_err(failed)
        })
    }

    fn context(&self, actor: &Actor, run: RunId) -> ToolContext {
        ToolContext::new(run)
            .with_actor(actor.clone())
            .with_service(Arc::clone(&self.site))
            .with_service(self.lifetime)
    }

    fn store_proposal(&self, stored: StoredProposal) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move {
            // A run of its own per proposal: the call's run id names the
            // request, which repeats across sessions.
            let run = RunId(format!("mcp-{}", stored.proposal.id()));
            self.database
                .save_call_proposal(&run, &stored.proposer.id, &stored.grant, &stored.proposal)
                .await
                .map_err(failed)
        })
    }

    fn proposal<'a>(
        &'a self,
        id: &'a ProposalId,
    ) -> BoxFuture<'a, Result<Option<StoredProposal>, StoreError>> {
        Box::pin(async move { self.stored_proposal(id).await.map_err(failed) })
    }

    fn approvals(&self) -> &dyn ApprovalStore {
        &self.approvals
    }

    fn record(&self, entry: AuditEntry) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move {
            self.audit
                .write(audit_entry(entry))
                .await
                .map_err(StoreError)
        })
    }
}

impl std::fmt::Debug for SqlStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqlStore")
            .field("database", &self.database.backend())
            .finish_non_exhaustive()
    }
}
