//! The cascade: gates 2 to 8 for every registered tool, in the fixed order.
//!
//! What does not depend on the tool is settled once per run: each group's
//! settings once per group (the registry numbers its groups at build), and
//! the per-tool switches and the selection turned into registry positions,
//! followed beside the walk instead of searched per tool. A refusal is
//! recorded as the gate that said no; its [`Denial`](super::Denial) is
//! written out only for the resolution's list or a refused call.

use crate::skills::{Allowance, SkillsVerdicts};
use crate::{DataClass, Effect, Egress, RegisteredTool, Registry, Shipped};

use super::verdicts::{DenialDetails, Refusal, Verdicts, VerdictsBuilder};
use super::{AllowedEffects, RunInputs, Selection, Toggle};

/// The verdict of every registered tool; `skills` is gate 6's word on each,
/// taken so that its allowances move into the grant instead of being
/// copied.
pub(super) fn verdicts<'r>(
    registry: &'r Registry,
    inputs: &RunInputs<'_>,
    skills: SkillsVerdicts,
) -> Verdicts<'r> {
    let tools = registry.tools();
    let groups = registry.groups();
    let group_gates: Vec<GroupGates> = groups
        .first_tools()
        .iter()
        .map(|&first| GroupGates::new(tools[first].declaration().group.as_ref(), inputs))
        .collect();
    let run = RunGates {
        admin: inputs.actor.is_some_and(|actor| actor.admin),
        read_only: inputs.config.effects == AllowedEffects::ReadOnly,
        ceiling: inputs.config.trust_zone,
    };
    // The registry's positions ascend with the names, as the maps' keys do.
    let switches: Vec<(usize, Toggle)> = inputs
        .settings
        .tools
        .iter()
        .filter_map(|(name, settings)| Some((registry.index_of(name)?, settings.state)))
        .collect();
    let selected: Option<Vec<usize>> = match inputs.selection {
        Selection::All => None,
        Selection::Only(names) => Some(
            names
                .iter()
                .filter_map(|name| registry.index_of(name))
                .collect(),
        ),
    };
    let tables = Tables {
        tools,
        group_of: groups.of_tools(),
        group_gates: &group_gates,
        switches: &switches,
        selected: selected.as_deref(),
    };
    // Gate 6 with no opinion says the same as a skill allowing every tool
    // whole; one loop per case rather than a test per tool.
    let verdicts = match skills {
        SkillsVerdicts::NoOpinion => {
            walk(&tables, run, std::iter::repeat_n(NoOpinion, tools.len()))
        }
        SkillsVerdicts::ByPosition(mut allowances) => walk(&tables, run, allowances.iter_mut()),
    };
    let details = DenialDetails {
        group_of: groups.of_tools(),
        group_egress: group_gates.iter().map(|group| group.egress).collect(),
        ceiling: inputs.config.trust_zone,
    };
    verdicts.build(tools, details)
}

/// What the walk reads beside each tool, all in registry order.
struct Tables<'a> {
    tools: &'a [RegisteredTool],
    /// Per tool: the number of its group.
    group_of: &'a [usize],
    /// Per group number: its settings' word.
    group_gates: &'a [GroupGates],
    /// The administrator's switches of registered tools, by ascending
    /// position.
    switches: &'a [(usize, Toggle)],
    /// The positions the run selects, ascending; `None` for every tool.
    selected: Option<&'a [usize]>,
}

/// Gates 2 to 8 for each tool, `skills` giving gate 6's word on each in
/// registry order. The switches and the selection
/// are followed by position beside the walk, so a tool costs one
/// comparison for each, however many there are.
fn walk(
    tables: &Tables<'_>,
    run: RunGates,
    skills: impl Iterator<Item = impl SkillsWord>,
) -> VerdictsBuilder {
    let mut switches = tables.switches.iter().peekable();
    let mut selected = tables.selected.map(|positions| positions.iter().peekable());
    let mut verdicts = VerdictsBuilder::with_capacity(tables.tools.len());
    // Zipped rather than indexed: a bounds check per table per tool was a
    // tenth of the loop.
    let each = tables.tools.iter().zip(tables.group_of).zip(skills);
    for (position, ((tool, &group), skills)) in each.enumerate() {
        let this = ThisTool {
            group: tables.group_gates[group],
            state: switches
                .next_if(|&&(at, _)| at == position)
                .map_or(Toggle::Unset, |&(_, state)| state),
            selected: selected
                .as_mut()
                .is_none_or(|positions| positions.next_if(|&&at| at == position).is_some()),
            allowed: skills.allows(),
        };
        // The allowance is taken only for a tool offered: refused tools,
        // most of a large registry, never move it.
        match refusal(tool, this, run)
            .map_or_else(|| skills.take().ok_or(Refusal::NotAllowedBySkills), Err)
        {
            Ok(allowance) => verdicts.grant(tool.shared_name(), allowance),
            Err(refusal) => verdicts.refuse(refusal),
        }
    }
    verdicts
}

