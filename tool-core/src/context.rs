//! What a tool is given besides its arguments: who acts, in which run, and
//! the host's services by type.

use std::any::{Any, TypeId, type_name};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

use crate::ToolError;
use crate::calls::{CancelToken, Cancelled};
#[cfg(feature = "host")]
use crate::calls::{DecisionSink, ProgressSignal, ProgressSink};
use crate::client::{
    AskError, Asking, ClientChannel, Elicitation, Elicited, LogLevel, Root, Sampled, Sampling,
};
#[cfg(feature = "egress")]
use crate::egress::EgressGuard;
#[cfg(feature = "host")]
use crate::exposure::Exposure;

/// The egress guard a call hands its tool: the guard of the tool's group.
#[cfg(all(feature = "host", feature = "egress"))]
pub(crate) type EgressSlot = Arc<EgressGuard>;
/// Without the `egress` feature no guard exists and no code in the build
/// can ask for one, so the slot cannot be filled.
#[cfg(all(feature = "host", not(feature = "egress")))]
#[derive(Clone)]
pub(crate) enum EgressSlot {}

/// The person (or service account) a run acts for.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Actor {
    /// The host's id for them.
    pub id: String,
    /// Whether they are an administrator.
    pub admin: bool,
}

impl Actor {
    /// An administrator with the host's id `id`.
    pub fn admin(id: impl Into<String>) -> Actor {
        Actor {
            id: id.into(),
            admin: true,
        }
    }

    /// A user who is not an administrator, with the host's id `id`.
    pub fn user(id: impl Into<String>) -> Actor {
        Actor {
            id: id.into(),
            admin: false,
        }
    }
}

/// The id a host gives a run; it appears in every event of the run.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RunId(pub String);

impl fmt::Display for RunId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The context of one call.
///
/// Hosts put services in by type; a tool asks for the type it needs:
///
/// ```
/// use tool_core::{RunId, ToolContext, ToolError};
///
/// struct LogSource(Vec<&'static str>);
///
/// let cx = ToolContext::new(RunId("run-1".into())).with_service(LogSource(vec!["booted"]));
/// assert_eq!(cx.service::<LogSource>().unwrap().0, ["booted"]);
///
/// struct Mailer;
/// assert!(matches!(cx.service::<Mailer>(), Err(ToolError::MissingService { .. })));
/// ```
///
/// Cloning is cheap (two reference counts): the gated call path clones it
/// to hand a tool the egress guard of its group.
#[derive(Clone)]
pub struct ToolContext {
    shared: Arc<Shared>,
    /// Set by the gated call path (feature `host`).
    #[cfg(feature = "host")]
    egress: Option<EgressSlot>,
    /// Set by the call path for a call with a timeout, so that progress
    /// restarts it.
    #[cfg(feature = "host")]
    progress: Option<Arc<ProgressSignal>>,
    /// What the run (or the caller) has read so far, for gate 9; set by
    /// the host per call.
    #[cfg(feature = "host")]
    exposure: Option<Arc<Exposure>>,
}

#[derive(Clone)]
struct Shared {
    run: RunId,
    actor: Option<Actor>,
    services: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
    cancel: Option<CancelToken>,
    #[cfg(feature = "host")]
    decisions: Option<Arc<dyn DecisionSink>>,
    #[cfg(feature = "host")]
    progress: Option<Arc<dyn ProgressSink>>,
    /// How many times a call with this context read an [`Authored`]
    /// value. The call path compares it before and after a call: a
    /// result is marked when it grew. Shared by a run's calls, so one of
    /// two parallel calls can mark the other's result too: more marked,
    /// never less.
    ///
    /// [`Authored`]: crate::Authored
    authored_reads: Arc<AtomicU64>,
    /// The client the call came through, when it can be asked.
    client: Option<Arc<dyn ClientChannel>>,
}

/// The guard a tool gets when its group may not reach the network.
#[cfg(feature = "egress")]
static NO_EGRESS: EgressGuard = EgressGuard::none();

