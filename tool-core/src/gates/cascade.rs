//! The cascade: gates 2 to 8 for every registered tool, in the fixed order.
//!
//! What does not depend on the tool is settled once per run: each group's
//! settings once per group (the registry numbers its groups at build), and
//! the per-tool switches and the selection by walking them beside the
//! registry, both being sorted by name, instead of searching them per tool.

use crate::skills::{Allowance, SkillsVerdict, SkillsVerdicts};
use crate::{Effect, Egress, RegisteredTool, Registry, Shipped};

use super::verdicts::{Verdicts, VerdictsBuilder};
use super::{AllowedEffects, Denial, RunInputs, Selection, Toggle};

/// The verdict of every registered tool; `skills` is gate 6's word on each.
pub(super) fn verdicts<'r>(
    registry: &'r Registry,
    inputs: &RunInputs<'_>,
    skills: &SkillsVerdicts,
) -> Verdicts<'r> {
    let tools = registry.tools();
    let groups = registry.groups();
    let group_gates: Vec<GroupGates> = groups
        .first_tools()
        .iter()
        .map(|&first| GroupGates::new(tools[first].declaration().group.as_ref(), inputs))
        .collect();
    let mut switches = Sorted::new(
        inputs
            .settings
            .tools
            .iter()
            .map(|(name, settings)| (name.as_str(), settings.state)),
    );
    let mut selected = match inputs.selection {
        Selection::All => None,
        Selection::Only(names) => Some(Sorted::new(names.iter().map(|name| (name.as_str(), ())))),
    };
    let mut verdicts = VerdictsBuilder::with_capacity(tools.len());
    // Zipped rather than indexed: a bounds check per table per tool was a
    // tenth of the loop.
    let each = tools
        .iter()
        .zip(groups.of_tools())
        .zip(skills.each(tools.len()));
    for ((tool, &group), skills) in each {
        let this = ThisTool {
            group: group_gates[group],
            state: switches.find(tool.name()).unwrap_or(Toggle::Unset),
            selected: selected
                .as_mut()
                .is_none_or(|names| names.find(tool.name()).is_some()),
        };
        match verdict(tool, this, inputs, skills) {
            Ok(allowance) => verdicts.grant(tool.shared_name(), allowance),
            Err(denial) => verdicts.deny(tool.name(), denial),
        }
    }
    verdicts.build()
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

/// What a run's inputs say about one tool besides gate 6.
struct ThisTool {
    /// Its group's word.
    group: GroupGates,
    /// The administrator's switch for it.
    state: Toggle,
    /// Whether the run's selection includes it.
    selected: bool,
}

/// The cascade for one tool, in the fixed order.
fn verdict(
    tool: &RegisteredTool,
    this: ThisTool,
    inputs: &RunInputs<'_>,
    skills: SkillsVerdict<'_>,
) -> Result<Allowance, Denial> {
    let declaration = tool.declaration();

    // 2. Enabled: the group first, so no per-tool override can undo it.
    if this.group.disabled {
        return Err(Denial::GroupDisabled {
            group: declaration.group.clone(),
        });
    }
    let enabled = match this.state {
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
    let granted = this.group.egress;
    if !granted.permits(declaration.egress) {
        return Err(Denial::Egress {
            declared: declaration.egress,
            granted,
        });
    }
    // 5. Configuration.
    if !this.group.configured {
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
    if !this.selected {
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

/// Entries sorted by name, looked up by names that come in ascending order
/// (the registry's): each lookup moves forward, so a walk over every tool
/// costs one pass over the entries, not a search per tool.
struct Sorted<'a, V, I: Iterator<Item = (&'a str, V)>> {
    next: Option<(&'a str, V)>,
    rest: I,
}

impl<'a, V: Copy, I: Iterator<Item = (&'a str, V)>> Sorted<'a, V, I> {
    fn new(mut entries: I) -> Self {
        Sorted {
            next: entries.next(),
            rest: entries,
        }
    }

    /// The value of `name`; every name looked up before must be lower.
    fn find(&mut self, name: &str) -> Option<V> {
        while let Some((key, value)) = self.next {
            match key.cmp(name) {
                std::cmp::Ordering::Less => self.next = self.rest.next(),
                std::cmp::Ordering::Equal => {
                    self.next = self.rest.next();
                    return Some(value);
                }
                std::cmp::Ordering::Greater => return None,
            }
        }
        None
    }
}
