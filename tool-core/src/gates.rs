//! The gate cascade (DESIGN.md, "The gates"): which tools a run is offered,
//! resolved once into a [`Grant`], and the check every call passes again.
//!
//! A tool is offered only when every gate says yes, in this fixed order; a
//! refusal names the first gate that said no ([`Denial`]):
//!
//! 1. registered;
//! 2. enabled (the group, then the tool);
//! 3. admin;
//! 4. egress;
//! 5. the run's configuration (groups, then effects);
//! 6. the skills' `allowed-tools`;
//! 7. the run's selection;
//! 8. the trust zone (the class of data the tool returns against the
//!    ceiling of the run's model provider).
//!
//! ```
//! use tool_core::gates::{Gates, Grant, HostSettings, RunConfig, Selection, RunInputs};
//! # use tool_core::Registry;
//! # let registry = Registry::builder().build().unwrap();
//! let settings = HostSettings::default();
//! let config = RunConfig::default();
//! let inputs = RunInputs { settings: &settings, actor: None, config: &config, skills: &[], selection: &Selection::All };
//! let resolution = Gates::new(&registry, inputs).resolve();
//! // Store `resolution.grant` with the run; log `resolution.denials`.
//! let bytes = serde_json::to_vec(&resolution.grant).unwrap();
//! let stored: Grant = serde_json::from_slice(&bytes).unwrap();
//! assert_eq!(stored, resolution.grant);
//! ```

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::egress::{EgressGuard, Site};
pub use crate::skills::Allowance;
use crate::skills::{EffectiveSkills, KnownTool, SkillRef, SkillsVerdict, TrustLevel};
use crate::{
    Actor, DataClass, Effect, Egress, Outcome, RegisteredTool, Registry, Shipped, ToolContext,
    ToolError,
};

/// An administrator's switch for a group or a tool. `Unset` keeps the
/// default (a group: enabled; a tool: its shipped state).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Toggle {
    /// Not touched: the default applies.
    #[default]
    Unset,
    /// Switched on.
    Enabled,
    /// Switched off.
    Disabled,
}

/// A host's settings for one group.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GroupSettings {
    /// On or off; a group never toggled is enabled.
    pub state: Toggle,
    /// The network reach granted to the group's tools; `none` unless granted.
    pub egress: Egress,
}

/// A host's settings for one tool.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ToolSettings {
    /// On or off; unset keeps the tool's shipped state. Cannot re-enable a
    /// tool of a disabled group.
    pub state: Toggle,
}

/// What a host configured, filled from its own storage.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HostSettings {
    /// Per-group settings, by group name.
    pub groups: BTreeMap<String, GroupSettings>,
    /// Per-tool settings, by tool name.
    pub tools: BTreeMap<String, ToolSettings>,
    /// The host's own sites; the first is the base for URLs starting with `/`.
    pub sites: Vec<Site>,
    /// Skills trusted less than this are not effective.
    pub skill_trust_floor: TrustLevel,
}

/// Which effects a run's configuration allows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AllowedEffects {
    /// Read and write tools.
    #[default]
    ReadWrite,
    /// Read tools only: no `write` tool is offered.
    ReadOnly,
}

/// A run's configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RunConfig {
    /// The groups the run may use: empty = all; a group that is not
    /// registered yields no tools.
    pub groups: BTreeSet<String>,
    /// The effects the run may use.
    pub effects: AllowedEffects,
    /// The trust-zone ceiling of the run's model provider (gate 8): the
    /// most sensitive class of data the model may be shown. `internal`
    /// unless the host raises it (a local model may see more than a hosted
    /// one), so an unclassified tool, which counts as `personal`, is not
    /// offered by default.
    pub trust_zone: DataClass,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            groups: BTreeSet::new(),
            effects: AllowedEffects::default(),
            trust_zone: DataClass::Internal,
        }
    }
}

/// The run's pick of tools.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Selection {
    /// None given: every tool that passed the other gates.
    #[default]
    All,
    /// Only these names; an empty set offers no tools.
    Only(BTreeSet<String>),
}

