//! Who is asking and what they may: a user by name or by bearer token,
//! whether they are an administrator, the settings as they are now (read
//! once per settings generation and announced to whoever listens when
//! they change), the grant those settings give each identity, and what a
//! caller has been exposed to by an applied call. Every other service
//! stands on this one; it asks none.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::watch;
use tool_core::Actor;
use tool_core::exposure;
use tool_core::gates::{Gates, Grant, HostSettings, RunConfig, RunInputs, Selection};

use crate::app::oauth::{OAuthSettings, OAuthVerifier, looks_like_jwt};
use crate::app::{Access, HostError};
use crate::store::{AuditEntry, AuditKind, HostUser, StoreError, WebOrigin};

/// How often open streams look at the store for settings another process
/// changed (`host-example settings set`, another server on the database).
pub const SETTINGS_POLL_INTERVAL: Duration = Duration::from_secs(1);

/// The settings the gates read, as one stored version.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings {
    /// Increases with every change, so a cached grant knows it is stale.
    pub generation: u64,
    /// What administrators switched.
    pub host: HostSettings,
    /// The configuration every single call runs with.
    pub run: RunConfig,
    /// The OAuth issuer whose access tokens HTTP accepts, if any.
    pub oauth: Option<Arc<OAuthSettings>>,
    /// Browser origins admitted besides the server's own.
    pub allowed_origins: Vec<WebOrigin>,
    /// How long a caller without a session keeps what it read (gate 9).
    pub exposure_window: Duration,
}

/// What the access checks share across requests: the newest settings
/// read, the grants resolved under them, who listens for changes, the
/// OAuth keys.
#[derive(Default)]
pub(crate) struct AccessState {
    /// The settings of the newest generation read: one `SELECT` of the
    /// generation answers most requests.
    settings: Mutex<Option<Arc<Settings>>>,
    grants: Mutex<HashMap<Actor, (u64, Arc<Grant>)>>,
    /// The newest settings generation seen; 0 until the first read.
    changes: watch::Sender<u64>,
    last_poll: Mutex<Option<Instant>>,
    oauth: OAuthVerifier,
}

impl std::fmt::Debug for AccessState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AccessState").finish_non_exhaustive()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Every write under these locks is one insert or one replacement, so a
    // panic elsewhere cannot leave the value half-written.
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

fn actor(user: HostUser) -> Actor {
    Actor {
        id: user.name,
        admin: user.admin,
    }
}

