//! The cascade for one tool: gates 2 to 8, in the fixed order.

use crate::skills::{Allowance, SkillsVerdict};
use crate::{Effect, Egress, RegisteredTool, Shipped};

use super::{AllowedEffects, Denial, RunInputs, Selection, Toggle};

/// The cascade for one tool, in the fixed order.
///
/// `skills` is gate 6's word on this tool.
pub(super) fn verdict(
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