/// Everything the gates look at for one run.
#[derive(Debug, Clone, Copy)]
pub struct RunInputs<'a> {
    /// The host's settings.
    pub settings: &'a HostSettings,
    /// Who the run acts for; `None` is never an administrator.
    pub actor: Option<&'a Actor>,
    /// The run's configuration.
    pub config: &'a RunConfig,
    /// The run's skills: the configuration's plus those forced onto the run.
    pub skills: &'a [SkillRef],
    /// The run's selection.
    pub selection: &'a Selection,
}

/// Why a tool is not offered, or a call refused: the first gate that said
/// no. For the host's logs and an administrator's view only; the model is
/// told "not available", the same as for a tool that does not exist.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, thiserror::Error)]
#[serde(tag = "gate", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Denial {
    /// Gate 1: no tool has this name.
    #[error("no tool with this name is registered")]
    NotRegistered,
    /// Gate 2: the tool's group is disabled; no per-tool override undoes it.
    #[error("its group `{group}` is disabled")]
    GroupDisabled {
        /// The group.
        group: Cow<'static, str>,
    },
    /// Gate 2: the tool is disabled (shipped so, or by an administrator).
    #[error("the tool is disabled")]
    ToolDisabled,
    /// Gate 3: the tool requires an administrator.
    #[error("the tool is for administrators and the actor is not one")]
    AdminOnly,
    /// Gate 4: the tool needs more network reach than its group is granted.
    #[error("the tool needs egress `{declared}` but its group is granted `{granted}`")]
    Egress {
        /// What the tool declares.
        declared: Egress,
        /// What its group is granted.
        granted: Egress,
    },
    /// Gate 5: the run's configuration does not include the tool's group.
    #[error("the run's configuration does not include group `{group}`")]
    GroupNotConfigured {
        /// The group.
        group: Cow<'static, str>,
    },
    /// Gate 5: the run's configuration is read-only and the tool writes.
    #[error("the run's configuration is read-only")]
    ReadOnlyRun,
    /// Gate 6: effective skills declare `allowed-tools` and none allows it.
    #[error("no effective skill's `allowed-tools` allows it")]
    NotAllowedBySkills,
    /// Gate 7: the run's selection leaves it out.
    #[error("the run's selection leaves it out")]
    NotSelected,
    /// Gate 8: the tool returns data of a class above the run's trust-zone
    /// ceiling.
    #[error("the tool returns {data} data, above the run's trust-zone ceiling `{ceiling}`")]
    TrustZone {
        /// What the tool declares (or `personal` when it declares none).
        data: DataClass,
        /// The run's ceiling.
        ceiling: DataClass,
    },
    /// At call time: the run's grant (resolved when it started) does not
    /// hold the tool.
    #[error("the run's grant does not hold it")]
    NotInGrant,
    /// At call time: the tool is granted only for some values of its scope
    /// argument, and this call's value is not one of them.
    #[error("the call's scope argument is outside every scope granted for it")]
    OutOfScope,
    /// At call time: the call's context acts for someone other than the
    /// actor the gates were built for, so the gates' verdicts are not about
    /// this caller. A context without an actor is accepted: no actor is
    /// never an administrator, so it can only narrow what a tool does.
    #[error("the call's context acts for another actor than the run")]
    OtherActor,
}

/// The gate a [`Denial`] comes from. Its `Display` and serialized form are
/// one word each (`registered`, `enabled`, `admin`, `egress`,
/// `configuration`, `skills`, `selection`, `trust_zone`, `grant`, `scope`,
/// `actor`),
/// stable, for logs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Gate {
    /// Gate 1: a tool has the name.
    Registered,
    /// Gate 2: the group and the tool are enabled.
    Enabled,
    /// Gate 3: the tool is not for administrators only, or the actor is one.
    Admin,
    /// Gate 4: the tool's network reach is within its group's.
    Egress,
    /// Gate 5: the run's configuration (groups, effects).
    Configuration,
    /// Gate 6: the effective skills' `allowed-tools`.
    Skills,
    /// Gate 7: the run's selection.
    Selection,
    /// Gate 8: the data class against the run's trust-zone ceiling.
    TrustZone,
    /// At call time: the run's grant holds the tool.
    Grant,
    /// At call time: the call's scope argument is within what is granted.
    Scope,
    /// At call time: the call's context acts for the run's actor.
    Actor,
}

