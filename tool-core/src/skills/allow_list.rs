//! Gate 6: the tools that the effective skills allow (see [`crate::gates`]).

use serde::{Deserialize, Serialize};

use crate::ScopeKind;
use crate::skills::allowed_tools::AllowedTools;
use crate::skills::effective::EffectiveSkills;
use crate::skills::resolve::{KnownTools, Resolved, is_tool_of, resolve};
use crate::skills::scope::ScopePattern;

/// Gate 6's allow-list, by position in `known`, which must be sorted by
/// name (a registry's tools are): no opinion when no effective skill
/// declares `allowed-tools`, otherwise the union of the declared lists.
/// Tokens that resolve to nothing grant nothing, so an unknown name never
/// widens the list. `find` gives a name's position in `known` (the
/// registry's index, on the gates' hot path). No name is copied.
pub(crate) fn allowances<K: KnownTools + ?Sized>(
    skills: &EffectiveSkills<'_>,
    known: &K,
    find: impl Fn(&str) -> Option<usize>,
) -> SkillsVerdicts {
    let mut declared = false;
    let mut allowances: Vec<Option<Allowance>> = Vec::new();
    for skill in skills.iter() {
        let AllowedTools::Declared(patterns) = &skill.allowed_tools else {
            continue;
        };
        if !declared {
            declared = true;
            allowances = vec![None; known.len()];
        }
        for pattern in patterns {
            match resolve(pattern, known, &find) {
                Some(Resolved::Whole(range)) => {
                    for slot in &mut allowances[range] {
                        *slot = Some(Allowance::Whole);
                    }
                }
                Some(Resolved::Server { candidates, server }) => {
                    for i in candidates {
                        if is_tool_of(known.name(i), server) {
                            allowances[i] = Some(Allowance::Whole);
                        }
                    }
                }
                Some(Resolved::Scoped(i)) => {
                    let allowance =
                        allowances[i].get_or_insert_with(|| Allowance::Scoped(Vec::new()));
                    // A whole grant already covers every scope.
                    if let (Allowance::Scoped(scopes), Some(scope)) = (allowance, &pattern.scope)
                        && !scopes.contains(scope)
                    {
                        scopes.push(scope.clone());
                    }
                }
                None => {}
            }
        }
    }
    if declared {
        SkillsVerdicts::ByPosition(allowances)
    } else {
        SkillsVerdicts::NoOpinion
    }
}

/// Gate 6's word on every known tool, by position in the sorted list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SkillsVerdicts {
    /// No effective skill declares `allowed-tools`.
    NoOpinion,
    /// What each tool is allowed; `None` where nothing is.
    ByPosition(Vec<Option<Allowance>>),
}

impl SkillsVerdicts {
    /// Gate 6's word on the tool at position `i`, for checking a skill's
    /// call examples (the gates take the allowances whole).
    #[cfg(feature = "skills")]
    pub(crate) fn verdict(&self, i: usize) -> SkillsVerdict<'_> {
        match self {
            SkillsVerdicts::NoOpinion => SkillsVerdict::NoOpinion,
            SkillsVerdicts::ByPosition(allowances) => match &allowances[i] {
                Some(allowance) => SkillsVerdict::Allowed(allowance),
                None => SkillsVerdict::NotAllowed,
            },
        }
    }
}

/// Gate 6's word on one tool.
#[cfg(feature = "skills")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SkillsVerdict<'a> {
    /// No effective skill declares `allowed-tools`: the gate says yes.
    NoOpinion,
    /// The skills allow this much of it.
    Allowed(&'a Allowance),
    /// Skills declare `allowed-tools` and none allows it.
    NotAllowed,
}

/// How much of one tool is allowed: by the skills, and in a run's
/// [`Grant`](crate::gates::Grant).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Allowance {
    /// Every call.
    Whole,
    /// Only calls whose scoped argument one of these admits.
    Scoped(Vec<ScopePattern>),
}

impl Allowance {
    /// Whether a call whose scope argument is `scope` (its kind and value,
    /// `None` for a tool without one or a call without the value) is
    /// admitted.
    pub(crate) fn admits(&self, scope: Option<(ScopeKind, &str)>) -> bool {
        match self {
            Allowance::Whole => true,
            Allowance::Scoped(patterns) => {
                scope.is_some_and(|(kind, value)| patterns.iter().any(|p| p.admits(kind, value)))
            }
        }
    }

    /// What both allow. Scoped patterns are kept only when both sides hold
    /// the same pattern: narrower than the exact intersection of the
    /// languages, never wider.
    pub(crate) fn intersect(&self, other: &Allowance) -> Option<Allowance> {
        match (self, other) {
            (Allowance::Whole, other) | (other, Allowance::Whole) => Some(other.clone()),
            (Allowance::Scoped(a), Allowance::Scoped(b)) => {
                let both: Vec<ScopePattern> = a.iter().filter(|p| b.contains(p)).cloned().collect();
                (!both.is_empty()).then_some(Allowance::Scoped(both))
            }
        }
    }
}
