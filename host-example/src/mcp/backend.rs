//! What the MCP server asks of its host: [`Store`], the host's storage
//! (who a token is, the settings, proposals, approvals, audit), and
//! [`Backend`], the one middle layer every transport calls, which holds the
//! rules (the grant, the gated call, approval) over any store.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;
use tokio::sync::watch;
use tool_core::approval::{Approval, ApprovalError, ApprovalStore};
use tool_core::calls::CancelToken;
use tool_core::gates::{
    Denial, Gates, Grant, HostSettings, RunConfig, RunInputs, Selection, Toggle,
};
use tool_core::{
    Actor, BoxFuture, Outcome, Proposal, ProposalId, Registry, RunId, ToolContext, ToolError,
    ToolOutput,
};

use super::oauth::{OAuthSettings, OAuthVerifier, looks_like_jwt};

/// The settings the gates read, as one stored version.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings {
    /// Increases with every change, so a cached grant knows it is stale.
    pub generation: u64,
    /// What administrators switched.
    pub host: HostSettings,
    /// The configuration every MCP session runs with.
    pub run: RunConfig,
    /// The OAuth issuer whose access tokens HTTP accepts, if any.
    pub oauth: Option<Arc<OAuthSettings>>,
}

/// A proposal kept for approval, with what approving it needs again: who
/// proposed it and the grant the call was made under.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredProposal {
    /// The proposal as the tool made it.
    pub proposal: Proposal,
    /// Who called the tool.
    pub proposer: Actor,
    /// The proposer's grant when the call was made.
    pub grant: Grant,
}

/// Who made an MCP call, with what client, over which protocol revision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Caller {
    /// The authenticated user.
    pub actor: Actor,
    /// The client's name, from `initialize` or the request's `_meta`.
    pub client_name: Option<String>,
    /// The client's version, likewise.
    pub client_version: Option<String>,
    /// The protocol revision of the request (`2025-11-25`, `2026-07-28`).
    pub protocol: Option<String>,
}

/// What became of one `tools/call`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum CallDecision {
    /// A read tool ran.
    Done,
    /// A write tool proposed a change, stored for approval.
    Proposed {
        /// The proposal.
        proposal: ProposalId,
    },
    /// The call was allowed and failed: bad arguments, or the tool's error.
    Failed,
    /// A gate refused it (an unknown tool is refused by gate `registered`).
    Refused {
        /// The first gate that said no.
        denial: Denial,
    },
    /// The client went away or cancelled before the tool finished.
    Cancelled,
}

/// One audited MCP call.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditEntry {
    /// Who called, with what client and revision.
    pub caller: Caller,
    /// The tool name the client asked for.
    pub tool: String,
    /// What became of it.
    pub decision: CallDecision,
    /// From the request's arrival to its answer.
    pub duration: Duration,
}

/// The host's storage failed; nothing was decided.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the host's store failed: {0}")]
pub struct StoreError(pub String);

/// The host's storage, as the MCP server needs it. A host implements it over
/// its database; [`MemoryStore`](super::MemoryStore) is the in-memory one.
pub trait Store: Send + Sync + 'static {
    /// The user one of the host's own bearer tokens belongs to, if any.
    fn authenticate<'a>(
        &'a self,
        token: &'a str,
    ) -> BoxFuture<'a, Result<Option<Actor>, StoreError>>;

    /// The user of this name, if any (stdio acts as a named local user).
    fn user<'a>(&'a self, name: &'a str) -> BoxFuture<'a, Result<Option<Actor>, StoreError>>;

    /// The settings as they are now.
    fn settings(&self) -> BoxFuture<'_, Result<Arc<Settings>, StoreError>>;

    /// Replaces the host settings and returns the new generation, which
    /// must be greater than every earlier one.
    fn save_settings(&self, host: HostSettings) -> BoxFuture<'_, Result<u64, StoreError>>;

    /// The context a tool runs in for `actor`: the actor and the host's
    /// services (the site).
    fn context(&self, actor: &Actor, run: RunId) -> ToolContext;

    /// Keeps a proposal until someone decides it.
    fn store_proposal(&self, stored: StoredProposal) -> BoxFuture<'_, Result<(), StoreError>>;

    /// A stored proposal.
    fn proposal<'a>(
        &'a self,
        id: &'a ProposalId,
    ) -> BoxFuture<'a, Result<Option<StoredProposal>, StoreError>>;

    /// Where decisions are claimed, once each.
    fn approvals(&self) -> &dyn ApprovalStore;

    /// Appends one entry to the audit log.
    fn record(&self, entry: AuditEntry) -> BoxFuture<'_, Result<(), StoreError>>;
}