impl ToolContext {
    /// A context for `run` with no actor and no services.
    pub fn new(run: RunId) -> Self {
        ToolContext {
            shared: Arc::new(Shared {
                run,
                actor: None,
                services: HashMap::new(),
                cancel: None,
                #[cfg(feature = "host")]
                decisions: None,
                #[cfg(feature = "host")]
                progress: None,
                authored_reads: Arc::new(AtomicU64::new(0)),
                client: None,
            }),
            #[cfg(feature = "host")]
            egress: None,
            #[cfg(feature = "host")]
            progress: None,
            #[cfg(feature = "host")]
            exposure: None,
        }
    }

    /// Sets what the run (or the caller) has read so far: gate 9 checks the
    /// call against it ([`Gates::call`](crate::gates::Gates::call)). A
    /// context without one has read nothing.
    #[cfg(feature = "host")]
    pub fn with_exposure(mut self, exposure: Arc<Exposure>) -> Self {
        self.exposure = Some(exposure);
        self
    }

    /// What the run has read so far, as the host set it.
    #[cfg(feature = "host")]
    pub fn exposure(&self) -> Option<&Exposure> {
        self.exposure.as_deref()
    }

    /// Sets the acting user.
    pub fn with_actor(mut self, actor: Actor) -> Self {
        Arc::make_mut(&mut self.shared).actor = Some(actor);
        self
    }

    /// Adds a service; a second service of one type replaces the first.
    pub fn with_service<T: Any + Send + Sync>(mut self, service: T) -> Self {
        Arc::make_mut(&mut self.shared)
            .services
            .insert(TypeId::of::<T>(), Arc::new(service));
        self
    }

    /// The run this call belongs to.
    pub fn run(&self) -> &RunId {
        &self.shared.run
    }

    /// The acting user, if any. No actor is never an administrator.
    pub fn actor(&self) -> Option<&Actor> {
        self.shared.actor.as_ref()
    }

    /// The host's service of type `T`, or [`ToolError::MissingService`].
    pub fn service<T: Any + Send + Sync>(&self) -> Result<&T, ToolError> {
        self.shared
            .services
            .get(&TypeId::of::<T>())
            .and_then(|service| service.downcast_ref::<T>())
            .ok_or(ToolError::MissingService {
                service: type_name::<T>(),
            })
    }
}

impl ToolContext {
    /// The egress guard of the calling tool's group: check every URL with it
    /// before any request. Outside a gated call, or for a group granted no
    /// egress, it refuses everything. (Feature `egress`.)
    #[cfg(feature = "egress")]
    pub fn egress(&self) -> &EgressGuard {
        #[cfg(feature = "host")]
        if let Some(guard) = &self.egress {
            return guard;
        }
        &NO_EGRESS
    }

    /// The context a call's attempts run with: this one with the group's
    /// egress guard and the call's progress signal, where the call has them
    /// (`None`: this context as it is).
    #[cfg(feature = "host")]
    pub(crate) fn for_call(
        &self,
        egress: Option<&EgressSlot>,
        progress: Option<&Arc<ProgressSignal>>,
    ) -> Option<ToolContext> {
        if egress.is_none() && progress.is_none() {
            return None;
        }
        Some(ToolContext {
            shared: Arc::clone(&self.shared),
            egress: egress.cloned().or_else(|| self.egress.clone()),
            progress: progress.cloned().or_else(|| self.progress.clone()),
            exposure: self.exposure.clone(),
        })
    }
}

/// Provenance ([`Authored`](crate::Authored)).
impl ToolContext {
    pub(crate) fn mark_authored_read(&self) {
        self.shared.authored_reads.fetch_add(1, Ordering::Relaxed);
    }

    /// The count [`Authored::read`](crate::Authored::read) raises: the
    /// call path reads it before and after a call.
    #[cfg(feature = "host")]
    pub(crate) fn authored_reads(&self) -> u64 {
        self.shared.authored_reads.load(Ordering::Relaxed)
    }
}

