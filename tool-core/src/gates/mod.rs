//! The gate cascade: which tools a run is offered,
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
//!    ceiling of the run's model provider);
//! 9. exposure: what the run has already read ([`Exposure`], carried by
//!    the call's context) against the host's [`ExposurePolicy`]. Unlike the
//!    eight, it changes during a run: it is checked at every call and when
//!    each round's offer is made ([`Gates::offer`]), never folded into the
//!    grant.
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

mod cascade;
mod denial;
mod exposure;
mod grant;
mod settings;
mod verdicts;

use std::collections::BTreeMap;
use std::fmt;
use std::future::{Future, ready};
use std::time::Instant;

use serde_json::Value;

use crate::calls::{DecisionRecord, GateDecision, OutcomeKind};
use crate::context::EgressSlot;
use crate::either::Either;
use crate::exposure::Exposure;
use crate::redact::redact_json;
use crate::registry::Admitted;
use crate::skills::{AllowedTools, EffectiveSkills, allowances};
use crate::{Actor, Egress, Outcome, RegisteredTool, Registry, ToolContext, ToolError};

pub use crate::skills::Allowance;
pub use denial::{Denial, Gate};
pub use exposure::{Approvers, ExposurePolicy, ExposureRule, GroupExposure};
pub use grant::{GRANT_FORMAT, Grant};
pub use settings::{
    AllowedEffects, GroupSettings, HostSettings, Required, RunConfig, RunInputs, Selection, Toggle,
    ToolSettings,
};

use exposure::ExposureGate;
use verdicts::Verdicts;

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
    /// Every registered tool's verdict.
    verdicts: Verdicts<'r>,
    unknown_selected: Vec<String>,
    /// Guards of the groups whose tools may reach the network.
    guards: BTreeMap<String, EgressSlot>,
    /// The actor the verdicts were reached for.
    actor: Option<Actor>,
    /// The effective skills that declare `allowed-tools`: the allow-lists
    /// gate 6 consults, named in decision records.
    consulted_skills: Vec<String>,
    /// Gate 9's policy and exempt groups.
    exposure: ExposureGate,
}

impl<'r> Gates<'r> {
    /// Runs every gate for every registered tool.
    pub fn new(registry: &'r Registry, inputs: RunInputs<'_>) -> Self {
        let effective = EffectiveSkills::select(inputs.skills, inputs.settings.skill_trust_floor);
        let mut consulted_skills = Vec::with_capacity(inputs.skills.len());
        consulted_skills.extend(
            effective
                .iter()
                .filter(|skill| matches!(skill.allowed_tools, AllowedTools::Declared(_)))
                .map(|skill| skill.id.clone()),
        );
        // The registry is sorted by name, as the lookups need.
        let skills = allowances(&effective, registry.tools(), |name| registry.index_of(name));
        let verdicts = cascade::verdicts(registry, &inputs, skills);
        let unknown_selected = match inputs.selection {
            Selection::All => Vec::new(),
            Selection::Only(names) => names
                .iter()
                .filter(|name| registry.get(name).is_none())
                .cloned()
                .collect(),
        };
        Gates {
            registry,
            verdicts,
            unknown_selected,
            guards: egress_guards(inputs.settings),
            actor: inputs.actor.cloned(),
            consulted_skills,
            exposure: ExposureGate::new(registry, inputs.settings),
        }
    }