/// Why [`Backend::approve`] applied nothing.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ApproveError {
    /// No proposal has this id.
    #[error("no proposal `{0}` is waiting")]
    UnknownProposal(ProposalId),
    /// The approval path refused or failed.
    #[error(transparent)]
    Approval(#[from] ApprovalError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The rules between the transports and the host's [`Store`]: each
/// identity's grant (resolved by the gates, cached per settings
/// generation), the gated call, approval, and settings changes announced to
/// open sessions.
pub struct Backend<S> {
    registry: Registry,
    store: S,
    grants: Mutex<HashMap<Actor, (u64, Arc<Grant>)>>,
    /// The newest settings generation seen; 0 until the first read.
    changes: watch::Sender<u64>,
    last_poll: Mutex<Option<Instant>>,
    oauth: OAuthVerifier,
}

/// How often open streams look at the store for settings another process
/// changed (`host-example settings set`, another server on the database).
pub const SETTINGS_POLL_INTERVAL: Duration = Duration::from_secs(1);

impl<S: Store> Backend<S> {
    /// A backend over `store` serving the tools of `registry`.
    pub fn new(registry: Registry, store: S) -> Self {
        Backend {
            registry,
            store,
            grants: Mutex::new(HashMap::new()),
            changes: watch::Sender::new(0),
            last_poll: Mutex::new(None),
            oauth: OAuthVerifier::default(),
        }
    }

    /// The tools served.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The host's store.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// The user a bearer token belongs to: one of the host's own tokens,
    /// or, where the settings name an OAuth issuer, an access token it
    /// signed for this server (see the `mcp::oauth` module).
    pub async fn authenticate(&self, token: &str) -> Result<Option<Actor>, StoreError> {
        if looks_like_jwt(token)
            && let Some(oauth) = self.oauth().await?
        {
            return match self.oauth.user(&oauth, token).await? {
                Some(name) => self.store.user(&name).await,
                None => Ok(None),
            };
        }
        self.store.authenticate(token).await
    }

    /// The OAuth issuer the settings name, if any.
    pub async fn oauth(&self) -> Result<Option<Arc<OAuthSettings>>, StoreError> {
        Ok(self.settings().await?.oauth.clone())
    }

    /// The user of this name.
    pub async fn user(&self, name: &str) -> Result<Option<Actor>, StoreError> {
        self.store.user(name).await
    }

    /// The tools `actor` is offered now, resolved by the gates once per
    /// settings generation.
    pub async fn grant(&self, actor: &Actor) -> Result<Arc<Grant>, StoreError> {
        let settings = self.settings().await?;
        Ok(self.grant_under(actor, &settings))
    }

    /// The settings as they are now; a generation newer than the last one
    /// seen is announced to open streams.
    async fn settings(&self) -> Result<Arc<Settings>, StoreError> {
        let settings = self.store.settings().await?;
        self.observe(settings.generation);
        Ok(settings)
    }

    fn observe(&self, generation: u64) {
        self.changes.send_if_modified(|seen| {
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
    pub async fn poll_settings(&self) -> Result<(), StoreError> {
        {
            let mut last = self.last_poll.lock().unwrap_or_else(|e| e.into_inner());
            let now = Instant::now();
            if last.is_some_and(|at| now.duration_since(at) < SETTINGS_POLL_INTERVAL / 2) {
                return Ok(());
            }
            *last = Some(now);
        }
        self.settings().await.map(drop)
    }

    fn grant_under(&self, actor: &Actor, settings: &Settings) -> Arc<Grant> {
        let mut grants = self.grants.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((generation, grant)) = grants.get(actor)
            && *generation == settings.generation
        {
            return Arc::clone(grant);
        }
        let grant = Arc::new(
            Gates::new(&self.registry, inputs(settings, actor))
                .resolve()
                .grant,
        );
        grants.insert(actor.clone(), (settings.generation, Arc::clone(&grant)));
        grant
    }

    /// A gated call as `actor`: checked against the actor's grant and the
    /// gates as they are now, so a tool switched off a moment ago is refused
    /// at once. A write tool's proposal is stored for approval.
    ///
    /// Cancelling `cancel` tells the tool (its context's token) and ends the
    /// call with [`ToolError::Cancelled`]; a proposal the tool already made
    /// is stored whole.
    pub async fn call(
        &self,
        actor: &Actor,
        tool: &str,
        arguments: Value,
        run: RunId,
        cancel: CancelToken,
    ) -> Result<Outcome, CallError> {
        let settings = self.settings().await?;
        let grant = self.grant_under(actor, &settings);
        let cx = self.store.context(actor, run).with_cancel(cancel);
        let outcome = Gates::new(&self.registry, inputs(&settings, actor))
            .call(&grant, tool, arguments, &cx)
            .await?;
        if let Outcome::Proposed(proposal) = &outcome {
            self.store
                .store_proposal(StoredProposal {
                    proposal: proposal.clone(),
                    proposer: actor.clone(),
                    grant: Grant::clone(&grant),
                })
                .await?;
        }
        Ok(outcome)
    }

    /// Approves a stored proposal through [`Approval`]: the proposer's
    /// grant and the approver's rights are checked again, the tool proposes
    /// again against the record as it is now, then applies.
    pub async fn approve(
        &self,
        id: &ProposalId,
        approver: &Actor,
    ) -> Result<ToolOutput, ApproveError> {
        let stored = self
            .store
            .proposal(id)
            .await?
            .ok_or_else(|| ApproveError::UnknownProposal(id.clone()))?;
        let settings = self.store.settings().await?;
        let approval = Approval {
            registry: &self.registry,
            run: inputs(&settings, &stored.proposer),
            grant: Some(&stored.grant),
            store: self.store.approvals(),
        };
        let cx = self
            .store
            .context(&stored.proposer, RunId(format!("mcp-approval-{id}")));
        Ok(approval.approve(&stored.proposal, approver, &cx).await?)
    }

    /// Switches one tool, and tells open sessions their tool list changed.
    pub async fn set_tool_state(&self, tool: &str, state: Toggle) -> Result<(), StoreError> {
        let mut host = self.store.settings().await?.host.clone();
        host.tools.entry(tool.to_owned()).or_default().state = state;
        self.set_settings(host).await
    }

    /// Replaces the host settings, and tells open sessions their tool list
    /// changed.
    pub async fn set_settings(&self, host: HostSettings) -> Result<(), StoreError> {
        let generation = self.store.save_settings(host).await?;
        self.changes
            .send_modify(|seen| *seen = (*seen).max(generation));
        Ok(())
    }

    /// Settings generations as they change, here
    /// ([`set_settings`](Self::set_settings)) or in another process (seen
    /// by a request or [`poll_settings`](Self::poll_settings)): the
    /// transports forward each as `notifications/tools/list_changed`.
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.changes.subscribe()
    }

    /// Appends to the audit log; a failure is logged, never shown to the
    /// client.
    pub async fn record(&self, entry: AuditEntry) {
        if let Err(error) = self.store.record(entry).await {
            tracing::error!(target: "host_example::mcp", %error, "could not record an MCP call");
        }
    }
}

/// Why [`Backend::call`] has no outcome.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum CallError {
    /// The call was refused or failed; the model is told its `model_text`.
    #[error(transparent)]
    Tool(#[from] ToolError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn inputs<'a>(settings: &'a Settings, actor: &'a Actor) -> RunInputs<'a> {
    RunInputs {
        settings: &settings.host,
        actor: Some(actor),
        config: &settings.run,
        skills: &[],
        selection: &Selection::All,
    }
}

impl<S> std::fmt::Debug for Backend<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Backend")
            .field("tools", &self.registry.len())
            .finish_non_exhaustive()
    }
}