/// Cancellation and progress ([`calls`](crate::calls)).
impl ToolContext {
    /// Sets the token that cancels the calls made with this context (and
    /// the agent's run driven with it).
    pub fn with_cancel(mut self, token: CancelToken) -> Self {
        Arc::make_mut(&mut self.shared).cancel = Some(token);
        self
    }

    /// Sends a [`DecisionRecord`](crate::calls::DecisionRecord) of every
    /// gated call made with this context to `sink`.
    /// (Feature `host`.)
    #[cfg(feature = "host")]
    pub fn with_decision_sink(mut self, sink: impl DecisionSink) -> Self {
        Arc::make_mut(&mut self.shared).decisions = Some(Arc::new(sink));
        self
    }

    /// Sends every progress report of the calls made with this context to
    /// `sink`, beside restarting their timeouts. (Feature `host`.)
    #[cfg(feature = "host")]
    pub fn with_progress_sink(mut self, sink: impl ProgressSink) -> Self {
        Arc::make_mut(&mut self.shared).progress = Some(Arc::new(sink));
        self
    }

    /// The progress sink the host set, if any.
    #[cfg(feature = "agent")]
    pub(crate) fn progress_sink(&self) -> Option<&Arc<dyn ProgressSink>> {
        self.shared.progress.as_ref()
    }

    #[cfg(feature = "host")]
    pub(crate) fn decision_sink(&self) -> Option<&dyn DecisionSink> {
        self.shared.decisions.as_deref()
    }

    /// The cancel token, if the host set one.
    pub fn cancel_token(&self) -> Option<&CancelToken> {
        self.shared.cancel.as_ref()
    }

    /// Whether the host cancelled this call or its run. A tool doing long
    /// work checks it between steps and stops early.
    pub fn is_cancelled(&self) -> bool {
        self.shared
            .cancel
            .as_ref()
            .is_some_and(CancelToken::is_cancelled)
    }

    /// Ready once the host cancels; never, without a token.
    pub fn cancelled(&self) -> Cancelled {
        match &self.shared.cancel {
            Some(token) => token.cancelled(),
            None => CancelToken::new().cancelled(),
        }
    }

    /// Reports progress: `done` of `total` (when known), and what is being
    /// done. Each report restarts the call's timeout, never past the
    /// host's ceiling, and goes to the host's progress sink, if it set one
    /// (an MCP client that asked for progress hears of it). A `tracing`
    /// event (target `tool_core::progress`).
    pub fn progress(&self, done: u64, total: Option<u64>, message: &str) {
        tracing::debug!(target: "tool_core::progress", run = %self.shared.run, done, total, message);
        #[cfg(feature = "host")]
        {
            if let Some(signal) = &self.progress {
                signal.report();
            }
            if let Some(sink) = &self.shared.progress {
                sink.report(done, total, message);
            }
        }
    }
}

/// Asking the client the call came through ([`client`](crate::client)).
impl ToolContext {
    /// Sets the client the calls made with this context came through: an
    /// MCP server's, for one call. (Feature `host`.)
    #[cfg(feature = "host")]
    pub fn with_client(mut self, client: Arc<dyn ClientChannel>) -> Self {
        Arc::make_mut(&mut self.shared).client = Some(client);
        self
    }

    /// Asks the person behind the client to fill in a form. Without a
    /// client, [`AskError::NoClient`] at once; a cancelled call stops
    /// waiting. Filled-in values are person-written: the call's result
    /// counts as carrying such text (gate 9).
    pub async fn elicit(&self, request: Elicitation) -> Result<Elicited, AskError> {
        let client = self.shared.client.clone().ok_or(AskError::NoClient)?;
        let answer = self.unless_cancelled(client.elicit(request)).await?;
        Ok(self.elicited(answer))
    }

    /// [`elicit`](Self::elicit) under the name `key`, where the client
    /// sees names ([`client`](crate::client): MCP 2026-07-28 carries the
    /// question in the call's result, under this key).
    pub async fn elicit_as(&self, key: &str, request: Elicitation) -> Result<Elicited, AskError> {
        let client = self.shared.client.clone().ok_or(AskError::NoClient)?;
        let answer = self
            .unless_cancelled(client.elicit_as(key, request))
            .await?;
        Ok(self.elicited(answer))
    }

