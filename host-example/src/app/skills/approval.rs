//! Skills an administrator approved, and the one rule that decides whether
//! a skill folder is trusted: a run's start ([`crate::app::skills::load`]) and
//! `skills check --approvals` ([`crate::app::skills::check`]) both ask [`judge`].
//!
//! Approving records the digest of every file in the skill's folder
//! ([`crate::app::skills::digest`]) with who approved it and when. A skill whose
//! files no longer match, or that was never approved (unless the setting
//! `unapproved_skills` is `"allow"`), is not trusted: its `allowed-tools`
//! becomes an empty list, so it allows the run no tools (left out, it
//! would have no opinion and widen the run), and its text stays out of
//! the prompt.

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

use site_model::Timestamp;

use crate::app::skills::check::{self as skills_check, Checked, check_skill_bytes};
use crate::app::skills::digest::{DigestError, SkillDigest, SkillFolder};
use crate::app::{HostError, Skills};
use crate::store::{AuditEntry, AuditKind, SkillApproval};
pub use crate::store::{Distrust, UnapprovedSkills};

impl fmt::Display for Distrust {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Distrust::Changed {
                changes,
                approved_by,
                approved_at,
            } => {
                let changes: Vec<String> = changes.iter().map(ToString::to_string).collect();
                write!(
                    f,
                    "{} since `{approved_by}` approved it at {}",
                    changes.join(", "),
                    Timestamp(*approved_at)
                )
            }
            Distrust::NotApproved => {
                f.write_str("not approved: an administrator has not approved it")
            }
            Distrust::Unhashable { reason } => write!(f, "its files cannot be hashed: {reason}"),
        }
    }
}

/// What a run makes of one skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Approved, and its files match.
    Trusted,
    /// Never approved; used because the setting allows it.
    UnapprovedAllowed,
    /// Not trusted.
    Refused(Distrust),
}

/// The rule: a skill folder read as `read` (or that could not be hashed),
/// with its approval, under the setting `unapproved`.
pub fn judge(
    read: Result<&SkillDigest, &DigestError>,
    approval: Option<&SkillApproval>,
    unapproved: UnapprovedSkills,
) -> Verdict {
    let digest = match read {
        Ok(digest) => digest,
        Err(error) => {
            return Verdict::Refused(Distrust::Unhashable {
                reason: error.to_string(),
            });
        }
    };
    match approval {
        None if unapproved == UnapprovedSkills::Allow => Verdict::UnapprovedAllowed,
        None => Verdict::Refused(Distrust::NotApproved),
        Some(approval) => {
            let changes = digest.changes_since(&approval.digest);
            if changes.is_empty() {
                Verdict::Trusted
            } else {
                Verdict::Refused(Distrust::Changed {
                    changes,
                    approved_by: approval.approved_by.clone(),
                    approved_at: approval.approved_at,
                })
            }
        }
    }
}

/// Why nothing was approved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("nothing was approved: {0}")]
pub struct ApproveError(pub String);

impl Skills<'_> {
    /// Approves every skill folder below each of `dirs` as `actor`, an
    /// administrator: records the digest of each folder's files, replacing
    /// any earlier approval of a skill of that name, and audits each. All
    /// or nothing: a folder that cannot be listed, a skill with an error
    /// (`skills check`), a folder that cannot be hashed, or two folders of
    /// one name approve nothing.
    pub async fn approve_skills(
        &self,
        actor: &str,
        dirs: &[PathBuf],
    ) -> Result<Vec<SkillApproval>, HostError> {
        self.access.administrator(actor, "skills approve").await?;
        let refuse = |reason: String| HostError::Approve(ApproveError(reason));
        let known = self.host.registry().known_tools();
        let found = skills_check::check_dirs(dirs, &known).map_err(|e| refuse(e.to_string()))?;
        if let Some(error) = found.findings.iter().find(|f| f.is_error()) {
            return Err(refuse(error.to_string()));
        }
        if found.skill_files.is_empty() {
            return Err(refuse(
                "no folder holding a SKILL.md was found below the folders given".to_owned(),
            ));
        }
        let mut names = BTreeSet::new();
        let mut approvals = Vec::with_capacity(found.skill_files.len());
        for skill_file in &found.skill_files {
            let folder = skill_file.parent().unwrap_or(Path::new("."));
            let name = skills_check::folder_name(folder);
            if !names.insert(name.clone()) {
                return Err(refuse(format!(
                    "two skill folders are named `{name}`; approve one of them at a time"
                )));
            }
            // Checked again on the bytes hashed, so a file edited after
            // the check above cannot be approved unchecked.
            let read = SkillFolder::read(folder).map_err(|e| refuse(e.to_string()))?;
            let findings = check_skill_bytes(skill_file, &read.skill_file, &name, &known);
            if let Some(error) = findings.iter().find(|f| f.is_error()) {
                return Err(refuse(error.to_string()));
            }
            approvals.push(SkillApproval {
                name,
                folder: std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf()),
                skill_md: String::from_utf8(read.skill_file).ok(),
                digest: read.digest,
                approved_by: actor.to_owned(),
                approved_at: 0,
            });
        }
        self.host
            .store()
            .decisions()
            .save_skill_approvals(&approvals)
            .await?;
        let mut saved = Vec::with_capacity(approvals.len());
        for approval in approvals {
            let mut entry = AuditEntry::new(AuditKind::Write, actor, "ok");
            entry.tool = Some("skills approve".into());
            entry.detail = Some(format!(
                "{} sha256:{} ({} files) from {}",
                approval.name,
                approval.digest.digest,
                approval.digest.files.len(),
                approval.folder.display()
            ));
            self.host.store().audit_log().audit(&entry).await?;
            let stored = self
                .host
                .store()
                .decisions()
                .skill_approval(&approval.name)
                .await?;
            saved.push(stored.unwrap_or(approval));
        }
        Ok(saved)
    }

    /// Adds to `checked` what each skill's approval says of it, against
    /// the approvals and the `unapproved_skills` setting as they are now.
    pub async fn check_skill_approvals(&self, checked: &mut Checked) -> Result<(), HostError> {
        let approved = self.host.store().decisions().skill_approvals().await?;
        let unapproved = self.host.store().config().unapproved_skills().await?;
        skills_check::check_approvals(checked, &approved, unapproved);
        Ok(())
    }

    /// Every approved skill, by name, for `viewer`, an administrator.
    pub async fn skill_approvals(&self, viewer: &str) -> Result<Vec<SkillApproval>, HostError> {
        self.access
            .require_admin(viewer, "the skill approvals")
            .await?;
        Ok(self.host.store().decisions().skill_approvals().await?)
    }
}
