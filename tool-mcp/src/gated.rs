//! [`Gated`]: the host of a server that needs nothing but its registry
//! and fixed settings. Each caller's grant is resolved once by the gates;
//! every call goes through them again ([`Gates::call`]); what a caller
//! read is kept in memory for gate 9, per caller and per session, for as
//! long as the process runs. A write tool's proposal is answered as
//! waiting, and nothing here ever approves it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tool_core::exposure::{self, Exposure};
use tool_core::gates::{Gates, Grant, HostSettings, RunConfig, RunInputs, Selection};
use tool_core::{Actor, Outcome, Registry, RunId, ToolContext};

use crate::host::{
    Authenticate, Call, CallError, CallScope, Completions, Failure, McpHost, Prompts, Resources,
};

/// Builds each call's [`ToolContext`]: where a host hands its tools their
/// services.
type ContextFn = dyn Fn(&RunId, &Actor) -> ToolContext + Send + Sync;

/// A registry served on fixed settings ([`McpServer::new`]).
///
/// [`McpServer::new`]: crate::McpServer::new
pub struct Gated {
    registry: Registry,
    settings: HostSettings,
    config: RunConfig,
    tokens: HashMap<String, Actor>,
    context: Box<ContextFn>,
    grants: Mutex<HashMap<Actor, Arc<Grant>>>,
    /// What each caller (`caller:ID`) and each of its sessions
    /// (`session:ID:SESSION`) has read.
    read: Mutex<HashMap<String, Exposure>>,
    resources: Option<Box<dyn Resources>>,
    prompts: Option<Box<dyn Prompts>>,
    completions: Option<Box<dyn Completions>>,
}

impl Gated {
    /// `registry` on the default settings and configuration: write tools
    /// are off until the settings switch them on; no bearer token is
    /// accepted; each call's context holds its run id and actor.
    pub fn new(registry: Registry) -> Self {
        Gated {
            registry,
            settings: HostSettings::default(),
            config: RunConfig::default(),
            tokens: HashMap::new(),
            context: Box::new(|run, actor| ToolContext::new(run.clone()).with_actor(actor.clone())),
            grants: Mutex::new(HashMap::new()),
            read: Mutex::new(HashMap::new()),
            resources: None,
            prompts: None,
            completions: None,
        }
    }

    /// The host's settings (tools and groups switched on or off, sites,
    /// gate 9's policy).
    pub fn settings(mut self, settings: HostSettings) -> Self {
        self.settings = settings;
        self
    }

    /// The configuration every call runs with (groups, effects, trust
    /// zone).
    pub fn config(mut self, config: RunConfig) -> Self {
        self.config = config;
        self
    }

    /// Accepts `Authorization: Bearer TOKEN` over HTTP as `actor`.
    pub fn token(mut self, token: impl Into<String>, actor: Actor) -> Self {
        self.tokens.insert(token.into(), actor);
        self
    }

    /// Builds each call's context: a host's services go here
    /// (`ToolContext::with_service`).
    pub fn context(
        mut self,
        context: impl Fn(&RunId, &Actor) -> ToolContext + Send + Sync + 'static,
    ) -> Self {
        self.context = Box::new(context);
        self
    }

    /// Serves `resources` (and their templates) beside the tools.
    pub fn resources(mut self, resources: impl Resources + 'static) -> Self {
        self.resources = Some(Box::new(resources));
        self
    }

    /// Serves `prompts` beside the tools.
    pub fn prompts(mut self, prompts: impl Prompts + 'static) -> Self {
        self.prompts = Some(Box::new(prompts));
        self
    }

    /// Completes prompts' and templates' arguments with `completions`.
    pub fn completions(mut self, completions: impl Completions + 'static) -> Self {
        self.completions = Some(Box::new(completions));
        self
    }

    fn inputs<'a>(&'a self, actor: &'a Actor) -> RunInputs<'a> {
        RunInputs {
            settings: &self.settings,
            actor: Some(actor),
            config: &self.config,
            skills: &[],
            selection: &Selection::All,
        }
    }

    fn grant_of(&self, actor: &Actor) -> Arc<Grant> {
        let mut grants = lock(&self.grants);
        let grant = grants.entry(actor.clone()).or_insert_with(|| {
            Arc::new(
                Gates::new(&self.registry, self.inputs(actor))
                    .resolve()
                    .grant,
            )
        });
        Arc::clone(grant)
    }

    /// The keys a call's reads are kept under: the caller's, and its
    /// session's when the server issued one.
    fn read_keys(call: &Call) -> Vec<String> {
        let caller = &call.caller.actor.id;
        let mut keys = vec![format!("caller:{caller}")];
        if let CallScope::Session(session) = &call.scope {
            keys.push(format!("session:{caller}:{session}"));
        }
        keys
    }
}

impl std::fmt::Debug for Gated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gated")
            .field("tools", &self.registry.len())
            .field("settings", &self.settings)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Every write under these locks is one insert or one replacement, so
    // a panic elsewhere cannot leave the value half-written.
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

#[async_trait::async_trait]
impl McpHost for Gated {
    fn registry(&self) -> &Registry {
        &self.registry
    }

    async fn grant(&self, actor: &Actor) -> Result<Arc<Grant>, Failure> {
        Ok(self.grant_of(actor))
    }

    async fn call(&self, call: Call) -> Result<Outcome, CallError> {
        let actor = &call.caller.actor;
        let keys = Gated::read_keys(&call);
        let mut read = Exposure::default();
        {
            let kept = lock(&self.read);
            for key in &keys {
                if let Some(exposure) = kept.get(key) {
                    let _ = read.absorb(exposure);
                }
            }
        }
        let mut cx = (self.context)(&call.run, actor).with_cancel(call.control.cancel);
        if !read.is_empty() {
            cx = cx.with_exposure(Arc::new(read.clone()));
        }
        if let Some(progress) = call.control.progress {
            cx = cx.with_progress_sink(progress);
        }
        if let Some(client) = call.control.client {
            cx = cx.with_client(client);
        }
        let grant = self.grant_of(actor);
        let outcome = Gates::new(&self.registry, self.inputs(actor))
            .call(&grant, &call.tool, call.arguments, &cx)
            .await;
        // What the result brought in counts for the caller's next calls
        // (gate 9), by the declaration or by the person-written text it
        // carries.
        if let Some(declaration) = self.registry.get(&call.tool).map(|t| t.declaration())
            && exposure::brings_in(&outcome)
        {
            let content = exposure::content_of(declaration, exposure::carries_authored(&outcome));
            let mut kept = lock(&self.read);
            for key in keys {
                let _ =
                    kept.entry(key)
                        .or_default()
                        .record_result(declaration, content, &call.run.0);
            }
        }
        Ok(outcome?)
    }

    fn authenticate(&self) -> Option<&dyn Authenticate> {
        Some(self)
    }

    fn resources(&self) -> Option<&dyn Resources> {
        self.resources.as_deref()
    }

    fn prompts(&self) -> Option<&dyn Prompts> {
        self.prompts.as_deref()
    }

    fn completions(&self) -> Option<&dyn Completions> {
        self.completions.as_deref()
    }
}

#[async_trait::async_trait]
impl Authenticate for Gated {
    async fn authenticate(&self, token: &str) -> Result<Option<Actor>, Failure> {
        // An empty token is no token, whatever was registered.
        if token.is_empty() {
            return Ok(None);
        }
        Ok(self.tokens.get(token).cloned())
    }
}
