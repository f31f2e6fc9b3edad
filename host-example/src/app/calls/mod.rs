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

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;
use tool_core::calls::CancelToken;
use tool_core::exposure;
use tool_core::gates::{Denial, Gates};
use tool_core::{Actor, Outcome, ProposalId, RunId, ToolError};

use audit_writer::AuditWriter;
pub use tool_mcp::{CallControl, CallScope, Caller};

use crate::app::access::inputs;
use crate::app::webhooks::events;
use crate::app::{Calls, HostError};
use crate::store::{self, AuditKind, CallProposal, CallRows, McpClient, StoreError};

/// How long an MCP session keeps what it read without a call: a session
/// is one conversation, kept like a run, but sessions are not told to the
/// host when they end, so an idle one is let go after a day.
pub const SESSION_EXPOSURE_IDLE: Duration = Duration::from_secs(24 * 60 * 60);

/// What single calls share across requests: the audit writer, so calls
/// finishing together share one commit.
pub(crate) struct CallState {
    audit: AuditWriter,
}

impl CallState {
    pub(crate) fn new(database: store::Store) -> Self {
        CallState {
            audit: AuditWriter::new(database),
        }
    }
}

impl std::fmt::Debug for CallState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallState").finish_non_exhaustive()
    }
}

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

impl Calls<'_> {
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
        let settings = self.access.call_settings_at(state.generation).await?;
        let grant = self.access.grant_under(actor, &settings);
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
        let mut cx = self.runs.context(run, actor).with_cancel(cancel);
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
