//! [`MemoryStore`]: the [`Store`] of a host without a database, for the
//! example server and the tests. It keeps real semantics: settings
//! generations only grow, a proposal is decided once.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use site_model::{Accounts, MemorySite, Site};
use tool_core::approval::{ApprovalStore, MemoryApprovals};
use tool_core::gates::{HostSettings, RunConfig, Toggle, ToolSettings};
use tool_core::{Actor, BoxFuture, Effect, ProposalId, Registry, RunId, ToolContext};

use super::backend::{AuditEntry, Backend, Settings, Store, StoreError, StoredProposal};

/// A [`Backend`] over a [`MemoryStore`].
pub type MemoryBackend = Backend<MemoryStore>;

/// Settings, tokens, proposals, decisions and the audit log in memory, over
/// the demo site.
pub struct MemoryStore {
    site: Arc<MemorySite>,
    tokens: HashMap<String, String>,
    settings: Mutex<Arc<Settings>>,
    proposals: Mutex<HashMap<ProposalId, StoredProposal>>,
    approvals: MemoryApprovals,
    audit: Mutex<Vec<AuditEntry>>,
}

impl MemoryStore {
    /// A store over `site`; `tokens` maps each bearer token to a user name
    /// of the site. The settings switch on every `write` tool of
    /// `registry` (they ship disabled), so clients see what a write tool
    /// looks like; everything else keeps its shipped state.
    pub fn new<'t>(
        registry: &Registry,
        site: MemorySite,
        tokens: impl IntoIterator<Item = (&'t str, &'t str)>,
    ) -> Self {
        let mut host = HostSettings::default();
        for tool in registry.tools() {
            if tool.declaration().effect == Effect::Write {
                host.tools.insert(
                    tool.name().to_owned(),
                    ToolSettings {
                        state: Toggle::Enabled,
                    },
                );
            }
        }
        MemoryStore {
            site: Arc::new(site),
            tokens: tokens
                .into_iter()
                .map(|(user, token)| (token.to_owned(), user.to_owned()))
                .collect(),
            settings: Mutex::new(Arc::new(Settings {
                generation: 1,
                host,
                run: RunConfig::default(),
                oauth: None,
            })),
            proposals: Mutex::new(HashMap::new()),
            approvals: MemoryApprovals::new(),
            audit: Mutex::new(Vec::new()),
        }
    }

    /// The site the tools read and write.
    pub fn site(&self) -> &Arc<MemorySite> {
        &self.site
    }

    /// Every call recorded so far, oldest first.
    pub fn audit(&self) -> Vec<AuditEntry> {
        lock(&self.audit).clone()
    }

    /// The decisions made so far.
    pub fn decisions(&self) -> &MemoryApprovals {
        &self.approvals
    }
}

impl MemoryBackend {
    /// The example host: every linked tool over [`MemorySite::demo`], with
    /// `tokens` mapping user names of the demo site to bearer tokens.
    pub fn demo<'t>(
        registry: Registry,
        tokens: impl IntoIterator<Item = (&'t str, &'t str)>,
    ) -> Self {
        let store = MemoryStore::new(&registry, MemorySite::demo(), tokens);
        Backend::new(registry, store)
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every write under these locks is one insert or one replacement, so a
    // panic elsewhere cannot leave the value half-written.
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl MemoryStore {
    async fn find_user(&self, name: &str) -> Result<Option<Actor>, StoreError> {
        let users = self
            .site
            .users()
            .await
            .map_err(|e| StoreError(e.to_string()))?;
        Ok(users
            .iter()
            .find(|user| user.name == name && !user.disabled)
            .map(|user| Actor {
                id: user.name.clone(),
                admin: user.admin,
            }))
    }
}

impl Store for MemoryStore {
    fn authenticate<'a>(
        &'a self,
        token: &'a str,
    ) -> BoxFuture<'a, Result<Option<Actor>, StoreError>> {
        Box::pin(async move {
            match self.tokens.get(token) {
                Some(name) => self.find_user(name).await,
                None => Ok(None),
            }
        })
    }

    fn user<'a>(&'a self, name: &'a str) -> BoxFuture<'a, Result<Option<Actor>, StoreError>> {
        Box::pin(self.find_user(name))
    }

    fn settings(&self) -> BoxFuture<'_, Result<Arc<Settings>, StoreError>> {
        let settings = Arc::clone(&lock(&self.settings));
        Box::pin(std::future::ready(Ok(settings)))
    }

    fn save_settings(&self, host: HostSettings) -> BoxFuture<'_, Result<u64, StoreError>> {
        let mut settings = lock(&self.settings);
        let generation = settings.generation + 1;
        *settings = Arc::new(Settings {
            generation,
            host,
            run: settings.run.clone(),
            oauth: settings.oauth.clone(),
        });
        Box::pin(std::future::ready(Ok(generation)))
    }

    fn context(&self, actor: &Actor, run: RunId) -> ToolContext {
        let site: Arc<dyn Site> = self.site.clone();
        ToolContext::new(run)
            .with_actor(actor.clone())
            .with_service(site)
    }

    fn store_proposal(&self, stored: StoredProposal) -> BoxFuture<'_, Result<(), StoreError>> {
        lock(&self.proposals).insert(stored.proposal.id().clone(), stored);
        Box::pin(std::future::ready(Ok(())))
    }

    fn proposal<'a>(
        &'a self,
        id: &'a ProposalId,
    ) -> BoxFuture<'a, Result<Option<StoredProposal>, StoreError>> {
        let stored = lock(&self.proposals).get(id).cloned();
        Box::pin(std::future::ready(Ok(stored)))
    }

    fn approvals(&self) -> &dyn ApprovalStore {
        &self.approvals
    }

    fn record(&self, entry: AuditEntry) -> BoxFuture<'_, Result<(), StoreError>> {
        lock(&self.audit).push(entry);
        Box::pin(std::future::ready(Ok(())))
    }
}

impl std::fmt::Debug for MemoryStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryStore")
            .field("users", &self.tokens.len())
            .finish_non_exhaustive()
    }
}
