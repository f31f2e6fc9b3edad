//! The skills that count for a run: each read from its `SKILL.md` in one
//! call, then picked by the host's switches and trust floor.

use rustc_hash::FxHashSet;
use serde::{Deserialize, Serialize};

use crate::skills::allowed_tools::AllowedTools;
#[cfg(feature = "skills")]
use crate::skills::diagnostic::Diagnostic;
#[cfg(feature = "skills")]
use crate::skills::manifest::read_skill;

/// How far a host trusts a skill's source; higher is more trusted.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct TrustLevel(pub u8);

/// A skill as a run sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillRef {
    /// The skill's identity; two entries with one id are one skill.
    pub id: String,
    /// Whether an administrator left it switched on.
    pub enabled: bool,
    /// Whether its files are gone from where it was installed.
    pub orphaned: bool,
    /// How far its source is trusted.
    pub trust: TrustLevel,
    /// Its `allowed-tools`.
    pub allowed_tools: AllowedTools,
    /// The text that goes into the prompt's skill block.
    #[serde(default)]
    pub text: String,
}

/// The skills that count for a run: enabled, not orphaned, trusted at least
/// to the floor, each id once (the first entry wins).
#[derive(Debug, Clone)]
pub struct EffectiveSkills<'a> {
    skills: Vec<&'a SkillRef>,
}

impl<'a> EffectiveSkills<'a> {
    /// Picks the effective skills out of `skills`, in their order.
    pub fn select(skills: &'a [SkillRef], trust_floor: TrustLevel) -> Self {
        // A hash set: ordered by id it cost as much as the rest of gate 6
        // for 50 skills. FxHash is not flood-resistant, but the ids are the
        // host's, and colliding ones would cost at most a pass over the
        // run's own skills each.
        let mut ids = FxHashSet::with_capacity_and_hasher(skills.len(), Default::default());
        let mut effective = Vec::with_capacity(skills.len());
        effective.extend(
            skills
                .iter()
                .filter(|s| s.enabled && !s.orphaned && s.trust >= trust_floor)
                .filter(|s| ids.insert(s.id.as_str())),
        );
        EffectiveSkills { skills: effective }
    }

    /// The effective skills, in order.
    pub fn iter(&self) -> impl Iterator<Item = &'a SkillRef> + '_ {
        self.skills.iter().copied()
    }
}

#[cfg(feature = "skills")]
impl SkillRef {
    /// Reads a `SKILL.md` found in the folder `folder_name` into the skill a
    /// run uses: enabled, not orphaned, trusted at `trust`, with its
    /// `allowed-tools` and its body as the skill block's text. The one call
    /// a host needs; [`read_skill`] gives the whole report, warnings included.
    ///
    /// # Errors
    ///
    /// [`InvalidSkill`], with every diagnostic, when the file has an error:
    /// a skill that cannot be read with certainty is not used at all.
    pub fn read(text: &str, folder_name: &str, trust: TrustLevel) -> Result<Self, InvalidSkill> {
        let report = read_skill(text, folder_name);
        match report.manifest {
            Some(manifest) if !report.diagnostics.iter().any(Diagnostic::is_error) => {
                Ok(SkillRef {
                    id: folder_name.to_owned(),
                    enabled: true,
                    orphaned: false,
                    trust,
                    allowed_tools: manifest.allowed_tools,
                    text: manifest.body,
                })
            }
            _ => Err(InvalidSkill {
                diagnostics: report.diagnostics,
            }),
        }
    }
}

#[cfg(feature = "skills")]
/// Why a `SKILL.md` cannot be used: every diagnostic of the file, in file
/// order, at least one of them an error. Displays as the first error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidSkill {
    /// What [`read_skill`] found.
    pub diagnostics: Vec<Diagnostic>,
}

#[cfg(feature = "skills")]
impl InvalidSkill {
    /// The first error, the one to fix first.
    pub fn first_error(&self) -> Option<&Diagnostic> {
        self.diagnostics.iter().find(|d| d.is_error())
    }
}

#[cfg(feature = "skills")]
impl std::fmt::Display for InvalidSkill {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.first_error() {
            Some(error) => error.fmt(f),
            None => f.write_str("the skill has no front matter"),
        }
    }
}

#[cfg(feature = "skills")]
impl std::error::Error for InvalidSkill {}
