//! The app layer: what the host does, whoever asks and through whichever
//! door. The command line (`cli/`, in the binary), the browser pages
//! ([`crate::web`]) and MCP ([`crate::mcp`]) each parse a request, call
//! [`Host`], and render its answer; none reads the store, builds a tool
//! context, resolves a grant or decides who may do what. A rule written
//! here holds at every door.
//!
//! `Host` is the shared core; what a door asks goes through one of its
//! services (`host.runs()`, `host.approvals()`, …, in `services.rs`). Each
//! service, what it owns and what it holds true: ARCHITECTURE.md, "host-example".

mod access;
pub mod actions;
mod admin;
pub mod approvals;
pub mod audit;
pub mod browser_sessions;
pub mod budgets;
pub mod calls;
mod content;
mod error;
pub mod index;
pub mod job_kinds;
mod killpoint;
pub mod mcp_sessions;
pub mod oauth;
pub mod origin;
pub mod overview;
pub mod policies;
pub mod recorder;
pub mod runs;
mod services;
mod setup;
pub mod signin;
pub mod skills;
pub mod timestamps;
pub mod webhooks;
pub mod worker;

use std::sync::Arc;

use site_model::Site;
use tool_core::approval::{DEFAULT_PROPOSAL_LIFETIME, ProposalLifetime};
use tool_core::{Actor, Registry};

/// What a door names when it asks: a run's request, a setting's key, an
/// audit filter, the audit chain's files and its verification, the database's address, backend and schema, and the store's failures inside
/// [`HostError`]. (The store itself stays beneath this layer.)
pub use crate::store::{
    AuditFiles, AuditFilter, AuditProblem, AuditVerification, Backend, DEFAULT_DATABASE_URL,
    LATEST_VERSION, Limits, RunRequest, SettingKey, StoreError,
};
pub use access::{SETTINGS_POLL_INTERVAL, Settings};
pub use admin::Offer;
pub use error::{HostError, describe, describe_exposure};
pub use services::{Access, Admin, Approvals, Calls, Jobs, Runs, Sessions, Skills};
pub use setup::{DEFAULT_ROUNDS, RunChoices, RunSetup};

use crate::store::{SqlSite, Store};
use index::{IndexLocation, PublicSearch, SearchBackend};

/// The registry of every tool crate this host links.
pub fn registry() -> Result<Registry, tool_core::RegistryError> {
    // One line per tool crate: without it the linker may drop a crate this
    // host never names, and its tools with it.
    tools_builtin::link();
    tools_editing::link();
    Registry::linked()
}

/// The host's app layer: every door asks it, and only it reaches
/// the store. Built once per process (or once per test) and shared.
pub struct Host {
    store: Store,
    registry: Registry,
    /// The site every tool context carries: the database's site with the
    /// source code the `code` tools read.
    site: Arc<dyn Site>,
    /// What the public may read of the site, searchable (the `rag` tools).
    search: Arc<PublicSearch>,
    lifetime: ProposalLifetime,
    access: access::AccessState,
    calls: calls::CallState,
    /// This process's id and the renewal of its leases.
    leases: Arc<worker::Leases>,
    /// The kinds of background job it runs.
    job_kinds: worker::JobKinds,
    /// Looks up webhooks' host names at every delivery.
    webhook_resolver: Arc<dyn webhooks::target::WebhookResolver>,
}

impl Host {
    /// The host over the database at `url` (created, migrated and seeded
    /// on first use), with every linked tool, its audit chain's files
    /// where [`AuditFiles::for_database`] puts them.
    pub async fn open(url: &str) -> Result<Host, HostError> {
        Host::open_with(
            url,
            SearchBackend::default(),
            IndexLocation::for_database(url),
            &AuditFiles::for_database(url),
        )
        .await
    }

