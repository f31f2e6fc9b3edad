//! A skill's values: what an administrator approves of a skill folder
//! (every file's SHA-256 and one digest over them, the `sha256sum` lines
//! docs/skills-approval.md shows), how a folder differs from its approval,
//! why a run did not trust a skill, and the `unapproved_skills` setting.
//! Reading a folder from disk is the app's (`app::skills::digest`).

use std::fmt;

use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use super::hex;

/// What runs do with a skill no administrator approved (the setting
/// `unapproved_skills`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnapprovedSkills {
    /// Not trusted, like a changed skill: no tools, no text.
    #[default]
    Refuse,
    /// Used as if approved (a run notes it).
    Allow,
}

/// Why a skill is not trusted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "why", rename_all = "snake_case")]
pub enum Distrust {
    /// Its files differ from the ones approved.
    Changed {
        /// Which files, and how.
        changes: Vec<FileChange>,
        /// Who approved the skill as it was.
        approved_by: String,
        /// When (seconds since the Unix epoch).
        approved_at: i64,
    },
    /// No administrator approved it, and the setting refuses such skills.
    NotApproved,
    /// Its folder could not be hashed, so no approval can vouch for it.
    Unhashable {
        /// Why.
        reason: String,
    },
}

/// How a skill folder differs from the one approved, one file at a time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "change", content = "path", rename_all = "snake_case")]
pub enum FileChange {
    /// The file's bytes differ.
    Changed(String),
    /// A file that was not there when approved.
    Added(String),
    /// A file approved and now gone.
    Removed(String),
}

/// One file of a skill folder and the SHA-256 of its exact bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileDigest {
    /// Its path below the skill folder, `/`-separated.
    pub path: String,
    /// The SHA-256 of its bytes, lowercase hex.
    pub sha256: String,
}

/// Every file of a skill folder, in path order, and the digest over them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillDigest {
    /// The files, in byte order of their paths.
    pub files: Vec<FileDigest>,
    /// The SHA-256 over the files' lines, lowercase hex.
    pub digest: String,
}

impl FileChange {
    /// The file's path below the skill folder.
    pub fn path(&self) -> &str {
        match self {
            FileChange::Changed(path) | FileChange::Added(path) | FileChange::Removed(path) => path,
        }
    }
}

impl fmt::Display for FileChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileChange::Changed(path) => write!(f, "`{path}` changed"),
            FileChange::Added(path) => write!(f, "`{path}` added"),
            FileChange::Removed(path) => write!(f, "`{path}` removed"),
        }
    }
}

impl SkillDigest {
    /// The digest of `files`, which are put in path order.
    pub fn from_files(mut files: Vec<FileDigest>) -> SkillDigest {
        files.sort_by(|a, b| a.path.cmp(&b.path));
        let mut hasher = Sha256::new();
        for file in &files {
            hasher.update(format!("{}  ./{}\n", file.sha256, file.path).as_bytes());
        }
        SkillDigest {
            files,
            digest: hex(&hasher.finalize()),
        }
    }

    /// What differs in `self` from `approved`, in path order; empty when
    /// the digests agree.
    pub fn changes_since(&self, approved: &SkillDigest) -> Vec<FileChange> {
        if self.digest == approved.digest {
            return Vec::new();
        }
        let mut changes = Vec::new();
        let (mut now, mut then) = (
            self.files.iter().peekable(),
            approved.files.iter().peekable(),
        );
        loop {
            match (now.peek(), then.peek()) {
                (Some(n), Some(t)) if n.path == t.path => {
                    if n.sha256 != t.sha256 {
                        changes.push(FileChange::Changed(n.path.clone()));
                    }
                    now.next();
                    then.next();
                }
                (Some(n), Some(t)) if n.path < t.path => {
                    changes.push(FileChange::Added(n.path.clone()));
                    now.next();
                }
                (Some(_), Some(t)) | (None, Some(t)) => {
                    changes.push(FileChange::Removed(t.path.clone()));
                    then.next();
                }
                (Some(n), None) => {
                    changes.push(FileChange::Added(n.path.clone()));
                    now.next();
                }
                (None, None) => break,
            }
        }
        changes
    }
}
