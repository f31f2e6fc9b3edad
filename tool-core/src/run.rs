//! [`HostRun`]: one run's inputs, gates, grant and context held together,
//! so a host names the actor once and calls, and approves, in a line each.
//!
//! The parts stay public ([`Gates`], [`RunInputs`], [`Approval`]) for a host
//! that stores them apart (a run's grant in its database, its settings
//! read again at each call); `HostRun` is those parts for a host that keeps
//! a run in memory, as the README's quick start does.

use std::any::Any;
use std::future::Future;

use serde_json::Value;

use crate::approval::{Approval, ApprovalError, ApprovalStore};
use crate::gates::{Gates, Grant, HostSettings, Resolution, RunConfig, RunInputs, Selection};
use crate::skills::SkillRef;
use crate::{
    Actor, DataClass, Outcome, Proposal, Registry, RunId, ToolContext, ToolError, ToolOutput,
};

impl Registry {
    /// A run with id `id` acting for `actor`, on the default settings and
    /// configuration until the builder says otherwise; [`RunBuilder::start`]
    /// resolves its grant.
    pub fn run(&self, id: impl Into<String>, actor: Actor) -> RunBuilder<'_> {
        let id = RunId(id.into());
        RunBuilder {
            registry: self,
            cx: ToolContext::new(id).with_actor(actor.clone()),
            parts: Parts {
                actor,
                settings: HostSettings::default(),
                config: RunConfig::default(),
                skills: Vec::new(),
                selection: Selection::All,
            },
        }
    }
}

/// What the gates read of a run, owned.
struct Parts {
    actor: Actor,
    settings: HostSettings,
    config: RunConfig,
    skills: Vec<SkillRef>,
    selection: Selection,
}

impl Parts {
    fn inputs(&self) -> RunInputs<'_> {
        RunInputs {
            settings: &self.settings,
            actor: Some(&self.actor),
            config: &self.config,
            skills: &self.skills,
            selection: &self.selection,
        }
    }
}

/// What a run is made of, before its grant is resolved
/// ([`Registry::run`]).
pub struct RunBuilder<'r> {
    registry: &'r Registry,
    cx: ToolContext,
    parts: Parts,
}

impl<'r> RunBuilder<'r> {
    /// The host's settings (what an administrator stored).
    pub fn settings(mut self, settings: HostSettings) -> Self {
        self.parts.settings = settings;
        self
    }

    /// The run's configuration.
    pub fn config(mut self, config: RunConfig) -> Self {
        self.parts.config = config;
        self
    }

    /// The most sensitive data the run's model may be shown (gate 8).
    pub fn trust_zone(mut self, zone: DataClass) -> Self {
        self.parts.config.trust_zone = zone;
        self
    }

    /// The run's skills, whose `allowed-tools` gate 6 applies.
    pub fn skills(mut self, skills: Vec<SkillRef>) -> Self {
        self.parts.skills = skills;
        self
    }

    /// The tools the run asked for (gate 1); every tool by default.
    pub fn selection(mut self, selection: Selection) -> Self {
        self.parts.selection = selection;
        self
    }

    /// A service the tools find in their context (a site, an index).
    pub fn service<T: Any + Send + Sync>(mut self, service: T) -> Self {
        self.cx = self.cx.with_service(service);
        self
    }

    /// Runs every gate for every tool and keeps the grant.
    pub fn start(self) -> HostRun<'r> {
        let gates = Gates::new(self.registry, self.parts.inputs());
        let resolution = gates.resolve();
        HostRun {
            registry: self.registry,
            cx: self.cx,
            parts: self.parts,
            gates,
            resolution,
        }
    }
}

/// A started run: its grant, and its calls and approvals through the
/// gates and the one approval path ([`Registry::run`]).
pub struct HostRun<'r> {
    registry: &'r Registry,
    cx: ToolContext,
    parts: Parts,
    gates: Gates<'r>,
    resolution: Resolution<'r>,
}

impl<'r> HostRun<'r> {
    /// The grant and why every other tool is left out: store the grant
    /// with the run, log the denials.
    pub fn resolution(&self) -> &Resolution<'r> {
        &self.resolution
    }

    /// The tools the run is offered.
    pub fn grant(&self) -> &Grant {
        &self.resolution.grant
    }

    /// The context the run's tools see: its id, its actor, the services.
    pub fn context(&self) -> &ToolContext {
        &self.cx
    }

    /// The inputs the gates read, for a host that builds its own
    /// [`Gates`] or [`Approval`].
    pub fn inputs(&self) -> RunInputs<'_> {
        self.parts.inputs()
    }

    /// `tool` called with `arguments` through the gates
    /// ([`Gates::call`]): a read tool runs, a write tool proposes.
    pub fn call<'a>(
        &'a self,
        tool: &'a str,
        arguments: Value,
    ) -> impl Future<Output = Result<Outcome, ToolError>> + Send + 'a {
        self.gates
            .call(&self.resolution.grant, tool, arguments, &self.cx)
    }

    /// `approver` approves `proposal` through the one approval path
    /// ([`Approval::approve`]), its decision kept in `store`.
    pub async fn approve(
        &self,
        proposal: &Proposal,
        approver: &Actor,
        store: &dyn ApprovalStore,
    ) -> Result<ToolOutput, ApprovalError> {
        let approval = Approval {
            registry: self.registry,
            run: self.inputs(),
            grant: Some(&self.resolution.grant),
            store,
        };
        approval.approve(proposal, approver, &self.cx).await
    }
}