    /// The grant, and why every other tool is left out.
    pub fn resolve(&self) -> Resolution<'r> {
        for name in &self.unknown_selected {
            tracing::warn!(target: "tool_core::gate", tool = %name, "the run selects a tool that is not registered");
        }
        Resolution {
            grant: Grant {
                format: crate::stored_format::Format::CURRENT,
                tools: self.verdicts.granted(),
            },
            denials: self.verdicts.denied(),
            unknown: self.unknown_selected.clone(),
        }
    }

    /// The effective skills whose `allowed-tools` gate 6 consults.
    pub(crate) fn consulted_skills(&self) -> &[String] {
        &self.consulted_skills
    }

    /// Why `tool` would not be offered now, if it would not.
    pub fn denial(&self, tool: &str) -> Option<Denial> {
        match self.registry.index_of(tool) {
            None => Some(Denial::NotRegistered),
            Some(i) => self
                .verdicts
                .get(i)
                .err()
                .map(|refusal| self.verdicts.denial_of(i, refusal)),
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
            _ => self.decide(grant, tool, arguments, cx.exposure()),
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
        exposure: Option<&Exposure>,
    ) -> Result<&'r RegisteredTool, Denial> {
        let index = self.registry.index_of(tool).ok_or(Denial::NotRegistered)?;
        let now = self
            .verdicts
            .get(index)
            .map_err(|refusal| self.verdicts.denial_of(index, refusal))?;
        let granted = grant
            .tools
            .get_at(self.registry, index, tool)
            .ok_or(Denial::NotInGrant)?;
        let registered = &self.registry.tools()[index];
        if !matches!((granted, now), (Allowance::Whole, Allowance::Whole)) {
            let scope = registered.declaration().scope.as_ref().and_then(|scope| {
                let value = scope_argument(arguments, &scope.property)?;
                Some((scope.kind, value))
            });
            // A grant resolved from the same skills holds the very patterns
            // the gates find now: one match then answers for both. A grant
            // these gates resolved shares their verdicts, so the same
            // address answers before the patterns are compared.
            let same = std::ptr::eq(granted, now) || granted == now;
            if !(granted.admits(scope) && (same || now.admits(scope))) {
                return Err(Denial::OutOfScope);
            }
        }
        // 9. Exposure, last: it is the only gate that reads what the run
        // has done, and the cheapest to skip (nothing read, no egress).
        if let Some(exposure) = exposure
            && let Some(denial) = self.exposure.denial(
                registered.declaration().egress,
                self.registry.groups().of_tools()[index],
                exposure,
            )
        {
            return Err(denial);
        }
        Ok(registered)
    }

    /// Gate 9 for `tool` alone: why a run exposed to `exposure` may not
    /// call it now, if it may not (the other gates aside).
    pub fn exposure_denial(&self, tool: &str, exposure: &Exposure) -> Option<Denial> {
        let index = self.registry.index_of(tool)?;
        let registered = &self.registry.tools()[index];
        self.exposure.denial(
            registered.declaration().egress,
            self.registry.groups().of_tools()[index],
            exposure,
        )
    }

    /// What of `grant` a run exposed to `exposure` is offered this round:
    /// `None` when gate 9 takes nothing away (the grant as it is), else the
    /// grant without the tools it takes away, each with its denial.
    pub fn offer(
        &self,
        grant: &Grant,
        exposure: &Exposure,
    ) -> Option<(Grant, Vec<(String, Denial)>)> {
        if exposure.is_empty() {
            return None;
        }
        let mut withdrawn = Vec::new();
        let kept: Vec<_> = grant
            .tools
            .entries()
            .iter()
            .filter(|(name, _)| match self.exposure_denial(name, exposure) {
                Some(denial) => {
                    withdrawn.push((name.to_string(), denial));
                    false
                }
                None => true,
            })
            .cloned()
            .collect();
        if withdrawn.is_empty() {
            return None;
        }
        let narrowed = Grant {
            format: crate::stored_format::Format::CURRENT,
            tools: grant::GrantedTools::new(kept),
        };
        Some((narrowed, withdrawn))
    }

    /// A gated call: [`check_call`](Self::check_call), then the checked
    /// call of [`Registry::call_ungated`]. A refusal reads to the model exactly like
    /// a call to a tool that does not exist.
    ///
    /// Ends with one [`DecisionRecord`] to the context's sink and the
    /// `tool_core::decision` target ([`calls`](crate::calls)).
    ///
    /// Without a sink, the check runs when `call` is called and the tool
    /// when the returned future is first polled (the gates and the grant
    /// are borrowed, so the answer cannot change in between).
    pub fn call<'a>(
        &'a self,
        grant: &'a Grant,
        tool: &'a str,
        arguments: Value,
        cx: &'a ToolContext,
    ) -> impl Future<Output = Result<Outcome, ToolError>> + Send + 'a {
        // Plain functions around the registry's call future rather than
        // `async fn`s: without a listener the gated call is the registry's
        // future and nothing more to build and move.
        if DecisionRecord::wanted(cx) {
            // Boxed: a recorded call pays for redaction anyway, and the
            // unrecorded one should not move the recording's state.
            Either::left(Box::pin(self.recorded_call(grant, tool, arguments, cx)))
        } else {
            Either::right(self.checked_call(grant, tool, arguments, cx))
        }
    }

    async fn recorded_call(
        &self,
        grant: &Grant,
        tool: &str,
        arguments: Value,
        cx: &ToolContext,
    ) -> Result<Outcome, ToolError> {
        let started = Instant::now();
        let redacted = redact_json(&arguments);
        let registered = self.registry.get(tool);
        let outcome = self.checked_call(grant, tool, arguments, cx).await;
        let decision = match &outcome {
            Err(ToolError::Refused { denial, .. }) => GateDecision::Refused {
                gate: denial.gate(),
                rule: denial.clone(),
            },
            _ => GateDecision::Allowed {
                scoped: matches!(grant.tools.get(tool), Some(Allowance::Scoped(_))),
            },
        };
        DecisionRecord {
            run: cx.run().clone(),
            actor: cx.actor().map(|actor| actor.id.clone()),
            approver: None,
            tool: tool.to_owned(),
            definition: registered.map(RegisteredTool::definition_hash),
            arguments: redacted,
            decision,
            skills: self.consulted_skills.clone(),
            duration: started.elapsed(),
            outcome: OutcomeKind::of(&outcome),
            carries_authored: crate::exposure::carries_authored(&outcome),
        }
        .emit(cx);
        outcome
    }

    /// The gates' check, at once, then the registry's call future.
    fn checked_call<'a>(
        &'a self,
        grant: &Grant,
        tool: &str,
        arguments: Value,
        cx: &'a ToolContext,
    ) -> impl Future<Output = Result<Outcome, ToolError>> + Send + 'a {
        match self.check_call(grant, tool, &arguments, cx) {
            Ok(registered) => {
                let declaration = registered.declaration();
                let admitted = Admitted {
                    egress: match declaration.egress {
                        Egress::OwnSite => self.guards.get(declaration.group.as_ref()),
                        _ => None,
                    },
                    // Only a write after untrusted content: its proposal
                    // needs another approver. Boxed: rare, and inline it
                    // would grow every call's future.
                    held: cx
                        .exposure()
                        .and_then(|exposure| self.hold(registered, exposure))
                        .map(Box::new),
                };
                Either::left(
                    self.registry
                        .call_registered(registered, arguments, cx, admitted),
                )
            }
            Err(denial) => Either::right(ready(Err(ToolError::Refused {
                tool: tool.to_owned(),
                denial,
            }))),
        }
    }
}

