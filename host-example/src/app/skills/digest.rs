//! What an administrator approves of a skill: every file in its folder,
//! each hashed with SHA-256, and one digest over them all.
//!
//! Every file counts, not only `SKILL.md`: a skill's scripts, references
//! and assets are what its text tells the model to run and read, so a
//! changed script is as much a changed skill as a changed prompt. Hidden
//! files count too. A folder below the skill folder that holds its own
//! `SKILL.md` is another skill, approved on its own, and is left out.
//!
//! The digest is the SHA-256 of one line per file, `<sha256>  ./<path>\n`,
//! in byte order of the path: what
//! `find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum`
//! prints inside the folder (for a skill with no nested skill), so an
//! administrator can recompute it without this host.
//!
//! A symbolic link anywhere in the folder makes it unusable: the content
//! behind a link can change without the folder changing, so no approval
//! could cover it. So does a file name that is not UTF-8 or holds a line
//! break or `\`, which the digest's lines could not state unambiguously.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use sha2::{Digest as _, Sha256};

use crate::app::skills::check::SKILL_FILE;
use crate::domain::hex;
pub use crate::domain::skills::{FileChange, FileDigest, SkillDigest};

/// A skill folder read once: its digest and the bytes of its `SKILL.md`
/// as they were hashed, so what is checked against the approval is what
/// is then parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillFolder {
    /// Every file's hash.
    pub digest: SkillDigest,
    /// The `SKILL.md`, byte for byte.
    pub skill_file: Vec<u8>,
    /// Each file's length in bytes, by path.
    pub sizes: BTreeMap<String, u64>,
}

/// Why a skill folder cannot be hashed; such a folder is never trusted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DigestError {
    /// A file or folder could not be read.
    #[error("cannot read `{}`: {reason}", path.display())]
    Unreadable {
        /// The file or folder.
        path: PathBuf,
        /// What the system said.
        reason: String,
    },
    /// A symbolic link, whose target could change unseen.
    #[error(
        "`{}` is a symbolic link, which no approval can cover: put the file itself in the skill folder",
        path.display()
    )]
    Link {
        /// The link.
        path: PathBuf,
    },
    /// A file name the digest cannot state.
    #[error(
        "`{}` has a name that is not UTF-8 or holds a line break or `\\`: rename it",
        path.display()
    )]
    UnusableName {
        /// The file.
        path: PathBuf,
    },
}

impl DigestError {
    /// The file or folder it is about.
    pub fn path(&self) -> &Path {
        match self {
            DigestError::Unreadable { path, .. }
            | DigestError::Link { path }
            | DigestError::UnusableName { path } => path,
        }
    }
}

impl SkillFolder {
    /// Hashes every file of the skill folder `folder`.
    pub fn digest_of(folder: &Path) -> Result<SkillDigest, DigestError> {
        SkillFolder::read(folder).map(|read| read.digest)
    }

    /// Reads every file of the skill folder `folder` once.
    pub fn read(folder: &Path) -> Result<SkillFolder, DigestError> {
        let mut files = Vec::new();
        let mut sizes = BTreeMap::new();
        let mut skill_file = None;
        let mut pending = vec![(folder.to_path_buf(), String::new())];
        while let Some((dir, prefix)) = pending.pop() {
            let unreadable = |path: &Path, error: io::Error| DigestError::Unreadable {
                path: path.to_path_buf(),
                reason: error.to_string(),
            };
            let entries = fs::read_dir(&dir).map_err(|e| unreadable(&dir, e))?;
            for entry in entries {
                let entry = entry.map_err(|e| unreadable(&dir, e))?;
                let path = entry.path();
                let name = entry
                    .file_name()
                    .into_string()
                    .ok()
                    .filter(|name| !name.contains(['\n', '\r', '\\']))
                    .ok_or_else(|| DigestError::UnusableName { path: path.clone() })?;
                let relative = format!("{prefix}{name}");
                let kind = entry.file_type().map_err(|e| unreadable(&path, e))?;
                if kind.is_symlink() {
                    return Err(DigestError::Link { path });
                }
                if kind.is_dir() {
                    // Another skill, approved on its own.
                    if !path.join(SKILL_FILE).exists() {
                        pending.push((path, format!("{relative}/")));
                    }
                    continue;
                }
                if !kind.is_file() {
                    // A pipe or device: reading it could block or never end.
                    return Err(DigestError::Unreadable {
                        path,
                        reason: "not a regular file".to_owned(),
                    });
                }
                let bytes = fs::read(&path).map_err(|e| unreadable(&path, e))?;
                sizes.insert(relative.clone(), bytes.len() as u64);
                files.push(FileDigest {
                    path: relative.clone(),
                    sha256: hex(&Sha256::digest(&bytes)),
                });
                if relative == SKILL_FILE {
                    skill_file = Some(bytes);
                }
            }
        }
        let skill_path = folder.join(SKILL_FILE);
        let skill_file = skill_file.ok_or_else(|| DigestError::Unreadable {
            path: skill_path,
            reason: "no such file".to_owned(),
        })?;
        Ok(SkillFolder {
            digest: SkillDigest::from_files(files),
            skill_file,
            sizes,
        })
    }
}

/// The SHA-256 of `bytes`, lowercase hex, as a [`FileDigest`] states it.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}