impl Access<'_> {
    /// [`require_admin`](Self::require_admin) for a change: the refusal is audited too
    /// (who asked, for what), so every door leaves the same trace.
    pub(in crate::app) async fn administrator(
        &self,
        user: &str,
        doing: &str,
    ) -> Result<(), HostError> {
        let checked = self.require_admin(user, doing).await;
        if let Err(HostError::NotAdmin { .. }) = &checked {
            let mut entry = AuditEntry::new(AuditKind::Write, user, "refused");
            entry.tool = Some(doing.to_owned());
            entry.detail = Some("needs an administrator".to_owned());
            self.host.store().audit_log().audit(&entry).await?;
        }
        checked
    }

    /// Whether `user` is an administrator, for what only administrators
    /// may see (the tools page, the playground with its raw model traffic):
    /// [`HostError::NotAdmin`] if not. Nothing changes, so nothing is
    /// audited; a change is checked again where it is made.
    pub async fn require_admin(&self, user: &str, doing: &str) -> Result<(), HostError> {
        match self.host.store().people().user(user).await? {
            Some(found) if found.admin => Ok(()),
            _ => Err(HostError::NotAdmin {
                doing: doing.to_owned(),
                user: user.to_owned(),
            }),
        }
    }

    /// The user a bearer token belongs to: one of the host's own tokens,
    /// or, where the settings name an OAuth issuer, an access token it
    /// signed for this server ([`crate::app::oauth`]).
    pub async fn authenticate(&self, token: &str) -> Result<Option<Actor>, HostError> {
        if looks_like_jwt(token)
            && let Some(oauth) = self.oauth().await?
        {
            return match self.host.access.oauth.user(&oauth, token).await? {
                Some(name) => self.user(&name).await,
                None => Ok(None),
            };
        }
        Ok(self
            .host
            .store()
            .people()
            .user_for_token(token)
            .await?
            .map(actor))
    }

    /// The OAuth issuer the settings name, if any.
    pub async fn oauth(&self) -> Result<Option<Arc<OAuthSettings>>, HostError> {
        Ok(self.call_settings().await?.oauth.clone())
    }

    /// The user of this name, if any.
    pub async fn user(&self, name: &str) -> Result<Option<Actor>, HostError> {
        Ok(self.host.store().people().user(name).await?.map(actor))
    }

    /// The tools `actor` is offered for a single call now, resolved by the
    /// gates once per settings generation.
    pub async fn grant(&self, actor: &Actor) -> Result<Arc<Grant>, HostError> {
        let settings = self.call_settings().await?;
        Ok(self.grant_under(actor, &settings))
    }

    /// The settings as they are now; a generation newer than the last one
    /// seen is announced to open streams.
    pub(crate) async fn call_settings(&self) -> Result<Arc<Settings>, StoreError> {
        let settings = self.load_settings().await?;
        self.observe(settings.generation);
        Ok(settings)
    }

    async fn load_settings(&self) -> Result<Arc<Settings>, StoreError> {
        let generation = self.host.store().config().settings_generation().await?;
        self.settings_at(generation).await
    }

    /// [`call_settings`](Self::call_settings) for a generation just read.
    pub(in crate::app) async fn call_settings_at(
        &self,
        generation: u64,
    ) -> Result<Arc<Settings>, StoreError> {
        let settings = self.settings_at(generation).await?;
        self.observe(settings.generation);
        Ok(settings)
    }

    /// The settings of `generation`, read now: the cached ones while the
    /// generation is theirs.
    async fn settings_at(&self, generation: u64) -> Result<Arc<Settings>, StoreError> {
        let database = self.host.store();
        if let Some(cached) = lock(&self.host.access.settings).clone()
            && cached.generation == generation
        {
            return Ok(cached);
        }
        // Read after the generation: what is read is at least that new, and
        // a write in between bumps the generation past it, so the next read
        // loads again.
        let settings = Arc::new(Settings {
            generation,
            host: database.config().host_settings().await?,
            run: RunConfig {
                trust_zone: database.config().trust_zone().await?,
                ..RunConfig::default()
            },
            oauth: database.config().oauth_settings().await?.map(Arc::new),
            exposure_window: database.config().exposure_window().await?,
            allowed_origins: database.config().allowed_origins().await?,
        });
        let mut cached = lock(&self.host.access.settings);
        if cached.as_ref().is_none_or(|c| c.generation <= generation) {
            *cached = Some(Arc::clone(&settings));
        }
        Ok(settings)
    }

    fn observe(&self, generation: u64) {
        self.host.access.changes.send_if_modified(|seen| {
            // The first generation read is where this process starts, not
            // a change.
            let changed = *seen != 0 && generation > *seen;
            *seen = (*seen).max(generation);
            changed
        });
    }

    /// Reads the settings generation, at most about once per
    /// [`SETTINGS_POLL_INTERVAL`] however many streams ask, so a change
    /// another process made reaches the open streams.
    pub async fn poll_settings(&self) -> Result<(), HostError> {
        {
            let mut last = lock(&self.host.access.last_poll);
            let now = Instant::now();
            if last.is_some_and(|at| now.duration_since(at) < SETTINGS_POLL_INTERVAL / 2) {
                return Ok(());
            }
            *last = Some(now);
        }
        self.call_settings().await?;
        Ok(())
    }

    /// Settings generations as they change, here or in another process
    /// (seen by a request or [`poll_settings`](Self::poll_settings)): MCP
    /// forwards each as `notifications/tools/list_changed`.
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.host.access.changes.subscribe()
    }

    pub(in crate::app) fn grant_under(&self, actor: &Actor, settings: &Settings) -> Arc<Grant> {
        let mut grants = lock(&self.host.access.grants);
        if let Some((generation, grant)) = grants.get(actor)
            && *generation == settings.generation
        {
            return Arc::clone(grant);
        }
        let grant = Arc::new(
            Gates::new(self.host.registry(), inputs(settings, actor))
                .resolve()
                .grant,
        );
        grants.insert(actor.clone(), (settings.generation, Arc::clone(&grant)));
        grant
    }

    /// Raises `caller`'s exposure by the result of applying the proposal
    /// their single call made (`tool`, `call` its proposal's id): the
    /// task's result brings it to them, so it counts as a call's result
    /// does, by the same rule (`exposure::content_of`: the declaration, or
    /// untrusted when the result carries person-written text).
    pub(in crate::app) async fn raise_by_applied_call(
        &self,
        caller: &str,
        tool: &str,
        output: &tool_core::ToolOutput,
        call: &str,
    ) -> Result<(), HostError> {
        let Some(declaration) = self.host.registry().get(tool).map(|t| t.declaration()) else {
            return Ok(());
        };
        let content = exposure::content_of(declaration, output.carries_authored());
        let mut raised = tool_core::exposure::Exposure::default();
        if raised.record_result(declaration, content, call).any() {
            let window = self.host.store().config().exposure_window().await?;
            self.host
                .store()
                .run_log()
                .raise_exposure(&format!("caller:{caller}"), &raised, window)
                .await?;
        }
        Ok(())
    }
}

pub(in crate::app) fn inputs<'a>(settings: &'a Settings, actor: &'a Actor) -> RunInputs<'a> {
    RunInputs {
        settings: &settings.host,
        actor: Some(actor),
        config: &settings.run,
        skills: &[],
        selection: &Selection::All,
    }
}
