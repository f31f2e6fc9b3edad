//! A run's skills: the skill folders below the folders the settings name
//! (`skills_folders`), picked by name and read into the [`SkillRef`]s the
//! gates (`allowed-tools`, gate 6) and the prompt's skill block use.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use tool_core::skills::{SkillRef, TrustLevel, read_skill};

use crate::skills_check::find_skill_folders;

/// How far the host trusts a skill from a folder its administrator named:
/// above the default floor, so a configured skill counts.
pub const CONFIGURED_TRUST: TrustLevel = TrustLevel(1);

/// Why the skills a run asked for could not be loaded. Nothing was run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SkillsError {
    /// No skill folder of that name below the configured folders.
    #[error(
        "no skill `{name}` in the skills folders ({folders}); see `host-example settings show` (skills_folders)"
    )]
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
    #[error("skill `{name}` is invalid: {reason}; see `host-example skills check`")]
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
    let mut found = BTreeSet::new();
    let mut ignored = Vec::new();
    for folder in folders {
        find_skill_folders(folder, &mut found, &mut ignored);
    }
    let names: BTreeSet<String> = found
        .iter()
        .filter_map(|folder| folder.file_name())
        .map(|name| name.to_string_lossy().into_owned())
        .collect();
    names.into_iter().collect()
}

/// The skills called `names`, each found in a skill folder of that name
/// below one of `folders` (the first found wins), read and checked.
pub fn load(folders: &[PathBuf], names: &[String]) -> Result<Vec<SkillRef>, SkillsError> {
    if names.is_empty() {
        return Ok(Vec::new());
    }
    let mut found = BTreeSet::new();
    let mut ignored = Vec::new();
    for folder in folders {
        find_skill_folders(folder, &mut found, &mut ignored);
    }
    names
        .iter()
        .map(|name| {
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
            read(folder, name)
        })
        .collect()
}

fn read(folder: &Path, name: &str) -> Result<SkillRef, SkillsError> {
    let path = folder.join("SKILL.md");
    let text = std::fs::read_to_string(&path).map_err(|error| SkillsError::Unreadable {
        path: path.display().to_string(),
        reason: error.to_string(),
    })?;
    let report = read_skill(&text, name);
    let valid = report.is_valid();
    let manifest = match (valid, report.manifest) {
        (true, Some(manifest)) => manifest,
        _ => {
            let reason = report
                .diagnostics
                .iter()
                .find(|d| d.is_error())
                .map_or_else(|| "no manifest".to_owned(), |d| d.message.clone());
            return Err(SkillsError::Invalid {
                name: name.to_owned(),
                reason,
            });
        }
    };
    Ok(SkillRef {
        id: name.to_owned(),
        enabled: true,
        orphaned: false,
        trust: CONFIGURED_TRUST,
        allowed_tools: manifest.allowed_tools,
        text: manifest.body,
    })
}