    /// [`Host::open`] with the public search's preferred backend, the
    /// place of its index and the audit chain's key and heads files chosen.
    pub async fn open_with(
        url: &str,
        backend: SearchBackend,
        location: IndexLocation,
        audit: &AuditFiles,
    ) -> Result<Host, HostError> {
        Ok(Host::new(Store::open_with_audit(url, audit).await?)?.with_search(backend, location))
    }

    /// The same host with its public search preferring `backend`, its
    /// tantivy index kept at `location` (in memory unless set).
    pub fn with_search(mut self, backend: SearchBackend, location: IndexLocation) -> Self {
        self.search = Arc::new(PublicSearch::new(
            self.store.clone(),
            Arc::clone(&self.site),
            backend,
            location,
        ));
        self
    }

    /// The host over `store`, with every linked tool.
    pub fn new(store: Store) -> Result<Host, HostError> {
        Ok(Host::with_registry(store, registry()?))
    }

    /// The host over `store` with `registry`. Its site serves the demo
    /// site's source code ([`site_model::demo::source_root`]) to the
    /// `code` tools, in every run and every call alike.
    pub fn with_registry(store: Store, registry: Registry) -> Host {
        let site: Arc<dyn Site> = Arc::new(site_of(&store));
        let search = Arc::new(PublicSearch::new(
            store.clone(),
            Arc::clone(&site),
            SearchBackend::default(),
            IndexLocation::Memory,
        ));
        Host {
            access: access::AccessState::default(),
            calls: calls::CallState::new(store.clone()),
            search,
            site,
            store,
            registry,
            lifetime: ProposalLifetime(DEFAULT_PROPOSAL_LIFETIME),
            leases: worker::Leases::new(),
            job_kinds: worker::by_name(job_kinds::kinds()),
            webhook_resolver: Arc::new(webhooks::target::SystemResolver),
        }
    }

    #[cfg(any(test, feature = "test-support"))]
    /// Looks webhooks' host names up with `resolver` instead of the
    /// system's (a test's, which answers without the network).
    pub fn with_webhook_resolver(
        mut self,
        resolver: Arc<dyn webhooks::target::WebhookResolver>,
    ) -> Self {
        self.webhook_resolver = resolver;
        self
    }

    /// Sets how long a proposal waits for a decision before it expires.
    pub fn with_proposal_lifetime(mut self, lifetime: ProposalLifetime) -> Self {
        self.lifetime = lifetime;
        self
    }

    /// The key MCP's 2026-07-28 `requestState` is sealed with: the same in
    /// every process on this database, so a call's next round may reach
    /// any of them behind one URL.
    pub fn request_state_key(&self) -> Option<[u8; 32]> {
        self.store.shared_secret("tool-mcp requestState")
    }

    /// Its tools.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The store, for the app layer's own modules only: no door holds it.
    pub(in crate::app) fn store(&self) -> &Store {
        &self.store
    }

    /// Brings the public search index up to the site's generation, building
    /// it when it is missing (`rebuild`: building it again in any case),
    /// and says where it stands.
    pub async fn refresh_index(&self, rebuild: bool) -> Result<index::IndexStatus, HostError> {
        Ok(self.search.refresh(rebuild).await?)
    }

    /// Where the public search index stands, building nothing.
    pub async fn index_status(&self) -> Result<index::IndexStatus, HostError> {
        Ok(self.search.status().await?)
    }

    /// The host user `name` as an actor, their administrator flag as
    /// stored now.
    pub async fn actor(&self, name: &str) -> Result<Actor, HostError> {
        let user = self
            .store
            .people()
            .user(name)
            .await?
            .ok_or_else(|| StoreError::UnknownUser(name.to_owned()))?;
        Ok(Actor {
            id: user.name,
            admin: user.admin,
        })
    }
}

impl std::fmt::Debug for Host {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Host")
            .field("database", &self.store.backend())
            .field("tools", &self.registry.len())
            .finish_non_exhaustive()
    }
}

/// The database's site with the demo site's source code, which the `code`
/// tools read.
fn site_of(store: &Store) -> SqlSite {
    store
        .site()
        .with_source_root(site_model::demo::source_root())
}