    fn elicited(&self, answer: Elicited) -> Elicited {
        if matches!(answer, Elicited::Accepted(_)) {
            self.mark_authored_read();
        }
        answer
    }

    /// Asks the person behind the client to go to `url` (URL-mode
    /// elicitation: a sign-in, a payment, what must not pass through the
    /// client), telling them `message`. `Accepted` (with no values) means
    /// they agreed to go; nothing tells the tool what they did there.
    /// Without a client, [`AskError::NoClient`] at once.
    pub async fn elicit_url(&self, message: &str, url: &str) -> Result<Elicited, AskError> {
        let client = self.shared.client.clone().ok_or(AskError::NoClient)?;
        self.unless_cancelled(client.elicit_url(message, url)).await
    }

    /// Asks the client's model. Without a client, [`AskError::NoClient`]
    /// at once; a cancelled call stops waiting. The answer counts as
    /// person-written text, as a form's does.
    pub async fn sample(&self, request: Sampling) -> Result<Sampled, AskError> {
        let client = self.shared.client.clone().ok_or(AskError::NoClient)?;
        let answer = self.unless_cancelled(client.sample(request)).await?;
        self.mark_authored_read();
        Ok(answer)
    }

    /// [`sample`](Self::sample) under the name `key` (see
    /// [`elicit_as`](Self::elicit_as)).
    pub async fn sample_as(&self, key: &str, request: Sampling) -> Result<Sampled, AskError> {
        let client = self.shared.client.clone().ok_or(AskError::NoClient)?;
        let answer = self
            .unless_cancelled(client.sample_as(key, request))
            .await?;
        self.mark_authored_read();
        Ok(answer)
    }

    /// Asks the client where its person works (its roots). Without a
    /// client, [`AskError::NoClient`] at once; a cancelled call stops
    /// waiting. The URIs and names are the client's: the call's result
    /// counts as carrying person-written text.
    pub async fn roots(&self) -> Result<Vec<Root>, AskError> {
        let client = self.shared.client.clone().ok_or(AskError::NoClient)?;
        let roots = self.unless_cancelled(client.roots()).await?;
        self.mark_authored_read();
        Ok(roots)
    }

    /// [`roots`](Self::roots) under the name `key` (see
    /// [`elicit_as`](Self::elicit_as)).
    pub async fn roots_as(&self, key: &str) -> Result<Vec<Root>, AskError> {
        let client = self.shared.client.clone().ok_or(AskError::NoClient)?;
        let roots = self.unless_cancelled(client.roots_as(key)).await?;
        self.mark_authored_read();
        Ok(roots)
    }

    /// Logs `message` to the client, if it asked for this level, and as a
    /// `tracing` event (target `tool_core::log`) in any case.
    pub fn log(&self, level: LogLevel, message: &str) {
        tracing::debug!(target: "tool_core::log", run = %self.shared.run, ?level, message);
        if let Some(client) = &self.shared.client {
            client.log(level, message);
        }
    }

    async fn unless_cancelled<T>(&self, asking: Asking<'_, T>) -> Result<T, AskError> {
        let mut asking = asking;
        let mut cancelled = std::pin::pin!(self.cancelled());
        std::future::poll_fn(|cx| {
            if let std::task::Poll::Ready(answer) = asking.as_mut().poll(cx) {
                return std::task::Poll::Ready(answer);
            }
            if cancelled.as_mut().poll(cx).is_ready() {
                return std::task::Poll::Ready(Err(AskError::Cancelled));
            }
            std::task::Poll::Pending
        })
        .await
    }
}

impl fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut debug = f.debug_struct("ToolContext");
        debug
            .field("run", &self.shared.run)
            .field("actor", &self.shared.actor)
            .field("services", &self.shared.services.len());
        #[cfg(feature = "egress")]
        debug.field("egress", &self.egress().scope());
        debug.finish()
    }
}