impl fmt::Display for Gate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Gate::Registered => "registered",
            Gate::Enabled => "enabled",
            Gate::Admin => "admin",
            Gate::Egress => "egress",
            Gate::Configuration => "configuration",
            Gate::Skills => "skills",
            Gate::Selection => "selection",
            Gate::TrustZone => "trust_zone",
            Gate::Grant => "grant",
            Gate::Scope => "scope",
            Gate::Actor => "actor",
        })
    }
}

impl Denial {
    /// The gate that said no.
    pub fn gate(&self) -> Gate {
        match self {
            Denial::NotRegistered => Gate::Registered,
            Denial::GroupDisabled { .. } | Denial::ToolDisabled => Gate::Enabled,
            Denial::AdminOnly => Gate::Admin,
            Denial::Egress { .. } => Gate::Egress,
            Denial::GroupNotConfigured { .. } | Denial::ReadOnlyRun => Gate::Configuration,
            Denial::NotAllowedBySkills => Gate::Skills,
            Denial::NotSelected => Gate::Selection,
            Denial::TrustZone { .. } => Gate::TrustZone,
            Denial::NotInGrant => Gate::Grant,
            Denial::OutOfScope => Gate::Scope,
            Denial::OtherActor => Gate::Actor,
        }
    }
}

/// The version of the serialized [`Grant`] format this build writes and
/// reads.
pub const GRANT_FORMAT: u32 = 1;

/// The tools a run may use, resolved once when it starts and stored with
/// it. Same inputs, same bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[must_use = "a grant limits a run only when the run uses it"]
pub struct Grant {
    format: u32,
    tools: GrantedTools,
}

/// The granted tools, sorted by name without duplicates, serialized as a
/// map. A sorted vector rather than a map: a grant is built in the
/// registry's (sorted) order and then only looked up, so this skips the
/// tree's inserts, which dominated resolution for large registries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct GrantedTools(Vec<(Arc<str>, Allowance)>);

impl GrantedTools {
    fn get(&self, name: &str) -> Option<&Allowance> {
        self.0
            .binary_search_by(|(granted, _)| granted.as_ref().cmp(name))
            .ok()
            .map(|i| &self.0[i].1)
    }

    fn contains_key(&self, name: &str) -> bool {
        self.get(name).is_some()
    }
}

impl Serialize for GrantedTools {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(name, allowance)| (name, allowance)))
    }
}

impl<'de> Deserialize<'de> for GrantedTools {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // Through a map: sorted, and a name given twice cannot widen anything.
        let map = BTreeMap::<Arc<str>, Allowance>::deserialize(deserializer)?;
        Ok(GrantedTools(map.into_iter().collect()))
    }
}

impl<'de> Deserialize<'de> for Grant {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Stored {
            format: u32,
            tools: GrantedTools,
        }
        let stored = Stored::deserialize(deserializer)?;
        // A grant from a newer format may mean something this build cannot
        // read; refusing it is safer than guessing. The host then decides
        // (for instance, to end the run), never silently widens it.
        check_format("grant", stored.format, GRANT_FORMAT)?;
        Ok(Grant {
            format: stored.format,
            tools: stored.tools,
        })
    }
}

/// Refuses a stored value of another format version than this build
/// writes: guessing at a newer format's meaning could widen what it grants.
pub(crate) fn check_format<E: serde::de::Error>(
    what: &str,
    found: u32,
    supported: u32,
) -> Result<(), E> {
    if found == supported {
        Ok(())
    } else {
        Err(E::custom(format!(
            "{what} format {found} is not supported (this build reads format {supported})"
        )))
    }
}

