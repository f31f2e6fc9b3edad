//! The gate cascade read straight from its rules, tool by tool, with no
//! precomputed table, no shared entries and no walk beside the registry:
//! what `Gates::new` + `resolve` must come to, for a differential property.

use std::collections::BTreeMap;

use tool_core::gates::{Allowance, AllowedEffects, Denial, Grant, RunInputs, Selection, Toggle};
use tool_core::skills::{AllowedTools, EffectiveSkills, ScopePattern, ToolTarget};
use tool_core::{Effect, Egress, RegisteredTool, Registry, Shipped};

/// A resolution in plain owned values, comparable across implementations.
#[derive(Debug, PartialEq, Eq)]
pub struct Plain {
    /// Granted name → allowance.
    pub grant: BTreeMap<String, Allowance>,
    /// Refused name and why, in name order.
    pub denials: Vec<(String, Denial)>,
    /// Selected names no tool has, sorted.
    pub unknown: Vec<String>,
}

impl Plain {
    /// The plain form of what the gates resolved.
    pub fn of(grant: &Grant, denials: &[(&str, Denial)], unknown: &[String]) -> Self {
        Plain {
            grant: grant
                .tool_names()
                .map(|name| (name.to_owned(), grant.allowance(name).unwrap().clone()))
                .collect(),
            denials: denials
                .iter()
                .map(|(name, denial)| ((*name).to_owned(), denial.clone()))
                .collect(),
            unknown: unknown.to_vec(),
        }
    }
}

/// Every registered tool through gates 2 to 8, by the rules.
pub fn resolve(registry: &Registry, inputs: &RunInputs<'_>) -> Plain {
    let mut plain = Plain {
        grant: BTreeMap::new(),
        denials: Vec::new(),
        unknown: Vec::new(),
    };
    for tool in registry.tools() {
        match verdict(tool, inputs) {
            Ok(allowance) => {
                plain.grant.insert(tool.name().to_owned(), allowance);
            }
            Err(denial) => plain.denials.push((tool.name().to_owned(), denial)),
        }
    }
    if let Selection::Only(names) = inputs.selection {
        plain.unknown = names
            .iter()
            .filter(|name| registry.get(name).is_none())
            .cloned()
            .collect();
    }
    plain
}

fn verdict(tool: &RegisteredTool, inputs: &RunInputs<'_>) -> Result<Allowance, Denial> {
    let declaration = tool.declaration();
    let group = inputs.settings.groups.get(declaration.group.as_ref());
    if group.is_some_and(|g| g.state == Toggle::Disabled) {
        return Err(Denial::GroupDisabled {
            group: declaration.group.clone(),
        });
    }
    let enabled = match inputs.settings.tools.get(tool.name()).map(|t| t.state) {
        Some(Toggle::Enabled) => true,
        Some(Toggle::Disabled) => false,
        Some(Toggle::Unset) | None => declaration.shipped == Shipped::Enabled,
    };
    if !enabled {
        return Err(Denial::ToolDisabled);
    }
    if declaration.requires_admin && !inputs.actor.is_some_and(|a| a.admin) {
        return Err(Denial::AdminOnly);
    }
    let granted = group.map_or(Egress::None, |g| g.egress);
    if !granted.permits(declaration.egress) {
        return Err(Denial::Egress {
            declared: declaration.egress,
            granted,
        });
    }
    let configured = &inputs.config.groups;
    if !configured.is_empty() && !configured.contains(declaration.group.as_ref()) {
        return Err(Denial::GroupNotConfigured {
            group: declaration.group.clone(),
        });
    }
    if inputs.config.effects == AllowedEffects::ReadOnly && declaration.effect == Effect::Write {
        return Err(Denial::ReadOnlyRun);
    }
    let allowance = skills_allowance(tool, inputs).ok_or(Denial::NotAllowedBySkills)?;
    if let Selection::Only(names) = inputs.selection
        && !names.contains(tool.name())
    {
        return Err(Denial::NotSelected);
    }
    if declaration.data > inputs.config.trust_zone {
        return Err(Denial::TrustZone {
            data: declaration.data,
            ceiling: inputs.config.trust_zone,
        });
    }
    Ok(allowance)
}

/// Gate 6 for one tool: `Some(Whole)` when no effective skill declares
/// `allowed-tools`; otherwise whole if any token names it (or its MCP
/// server) without a scope, else the sorted set of every scope written on
/// it (only for a tool with a scope argument), else nothing.
fn skills_allowance(tool: &RegisteredTool, inputs: &RunInputs<'_>) -> Option<Allowance> {
    let effective = EffectiveSkills::select(inputs.skills, inputs.settings.skill_trust_floor);
    let mut declared = false;
    let mut whole = false;
    let mut scopes: Vec<ScopePattern> = Vec::new();
    for skill in effective.iter() {
        let AllowedTools::Declared(patterns) = &skill.allowed_tools else {
            continue;
        };
        declared = true;
        for pattern in patterns {
            match (&pattern.target, &pattern.scope) {
                (ToolTarget::Tool(name), None) if name == tool.name() => whole = true,
                (ToolTarget::Tool(name), Some(scope))
                    if name == tool.name() && tool.declaration().scope.is_some() =>
                {
                    scopes.push(scope.clone());
                }
                (ToolTarget::McpServer(server), _) if of_server(tool.name(), server) => {
                    whole = true;
                }
                _ => {}
            }
        }
    }
    scopes.sort();
    scopes.dedup();
    match (declared, whole, scopes.is_empty()) {
        (false, _, _) | (true, true, _) => Some(Allowance::Whole),
        (true, false, false) => Some(Allowance::Scoped(scopes)),
        (true, false, true) => None,
    }
}

/// Whether `name` is `mcp__{server}__{tool}` for this server: a server part
/// runs up to the first `__` plus any further underscores, so the tool part
/// does not start with one.
fn of_server(name: &str, server: &str) -> bool {
    !server.contains("__")
        && name
            .strip_prefix("mcp__")
            .and_then(|rest| rest.strip_prefix(server))
            .and_then(|rest| rest.strip_prefix("__"))
            .is_some_and(|tool| !tool.is_empty() && !tool.starts_with('_'))
}