/// What a run's inputs say that holds for every tool.
#[derive(Debug, Clone, Copy)]
struct RunGates {
    /// Gate 3: the run acts for an administrator.
    admin: bool,
    /// Gate 5: the run's configuration allows no writing tool.
    read_only: bool,
    /// Gate 8: the run's trust-zone ceiling.
    ceiling: DataClass,
}

/// What a run's inputs say about one group, looked up once per run.
#[derive(Debug, Clone, Copy)]
struct GroupGates {
    /// Gate 2: switched off.
    disabled: bool,
    /// Gate 4: the network reach granted.
    egress: Egress,
    /// Gate 5: the run's configuration includes it.
    configured: bool,
}

impl GroupGates {
    fn new(group: &str, inputs: &RunInputs<'_>) -> Self {
        let settings = inputs.settings.groups.get(group);
        let groups = &inputs.config.groups;
        GroupGates {
            disabled: settings.is_some_and(|g| g.state == Toggle::Disabled),
            egress: settings.map_or(Egress::None, |g| g.egress),
            configured: groups.is_empty() || groups.contains(group),
        }
    }
}

/// What a run's inputs say about one tool.
struct ThisTool {
    /// Its group's word.
    group: GroupGates,
    /// The administrator's switch for it.
    state: Toggle,
    /// Whether the run's selection includes it.
    selected: bool,
    /// Gate 6: whether the effective skills allow any of it.
    allowed: bool,
}

/// The first gate that refuses `tool`, in the fixed order; `None` when it
/// is offered.
fn refusal(tool: &RegisteredTool, this: ThisTool, run: RunGates) -> Option<Refusal> {
    let declaration = tool.declaration();

    // 2. Enabled: the group first, so no per-tool override can undo it.
    if this.group.disabled {
        return Some(Refusal::GroupDisabled);
    }
    let enabled = match this.state {
        Toggle::Enabled => true,
        Toggle::Disabled => false,
        Toggle::Unset => declaration.shipped == Shipped::Enabled,
    };
    if !enabled {
        return Some(Refusal::ToolDisabled);
    }
    // 3. Admin.
    if declaration.requires_admin && !run.admin {
        return Some(Refusal::AdminOnly);
    }
    // 4. Egress.
    if !this.group.egress.permits(declaration.egress) {
        return Some(Refusal::Egress);
    }
    // 5. Configuration.
    if !this.group.configured {
        return Some(Refusal::GroupNotConfigured);
    }
    if run.read_only && declaration.effect == Effect::Write {
        return Some(Refusal::ReadOnlyRun);
    }
    // 6. Skills.
    if !this.allowed {
        return Some(Refusal::NotAllowedBySkills);
    }
    // 7. Selection.
    if !this.selected {
        return Some(Refusal::NotSelected);
    }
    // 8. Trust zone.
    if declaration.data > run.ceiling {
        return Some(Refusal::TrustZone);
    }
    None
}

/// Gate 6's word on one tool, as the walk reads it.
trait SkillsWord {
    /// Whether the effective skills allow any of the tool.
    fn allows(&self) -> bool;
    /// What they allow, for a tool offered; `None` if nothing.
    fn take(self) -> Option<Allowance>;
}

/// No effective skill declares `allowed-tools`: every tool whole.
#[derive(Clone, Copy)]
struct NoOpinion;

impl SkillsWord for NoOpinion {
    #[inline]
    fn allows(&self) -> bool {
        true
    }
    #[inline]
    fn take(self) -> Option<Allowance> {
        Some(Allowance::Whole)
    }
}

/// The allowance the skills give one tool (`None`: not allowed), taken
/// out of gate 6's table when the tool is offered.
impl SkillsWord for &mut Option<Allowance> {
    #[inline]
    fn allows(&self) -> bool {
        // Sorting and deduplicating cannot empty a list of patterns, so
        // this is gate 6's answer before the allowance is settled.
        match self {
            None => false,
            Some(Allowance::Whole) => true,
            Some(Allowance::Scoped(patterns)) => !patterns.is_empty(),
        }
    }
    /// Scope patterns sorted, each once, so the same skills give the same
    /// bytes.
    #[inline]
    fn take(self) -> Option<Allowance> {
        match Option::take(self)? {
            Allowance::Whole => Some(Allowance::Whole),
            Allowance::Scoped(mut patterns) => {
                patterns.sort();
                patterns.dedup();
                (!patterns.is_empty()).then_some(Allowance::Scoped(patterns))
            }
        }
    }
}