impl Grant {
    /// A grant of no tools: a plain completion.
    pub fn empty() -> Self {
        Grant {
            format: GRANT_FORMAT,
            tools: GrantedTools::default(),
        }
    }

    /// The granted tool names, sorted.
    pub fn tool_names(&self) -> impl Iterator<Item = &str> {
        self.tools.0.iter().map(|(name, _)| name.as_ref())
    }

    /// How much of `tool` is granted, if any.
    pub fn allowance(&self, tool: &str) -> Option<&Allowance> {
        self.tools.get(tool)
    }

    /// Whether no tool is granted.
    pub fn is_empty(&self) -> bool {
        self.tools.0.is_empty()
    }

    /// How many tools are granted.
    pub fn len(&self) -> usize {
        self.tools.0.len()
    }

    /// The grant a waiting run continues with: `stored ∩ now`, or `now` for
    /// a run stored without a grant. A change while the run waited can take
    /// a tool away, never add one.
    pub fn resume(stored: Option<&Grant>, now: &Grant) -> Grant {
        let Some(stored) = stored else {
            return now.clone();
        };
        let tools = stored
            .tools
            .0
            .iter()
            .filter_map(|(name, allowance)| {
                let current = now.tools.get(name)?;
                Some((Arc::clone(name), allowance.intersect(current)?))
            })
            .collect();
        Grant {
            format: GRANT_FORMAT,
            tools: GrantedTools(tools),
        }
    }
}

/// What [`Gates::resolve`] found: the grant, and for every registered tool
/// left out (and every unknown name the run asked for) the first gate that
/// refused it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use = "the grant must be stored with the run and the denials logged"]
pub struct Resolution<'r> {
    /// The tools the run is offered.
    pub grant: Grant,
    /// Why each registered tool left out is not offered, in name order.
    pub denials: Vec<(&'r str, Denial)>,
    /// Names the run selected that no tool has (gate 1), sorted.
    pub unknown: Vec<String>,
}

static NOT_REGISTERED: Denial = Denial::NotRegistered;

impl Resolution<'_> {
    /// Why `tool` is not offered, or `None` when it is.
    pub fn denial(&self, tool: &str) -> Option<&Denial> {
        if let Ok(i) = self.denials.binary_search_by(|(name, _)| (*name).cmp(tool)) {
            return Some(&self.denials[i].1);
        }
        let offered = self.grant.tools.contains_key(tool);
        (!offered && self.unknown.iter().any(|u| u == tool)).then_some(&NOT_REGISTERED)
    }
}

/// The gates as they are now, for one run. Build it when the run starts to
/// resolve the grant, and again (with the settings as they are then) to
/// check calls: a tool disabled mid-run is refused at its next call.
pub struct Gates<'r> {
    registry: &'r Registry,
    /// One verdict per registered tool, in registry order.
    verdicts: Vec<Result<Allowance, Denial>>,
    unknown_selected: Vec<String>,
    /// Guards of the groups whose tools may reach the network.
    guards: BTreeMap<String, Arc<EgressGuard>>,
    /// The actor the verdicts were reached for.
    actor: Option<Actor>,
}

impl<'r> Gates<'r> {
    /// Runs every gate for every registered tool.
    pub fn new(registry: &'r Registry, inputs: RunInputs<'_>) -> Self {
        let known: Vec<KnownTool<'_>> = registry
            .tools()
            .iter()
            .map(|tool| KnownTool {
                name: tool.name(),
                has_scope: tool.declaration().scope.is_some(),
            })
            .collect();
        // The registry is sorted by name, as the lookups need.
        let allowances = EffectiveSkills::select(inputs.skills, inputs.settings.skill_trust_floor)
            .allowances(&known, |name| registry.index_of(name));
        let verdicts = registry
            .tools()
            .iter()
            .enumerate()
            .map(|(i, tool)| verdict(tool, &inputs, allowances.verdict(i)))
            .collect();
        let unknown_selected = match inputs.selection {
            Selection::All => Vec::new(),
            Selection::Only(names) => names
                .iter()
                .filter(|name| registry.get(name).is_none())
                .cloned()
                .collect(),
        };
        let guards = inputs
            .settings
            .groups
            .iter()
            .filter(|(_, group)| group.egress == Egress::OwnSite)
            .map(|(name, group)| {
                let guard = EgressGuard::new(group.egress, inputs.settings.sites.clone());
                (name.clone(), Arc::new(guard))
            })
            .collect();
        Gates {
            registry,
            verdicts,
            unknown_selected,
            guards,
            actor: inputs.actor.cloned(),
        }
    }

