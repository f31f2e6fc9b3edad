//! A single gated call outside an agent run, as MCP makes them: who a
//! bearer token is, each identity's grant (resolved by the gates, cached
//! per settings generation), the call checked against it and the gates as
//! they are now, a write tool's proposal kept for the one approval path,
//! settings changes announced to whoever listens, and every call in the
//! audit trail (`audit_writer.rs`: calls finishing together share one
//! commit), and a call's progress fed to whoever watches it (tool-mcp's
//! `ProgressFeed`); a proposal followed to its end for the caller who made
//! it (`tasks.rs`).

mod audit_writer;
pub mod tasks;
pub mod verdicts;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;
use tokio::sync::watch;
use tool_core::calls::CancelToken;
use tool_core::exposure;
use tool_core::gates::{Denial, Gates, Grant, HostSettings, RunConfig, RunInputs, Selection};
use tool_core::{Actor, Outcome, ProposalId, RunId, ToolError};

use audit_writer::AuditWriter;
pub use tool_mcp::{CallControl, CallScope, Caller};

use crate::app::oauth::{OAuthSettings, OAuthVerifier, looks_like_jwt};
use crate::app::webhooks::events;
use crate::app::{Calls, HostError};
use crate::store::{
    self, AuditKind, CallProposal, CallRows, HostUser, McpClient, StoreError, WebOrigin,
};

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

/// How long an MCP session keeps what it read without a call: a session
/// is one conversation, kept like a run, but sessions are not told to the
/// host when they end, so an idle one is let go after a day.
pub const SESSION_EXPOSURE_IDLE: Duration = Duration::from_secs(24 * 60 * 60);

/// What became of one call.
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

