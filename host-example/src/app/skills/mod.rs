//! A run's skills: the skill folders below the folders the settings name
//! (`skills_folders`), picked by name, judged against their approvals
//! ([`crate::app::skills::approval`]) and read into the [`SkillRef`]s the gates
//! (`allowed-tools`, gate 6) and the prompt's skill block use.

pub mod approval;
pub mod check;
pub mod digest;
pub mod prompts;
pub mod states;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use tool_core::skills::{AllowedTools, SkillRef, TrustLevel};

use crate::app::skills::approval::{UnapprovedSkills, Verdict, judge};
use crate::app::skills::check::{SKILL_FILE, SkillFolders};
use crate::app::skills::digest::SkillFolder;
use crate::store::{RunNote, SkillApproval};

/// How far the host trusts a skill from a folder its administrator named:
/// above the default floor, so a configured skill counts.
pub const CONFIGURED_TRUST: TrustLevel = TrustLevel(1);

/// The trust level of a skill the host refuses: the highest, so that no
/// trust floor drops it. Dropped, it would have no opinion on the run's
/// tools and widen the run; kept, its empty `allowed-tools` allows nothing.
const REFUSED_SKILL_TRUST: TrustLevel = TrustLevel(u8::MAX);

/// A run's skills, and what the host noted while loading them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LoadedSkills {
    /// The skills, in the order asked for.
    pub skills: Vec<SkillRef>,
    /// A note for each skill refused, or used unapproved.
    pub notes: Vec<RunNote>,
}

/// Why the skills a run asked for could not be loaded. Nothing was run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SkillsError {
    /// No skill folder of that name below the configured folders.
    #[error("no skill `{name}` in the skills folders ({folders})")]
    Unknown {
        /// The name asked for.
        name: String,
        /// The folders searched.
        folders: String,
    },
    /// The skill's SKILL.md could not be read.
    #[error("cannot read {path}: {reason}")]
    Unreadable {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
    /// The skill's SKILL.md has errors.
    #[error("skill `{name}` is invalid: {reason}")]
    Invalid {
        /// The skill.
        name: String,
        /// Its first error.
        reason: String,
    },
}

/// The names of every skill folder below `folders`, sorted: what a run
/// may pick.
pub fn available(folders: &[PathBuf]) -> Vec<String> {
    // A folder that cannot be listed holds no skill a run could pick.
    let found = SkillFolders::find(folders).folders;
    let names: BTreeSet<String> = found
        .iter()
        .filter_map(|folder| folder.file_name())
        .map(|name| name.to_string_lossy().into_owned())
        .collect();
    names.into_iter().collect()
}

/// The skills called `names`, each found in a skill folder of that name
/// below one of `folders` (the first found wins), judged against
/// `approvals` under the setting `unapproved`, and read and checked. A
/// skill the host does not trust is kept, allowing no tools and with no
/// text, and noted.
pub fn load(
    folders: &[PathBuf],
    names: &[String],
    approvals: &[SkillApproval],
    unapproved: UnapprovedSkills,
) -> Result<LoadedSkills, SkillsError> {
    let mut loaded = LoadedSkills::default();
    if names.is_empty() {
        return Ok(loaded);
    }
    // A folder that cannot be listed holds no skill a run could pick.
    let found = SkillFolders::find(folders).folders;
    for name in names {
        let folder = found
            .iter()
            .find(|folder| folder.file_name().is_some_and(|n| n == name.as_str()))
            .ok_or_else(|| SkillsError::Unknown {
                name: name.clone(),
                folders: folders
                    .iter()
                    .map(|f| f.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
            })?;
        let read = SkillFolder::read(folder);
        let approval = approvals.iter().find(|a| &a.name == name);
        let verdict = judge(read.as_ref().map(|r| &r.digest), approval, unapproved);
        let skill = match (verdict, read) {
            (Verdict::Refused(reason), _) => {
                loaded.notes.push(RunNote::SkillRefused {
                    skill: name.clone(),
                    reason,
                });
                refused(name)
            }
            (verdict, Ok(read)) => {
                if verdict == Verdict::UnapprovedAllowed {
                    loaded.notes.push(RunNote::SkillUnapprovedUsed {
                        skill: name.clone(),
                    });
                }
                parse(folder, name, &read.skill_file)?
            }
            // `judge` refuses a folder that could not be read.
            (_, Err(error)) => {
                return Err(SkillsError::Unreadable {
                    path: error.path().display().to_string(),
                    reason: error.to_string(),
                });
            }
        };
        loaded.skills.push(skill);
    }
    Ok(loaded)
}

/// A skill the host does not trust: it allows no tools and adds no text.
fn refused(name: &str) -> SkillRef {
    SkillRef {
        id: name.to_owned(),
        enabled: true,
        orphaned: false,
        trust: REFUSED_SKILL_TRUST,
        allowed_tools: AllowedTools::Declared(Vec::new()),
        text: String::new(),
    }
}

fn parse(folder: &Path, name: &str, bytes: &[u8]) -> Result<SkillRef, SkillsError> {
    let text = std::str::from_utf8(bytes).map_err(|error| SkillsError::Unreadable {
        path: folder.join(SKILL_FILE).display().to_string(),
        reason: format!("not UTF-8 text: {error}"),
    })?;
    SkillRef::read(text, name, CONFIGURED_TRUST).map_err(|invalid| SkillsError::Invalid {
        name: name.to_owned(),
        reason: invalid
            .first_error()
            .map_or_else(|| "no manifest".to_owned(), |d| d.message.clone()),
    })
}
