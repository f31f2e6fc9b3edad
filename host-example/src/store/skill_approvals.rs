//! Approved skills: each skill's digest as an administrator approved it,
//! with who and when (see [`crate::app::skills::approval`]).

use crate::store::Decisions;
use std::path::PathBuf;

use sqlx::Row;
use sqlx::any::AnyRow;

use super::SkillDigest;
use super::{StoreError, from_json, now, to_json};

/// One skill as approved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillApproval {
    /// The skill's name (its folder's name).
    pub name: String,
    /// The folder it was approved from.
    pub folder: PathBuf,
    /// Every file's hash and the digest over them.
    pub digest: SkillDigest,
    /// The administrator who approved it.
    pub approved_by: String,
    /// When (seconds since the Unix epoch); [`Decisions::save_skill_approvals`](crate::store::Decisions::save_skill_approvals)
    /// stamps it.
    pub approved_at: i64,
    /// The text of its `SKILL.md` as approved; `None` for an approval made
    /// before the text was kept, or a file that is not UTF-8.
    pub skill_md: Option<String>,
}

impl SkillApproval {
    fn from_row(row: &AnyRow) -> Result<SkillApproval, StoreError> {
        let name: String = row.try_get("name")?;
        let files = from_json(row, "files", || format!("the approval of skill `{name}`"))?;
        let digest = SkillDigest::from_files(files);
        let stored: String = row.try_get("digest")?;
        // The digest is recomputed from the files; a row whose two disagree
        // was edited by hand and proves nothing.
        if digest.digest != stored {
            return Err(StoreError::Corrupt {
                what: format!("the approval of skill `{name}`"),
                reason: "its digest does not match its files; approve the skill again".to_owned(),
            });
        }
        Ok(SkillApproval {
            folder: PathBuf::from(row.try_get::<String, _>("folder")?),
            digest,
            approved_by: row.try_get("approved_by")?,
            approved_at: row.try_get("approved_at")?,
            skill_md: row.try_get("skill_md")?,
            name,
        })
    }
}

const COLUMNS: &str = "name, folder, digest, files, approved_by, approved_at, skill_md";

impl Decisions<'_> {
    /// Records `approvals`, all or none, each replacing any earlier
    /// approval of its skill, stamped now.
    pub async fn save_skill_approvals(
        &self,
        approvals: &[SkillApproval],
    ) -> Result<(), StoreError> {
        let at = now();
        let mut tx = self.store.begin_write().await?;
        for approval in approvals {
            sqlx::query(
                "INSERT INTO skill_approvals
                 (name, folder, digest, files, approved_by, approved_at, skill_md)
                 VALUES ($1, $2, $3, $4, $5, $6, $7)
                 ON CONFLICT (name) DO UPDATE SET folder = excluded.folder,
                 digest = excluded.digest, files = excluded.files,
                 approved_by = excluded.approved_by, approved_at = excluded.approved_at,
                 skill_md = excluded.skill_md",
            )
            .bind(approval.name.as_str())
            .bind(approval.folder.to_string_lossy().into_owned())
            .bind(approval.digest.digest.as_str())
            .bind(to_json(&approval.digest.files))
            .bind(approval.approved_by.as_str())
            .bind(at)
            .bind(approval.skill_md.clone())
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Every approved skill, by name.
    pub async fn skill_approvals(&self) -> Result<Vec<SkillApproval>, StoreError> {
        sqlx::query(&format!(
            "SELECT {COLUMNS} FROM skill_approvals ORDER BY name"
        ))
        .fetch_all(&self.store.pool)
        .await?
        .iter()
        .map(SkillApproval::from_row)
        .collect()
    }

    /// The approval of the skill `name`, if it has one.
    pub async fn skill_approval(&self, name: &str) -> Result<Option<SkillApproval>, StoreError> {
        sqlx::query(&format!(
            "SELECT {COLUMNS} FROM skill_approvals WHERE name = $1"
        ))
        .bind(name)
        .fetch_optional(&self.store.pool)
        .await?
        .as_ref()
        .map(SkillApproval::from_row)
        .transpose()
    }
}