    /// The grant, and why every other tool is left out.
    pub fn resolve(&self) -> Resolution<'r> {
        let mut tools = Vec::new();
        let mut denials = Vec::new();
        // Registry order is name order, so both lists come out sorted.
        for (tool, verdict) in self.registry.tools().iter().zip(&self.verdicts) {
            match verdict {
                Ok(allowance) => tools.push((Arc::clone(tool.shared_name()), allowance.clone())),
                Err(denial) => denials.push((tool.name(), denial.clone())),
            }
        }
        for name in &self.unknown_selected {
            tracing::warn!(target: "tool_core::gate", tool = %name, "the run selects a tool that is not registered");
        }
        Resolution {
            grant: Grant {
                format: GRANT_FORMAT,
                tools: GrantedTools(tools),
            },
            denials,
            unknown: self.unknown_selected.clone(),
        }
    }

    /// Why `tool` would not be offered now, if it would not.
    pub fn denial(&self, tool: &str) -> Option<Denial> {
        match self.registry.index_of(tool) {
            None => Some(Denial::NotRegistered),
            Some(i) => self.verdicts[i].as_ref().err().cloned(),
        }
    }

    /// Checks one call against the run's grant and the gates as they are
    /// now, before the arguments are parsed, refusing a context that acts
    /// for another actor than the gates were built for. Every decision is a `tracing`
    /// event (target `tool_core::gate`; fields run, tool, decision, gate).
    pub fn check_call(
        &self,
        grant: &Grant,
        tool: &str,
        arguments: &Value,
        cx: &ToolContext,
    ) -> Result<&'r RegisteredTool, Denial> {
        let decision = match cx.actor() {
            Some(actor) if self.actor.as_ref() != Some(actor) => Err(Denial::OtherActor),
            _ => self.decide(grant, tool, arguments),
        };
        match &decision {
            Ok(_) => tracing::info!(
                target: "tool_core::gate",
                run = %cx.run(),
                tool,
                decision = "allow",
                gate = "none",
            ),
            Err(denial) => tracing::info!(
                target: "tool_core::gate",
                run = %cx.run(),
                tool,
                decision = "deny",
                gate = %denial.gate(),
            ),
        }
        decision
    }

    fn decide(
        &self,
        grant: &Grant,
        tool: &str,
        arguments: &Value,
    ) -> Result<&'r RegisteredTool, Denial> {
        let index = self.registry.index_of(tool).ok_or(Denial::NotRegistered)?;
        let now = self.verdicts[index].as_ref().map_err(Clone::clone)?;
        let granted = grant.tools.get(tool).ok_or(Denial::NotInGrant)?;
        let registered = &self.registry.tools()[index];
        if !matches!((granted, now), (Allowance::Whole, Allowance::Whole)) {
            let scope = registered.declaration().scope.as_ref().and_then(|scope| {
                let value = arguments.get(scope.property.as_ref())?.as_str()?;
                Some((scope.kind, value))
            });
            if !(granted.admits(scope) && now.admits(scope)) {
                return Err(Denial::OutOfScope);
            }
        }
        Ok(registered)
    }

    /// A gated call: [`check_call`](Self::check_call), then the checked
    /// call of [`Registry::call`]. A refusal reads to the model exactly like
    /// a call to a tool that does not exist.
    pub async fn call(
        &self,
        grant: &Grant,
        tool: &str,
        arguments: Value,
        cx: &ToolContext,
    ) -> Result<Outcome, ToolError> {
        let registered = self
            .check_call(grant, tool, &arguments, cx)
            .map_err(|denial| ToolError::Refused {
                tool: tool.to_owned(),
                denial,
            })?;
        let guard = self.guards.get(registered.declaration().group.as_ref());
        match (registered.declaration().egress, guard) {
            (Egress::OwnSite, Some(guard)) => {
                let cx = cx.with_egress(Arc::clone(guard));
                self.registry
                    .call_registered(registered, arguments, &cx)
                    .await
            }
            _ => {
                self.registry
                    .call_registered(registered, arguments, cx)
                    .await
            }
        }
    }
}

