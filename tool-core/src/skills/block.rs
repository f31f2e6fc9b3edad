//! The skill block: the effective skills' text, under the prompt's byte budget.

use crate::skills::effective::EffectiveSkills;

/// A skill left out of the skill block because it did not fit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dropped {
    /// The skill's id.
    pub id: String,
    /// The bytes its section would have taken.
    pub bytes: usize,
}

/// Composes the skill block from the effective skills, in order, leaving out
/// each skill whose section would push the block over `byte_budget` (a later,
/// smaller skill may still fit). Each drop is logged as a warning.
///
/// Compute the allow-list first, from the same [`EffectiveSkills`]: a dropped
/// skill still contributes its `allowed-tools` (gate 6, [`crate::gates`]), which
/// holds because this function cannot touch the allow-list.
#[must_use = "the block is the function's only result"]
pub fn compose_skill_block(
    skills: &EffectiveSkills<'_>,
    byte_budget: usize,
) -> (String, Vec<Dropped>) {
    let mut block = String::new();
    let mut dropped = Vec::new();
    for skill in skills.iter() {
        let section = format!("## Skill: {}\n\n{}\n\n", skill.id, skill.text.trim_end());
        if block.len().saturating_add(section.len()) <= byte_budget {
            block.push_str(&section);
        } else {
            tracing::warn!(
                skill = %skill.id,
                bytes = section.len(),
                byte_budget,
                "skill left out of the prompt: its text does not fit the byte budget"
            );
            dropped.push(Dropped {
                id: skill.id.clone(),
                bytes: section.len(),
            });
        }
    }
    (block, dropped)
}