/// Why [`Calls::call`](crate::app::Calls::call) has no outcome.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CallError {
    /// The call was refused or failed; the model is told its `model_text`.
    #[error(transparent)]
    Tool(#[from] ToolError),
    /// The host failed; nothing was decided.
    #[error(transparent)]
    Host(#[from] HostError),
}

impl From<StoreError> for CallError {
    fn from(error: StoreError) -> Self {
        CallError::Host(error.into())
    }
}

/// What single calls share across requests: the newest settings read, the
/// grants resolved under them, who listens for changes, the OAuth keys,
/// the audit writer.
pub(crate) struct CallState {
    /// The settings of the newest generation read: one `SELECT` of the
    /// generation answers most requests.
    settings: Mutex<Option<Arc<Settings>>>,
    grants: Mutex<HashMap<Actor, (u64, Arc<Grant>)>>,
    /// The newest settings generation seen; 0 until the first read.
    changes: watch::Sender<u64>,
    last_poll: Mutex<Option<Instant>>,
    oauth: OAuthVerifier,
    audit: AuditWriter,
}

impl CallState {
    pub(crate) fn new(database: store::Store) -> Self {
        CallState {
            settings: Mutex::new(None),
            grants: Mutex::new(HashMap::new()),
            changes: watch::Sender::new(0),
            last_poll: Mutex::new(None),
            oauth: OAuthVerifier::default(),
            audit: AuditWriter::new(database),
        }
    }
}

impl std::fmt::Debug for CallState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallState").finish_non_exhaustive()
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

impl Calls<'_> {
    /// The user a bearer token belongs to: one of the host's own tokens,
    /// or, where the settings name an OAuth issuer, an access token it
    /// signed for this server ([`crate::app::oauth`]).
    pub async fn authenticate(&self, token: &str) -> Result<Option<Actor>, HostError> {
        if looks_like_jwt(token)
            && let Some(oauth) = self.oauth().await?
        {
            return match self.host.calls.oauth.user(&oauth, token).await? {
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
    async fn call_settings_at(&self, generation: u64) -> Result<Arc<Settings>, StoreError> {
        let settings = self.settings_at(generation).await?;
        self.observe(settings.generation);
        Ok(settings)
    }

    /// The settings of `generation`, read now: the cached ones while the
    /// generation is theirs.
    async fn settings_at(&self, generation: u64) -> Result<Arc<Settings>, StoreError> {
        let database = self.host.store();
        if let Some(cached) = lock(&self.host.calls.settings).clone()
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
        let mut cached = lock(&self.host.calls.settings);
        if cached.as_ref().is_none_or(|c| c.generation <= generation) {
            *cached = Some(Arc::clone(&settings));
        }
        Ok(settings)
    }

    fn observe(&self, generation: u64) {
        self.host.calls.changes.send_if_modified(|seen| {
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
            let mut last = lock(&self.host.calls.last_poll);
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
        self.host.calls.changes.subscribe()
    }

    fn grant_under(&self, actor: &Actor, settings: &Settings) -> Arc<Grant> {
        let mut grants = lock(&self.host.calls.grants);
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

    /// A gated call as `actor`: checked against the actor's grant and the
    /// gates as they are now, so a tool switched off a moment ago is refused
    /// at once. A write tool's proposal is stored for approval, in a run of
    /// its own that holds the proposer and the grant, so the one approval
    /// path decides it like any run's.
    ///
    /// Cancelling `cancel` tells the tool (its context's token) and ends the
    /// call with [`ToolError::Cancelled`]; a proposal the tool already made
    /// is stored whole.
    ///
    /// What the caller has read before ([`CallScope`]) is gate 9's input:
    /// a tool it takes away is refused like an unknown one, and a write's
    /// proposal after untrusted content needs another approver. What this
    /// call's result brings in is added for the next.
    pub async fn call(
        &self,
        actor: &Actor,
        tool: &str,
        arguments: Value,
        run: RunId,
        scope: &CallScope,
        cancel: CancelToken,
    ) -> Result<Outcome, CallError> {
        let caller = Caller {
            actor: actor.clone(),
            client_name: None,
            client_version: None,
            protocol: None,
        };
        let control = CallControl {
            cancel,
            progress: None,
            client: None,
        };
        self.call_watched(&caller, tool, arguments, run, scope, control)
            .await
    }

    /// [`call`](Self::call) by `caller` (whose client is kept in the audit
    /// trail), with the tool's progress reports fed to `control`'s feed
    /// (watched through its [`ProgressWatch`](tool_mcp::ProgressWatch)).
    ///
    /// Every call, whatever became of it, is audited; its audit row and
    /// the proposal it made are committed together (calls finishing
    /// together share the commit) before it returns. A call whose rows
    /// cannot be committed fails with [`HostError::Unrecorded`]: nothing
    /// unaudited is answered, and no proposal is kept without its row.
    pub async fn call_watched(
        &self,
        caller: &Caller,
        tool: &str,
        arguments: Value,
        run: RunId,
        scope: &CallScope,
        control: CallControl,
    ) -> Result<Outcome, CallError> {
        let started = Instant::now();
        let made = self
            .gated_call(&caller.actor, tool, arguments, &run, scope, control)
            .await;
        let (outcome, proposal) = match made {
            Ok((outcome, proposal)) => (Ok(outcome), proposal),
            Err(error) => (Err(error), None),
        };
        let decision = CallDecision::of(&outcome);
        let proposed = proposal
            .as_ref()
            .map(|made| (made.run.clone(), made.proposal.clone()));
        let rows = CallRows {
            audit: audit_entry(
                caller.clone(),
                tool.to_owned(),
                &decision,
                started.elapsed(),
            ),
            proposal,
        };
        if let Err(error) = self.host.calls.audit.write(rows).await {
            tracing::error!(target: "host_example::app", %error, "could not record a call");
            return Err(HostError::Unrecorded(error).into());
        }
        if let Some((run, proposal)) = proposed {
            events::proposal_created(self.host.store(), &run, &caller.actor.id, &proposal).await;
        }
        outcome
    }

    /// Raises `caller`'s exposure by the result of applying the proposal
    /// their single call made (`tool`, `call` its proposal's id): the
    /// task's result brings it to them, so it counts as a call's result
    /// does, by the same rule (`exposure::content_of`: the declaration, or
    /// untrusted when the result carries person-written text).
    pub(crate) async fn raise_by_applied_call(
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

    /// The call itself: the gates, the tool, the caller's exposure
    /// brought up to date; a proposal made comes back to be stored with
    /// the call's audit row.
    async fn gated_call(
        &self,
        actor: &Actor,
        tool: &str,
        arguments: Value,
        run: &RunId,
        scope: &CallScope,
        control: CallControl,
    ) -> Result<(Outcome, Option<CallProposal>), CallError> {
        let CallControl {
            cancel,
            progress,
            client,
        } = control;
        let caller_key = format!("caller:{}", actor.id);
        let session_key = match scope {
            CallScope::Session(id) => Some(format!("session:{}:{id}", actor.id)),
            CallScope::Stateless => None,
        };
        // The settings generation, the caller's exposure and the session's
        // in one read.
        let state = self
            .host
            .store()
            .run_log()
            .call_state_in(&caller_key, session_key.as_deref())
            .await?;
        let settings = self.call_settings_at(state.generation).await?;
        let grant = self.grant_under(actor, &settings);
        let window = settings.exposure_window;
        let caller_read = state.exposure(window)?;
        // A session adds what it read: never less than its caller's.
        let session = match session_key {
            Some(key) => Some((key, state.session_exposure(SESSION_EXPOSURE_IDLE)?)),
            None => None,
        };
        let mut read = caller_read.exposure.clone();
        if let Some((_, session_read)) = &session {
            let _ = read.absorb(&session_read.exposure);
        }
        let mut cx = self.host.runs().context(run, actor).with_cancel(cancel);
        if !read.is_empty() {
            cx = cx.with_exposure(Arc::new(read.clone()));
        }
        if let Some(progress) = progress {
            cx = cx.with_progress_sink(progress);
        }
        if let Some(client) = client {
            cx = cx.with_client(client);
        }
        let outcome = Gates::new(self.host.registry(), inputs(&settings, actor))
            .call(&grant, tool, arguments, &cx)
            .await;
        let declaration = self.host.registry().get(tool).map(|t| t.declaration());
        // The exposure is raised in a transaction of its own before the
        // call's rows: a rise whose call is then not recorded only makes
        // the caller's next calls more restricted, never less. The
        // caller's and the session's are each raised.
        // What the result carries decides as much as what the tool says.
        let authored = exposure::carries_authored(&outcome);
        let exposure = match declaration.map(|d| (d, exposure::content_of(d, authored))) {
            Some((declaration, content))
                if exposure::brings_in(&outcome) && read.raised_by(declaration.data, content) =>
            {
                let mut raised = read.clone();
                let _ = raised.record_result(declaration, content, &run.0);
                self.host
                    .store()
                    .run_log()
                    .raise_exposure(&caller_key, &raised, window)
                    .await?;
                if let Some((key, _)) = &session {
                    self.host
                        .store()
                        .run_log()
                        .raise_exposure(key, &raised, SESSION_EXPOSURE_IDLE)
                        .await?;
                }
                raised
            }
            _ => {
                self.host
                    .store()
                    .run_log()
                    .touch_exposure(&caller_key, caller_read.seen_at)
                    .await?;
                if let Some((key, session_read)) = &session {
                    self.host
                        .store()
                        .run_log()
                        .touch_exposure(key, session_read.seen_at)
                        .await?;
                }
                read
            }
        };
        let outcome = outcome?;
        let proposal = match &outcome {
            // A run of its own per proposal: the call's run id names the
            // request, which repeats across sessions.
            Outcome::Proposed(proposal) => Some(CallProposal {
                run: RunId(format!("mcp-{}", proposal.id())),
                proposer: actor.id.clone(),
                grant,
                proposal: (**proposal).clone(),
                exposure,
            }),
            Outcome::Done(_) => None,
        };
        Ok((outcome, proposal))
    }
}

impl CallDecision {
    /// What became of a call that ended with `outcome`.
    pub fn of(outcome: &Result<Outcome, CallError>) -> CallDecision {
        match outcome {
            Ok(Outcome::Done(_)) => CallDecision::Done,
            Ok(Outcome::Proposed(proposal)) => CallDecision::Proposed {
                proposal: proposal.id().clone(),
            },
            Err(CallError::Tool(ToolError::Refused { denial, .. })) => CallDecision::Refused {
                denial: denial.clone(),
            },
            Err(CallError::Tool(ToolError::Cancelled { .. })) => CallDecision::Cancelled,
            Err(_) => CallDecision::Failed,
        }
    }
}

/// One call as an entry of the host's audit trail.
fn audit_entry(
    caller: Caller,
    tool: String,
    decision: &CallDecision,
    duration: Duration,
) -> store::AuditEntry {
    let (word, gate, detail) = match decision {
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
    let mut stored = store::AuditEntry::new(AuditKind::Call, caller.actor.id, word);
    stored.tool = Some(tool);
    stored.gate = gate;
    stored.detail = detail;
    stored.client = Some(McpClient {
        name: caller.client_name,
        version: caller.client_version,
        protocol: caller.protocol,
    });
    stored.duration = Some(duration);
    stored
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