impl fmt::Debug for Gates<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Gates")
            .field("tools", &self.registry.len())
            .field(
                "offered",
                &self.verdicts.iter().filter(|v| v.is_ok()).count(),
            )
            .finish_non_exhaustive()
    }
}

/// The cascade for one tool, in the fixed order.
///
/// `skills` is gate 6's word on this tool.
fn verdict(
    tool: &RegisteredTool,
    inputs: &RunInputs<'_>,
    skills: SkillsVerdict<'_>,
) -> Result<Allowance, Denial> {
    let declaration = tool.declaration();
    let name = declaration.name.as_ref();
    let group = declaration.group.as_ref();
    let group_settings = inputs.settings.groups.get(group);

    // 2. Enabled: the group first, so no per-tool override can undo it.
    if group_settings.is_some_and(|g| g.state == Toggle::Disabled) {
        return Err(Denial::GroupDisabled {
            group: declaration.group.clone(),
        });
    }
    let tool_state = inputs
        .settings
        .tools
        .get(name)
        .map_or(Toggle::Unset, |t| t.state);
    let enabled = match tool_state {
        Toggle::Enabled => true,
        Toggle::Disabled => false,
        Toggle::Unset => declaration.shipped == Shipped::Enabled,
    };
    if !enabled {
        return Err(Denial::ToolDisabled);
    }
    // 3. Admin.
    if declaration.requires_admin && !inputs.actor.is_some_and(|a| a.admin) {
        return Err(Denial::AdminOnly);
    }
    // 4. Egress.
    let granted = group_settings.map_or(Egress::None, |g| g.egress);
    if !granted.permits(declaration.egress) {
        return Err(Denial::Egress {
            declared: declaration.egress,
            granted,
        });
    }
    // 5. Configuration.
    if !inputs.config.groups.is_empty() && !inputs.config.groups.contains(group) {
        return Err(Denial::GroupNotConfigured {
            group: declaration.group.clone(),
        });
    }
    if inputs.config.effects == AllowedEffects::ReadOnly && declaration.effect == Effect::Write {
        return Err(Denial::ReadOnlyRun);
    }
    // 6. Skills.
    let allowance = match skills {
        SkillsVerdict::NoOpinion => Allowance::Whole,
        SkillsVerdict::NotAllowed => return Err(Denial::NotAllowedBySkills),
        SkillsVerdict::Allowed(Allowance::Whole) => Allowance::Whole,
        SkillsVerdict::Allowed(Allowance::Scoped(patterns)) => {
            let mut patterns = patterns.clone();
            patterns.sort();
            patterns.dedup();
            if patterns.is_empty() {
                return Err(Denial::NotAllowedBySkills);
            }
            Allowance::Scoped(patterns)
        }
    };
    // 7. Selection.
    if let Selection::Only(names) = inputs.selection
        && !names.contains(name)
    {
        return Err(Denial::NotSelected);
    }
    // 8. Trust zone.
    if declaration.data > inputs.config.trust_zone {
        return Err(Denial::TrustZone {
            data: declaration.data,
            ceiling: inputs.config.trust_zone,
        });
    }
    Ok(allowance)
}