impl Gates<'_> {
    /// The call that makes a proposal of `tool` need another approver.
    fn hold(
        &self,
        tool: &RegisteredTool,
        exposure: &Exposure,
    ) -> Option<crate::exposure::RaisedBy> {
        // Reads, nearly every call, stop here.
        if tool.declaration().effect != crate::Effect::Write {
            return None;
        }
        let index = self.registry.index_of(&tool.declaration().name)?;
        self.exposure.hold(
            tool.declaration().effect,
            self.registry.groups().of_tools()[index],
            exposure,
        )
    }
}

/// The string value of the scope's argument, if the call has one.
///
/// Argument objects hold a handful of members, so they are walked rather
/// than searched: a key of another length costs one comparison of
/// lengths, where the map's ordered search compares bytes (`memcmp`) with
/// every key it passes.
fn scope_argument<'v>(arguments: &'v Value, property: &str) -> Option<&'v str> {
    const WALKED: usize = 16;
    let members = arguments.as_object()?;
    let value = if members.len() <= WALKED {
        members
            .iter()
            .find_map(|(key, value)| (key == property).then_some(value))?
    } else {
        members.get(property)?
    };
    value.as_str()
}

/// The guard of each group granted `own_site`, over the host's sites.
#[cfg(feature = "egress")]
fn egress_guards(settings: &HostSettings) -> BTreeMap<String, EgressSlot> {
    settings
        .groups
        .iter()
        .filter(|(_, group)| group.egress == Egress::OwnSite)
        .map(|(name, group)| {
            let guard = crate::egress::EgressGuard::new(group.egress, settings.sites.clone());
            (name.clone(), std::sync::Arc::new(guard))
        })
        .collect()
}

/// Without the `egress` feature there are no sites and no guards: a tool
/// of a group granted `own_site` still passes the egress gate (as it does
/// when a host configured no site) but nothing in the build can reach the
/// network through a guard.
#[cfg(not(feature = "egress"))]
fn egress_guards(_settings: &HostSettings) -> BTreeMap<String, EgressSlot> {
    BTreeMap::new()
}

impl fmt::Debug for Gates<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Gates")
            .field("tools", &self.registry.len())
            .field("offered", &self.verdicts.offered())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::scope_argument;
    use serde_json::{Map, Value, json};

    #[test]
    fn the_scope_argument_is_found_walked_or_searched() {
        let small = json!({"limit": 40, "numbered": true, "path": "src/lib.rs"});
        assert_eq!(scope_argument(&small, "path"), Some("src/lib.rs"));
        assert_eq!(scope_argument(&small, "pat"), None);
        assert_eq!(scope_argument(&small, "paths"), None);

        // Past the walked size the map's own search answers the same.
        let mut members: Map<String, Value> =
            (0..40).map(|i| (format!("k{i:02}"), json!(i))).collect();
        members.insert("path".to_owned(), json!("docs/**"));
        let large = Value::Object(members);
        assert_eq!(scope_argument(&large, "path"), Some("docs/**"));
        assert_eq!(scope_argument(&large, "k99"), None);

        // Not a string, not an object: no scope value, so a scoped grant
        // admits nothing.
        assert_eq!(scope_argument(&json!({"path": 7}), "path"), None);
        assert_eq!(scope_argument(&json!(["path"]), "path"), None);
        assert_eq!(scope_argument(&json!("path"), "path"), None);
    }
}
