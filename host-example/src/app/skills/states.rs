//! The skills page's answer: every skill folder below the skills folders
//! with its state against its approval (approved, changed, never
//! approved), for a changed one the files that differ and a line diff of
//! its `SKILL.md` against the text approved (kept since approvals keep it),
//! and approving one skill by name.

use std::path::PathBuf;

use serde::Serialize;

use crate::app::skills::approval::{Distrust, Verdict, judge};
use crate::app::skills::check::{SKILL_FILE, SkillFolders, folder_name};
use crate::app::skills::digest::{FileChange, SkillFolder};
use crate::app::{HostError, Skills};
use crate::store::{SkillApproval, UnapprovedSkills};

/// The longest `SKILL.md` pair diffed (lines of each multiplied): the
/// diff is quadratic; past this, only the changed files are named.
const MAX_DIFF_CELLS: usize = 4_000_000;

/// One skill folder as the skills page shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkillState {
    /// Its name (its folder's).
    pub name: String,
    /// Where it is.
    pub folder: PathBuf,
    /// `approved`, `changed`, `never approved` or `unreadable`.
    pub state: &'static str,
    /// Who approved it and when, if anyone did.
    pub approved: Option<(String, i64)>,
    /// For a changed skill: each file that differs, in words.
    pub changes: Vec<String>,
    /// For a changed `SKILL.md` whose approved text is kept: the diff.
    pub diff: Option<Vec<DiffLine>>,
    /// Why its files could not be read, for `unreadable`.
    pub problem: Option<String>,
}

/// One line of a diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum DiffLine {
    /// In both.
    Same(String),
    /// Only in the approved text.
    Removed(String),
    /// Only in the text now.
    Added(String),
}

impl Skills<'_> {
    /// Every skill below the skills folders with its state, by name, for
    /// `viewer`, an administrator.
    pub async fn skill_states(&self, viewer: &str) -> Result<Vec<SkillState>, HostError> {
        self.access.require_admin(viewer, "see the skills").await?;
        let folders = self.host.store().config().skills_folders().await?;
        let approvals = self.host.store().decisions().skill_approvals().await?;
        let mut states = Vec::new();
        for folder in SkillFolders::find(&folders).folders {
            let name = folder_name(&folder);
            let approval = approvals.iter().find(|a| a.name == name);
            states.push(state_of(name, folder, approval));
        }
        states.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(states)
    }

    /// Approves the skill `name` (its folder below the skills folders) as
    /// `actor`, an administrator, as `skills approve FOLDER` does.
    pub async fn approve_skill(&self, actor: &str, name: &str) -> Result<(), HostError> {
        self.access.administrator(actor, "skills approve").await?;
        let folders = self.host.store().config().skills_folders().await?;
        let folder = SkillFolders::find(&folders)
            .folders
            .into_iter()
            .find(|folder| folder_name(folder) == name)
            .ok_or_else(|| {
                HostError::Invalid(format!("there is no skill `{name}` in the skills folders"))
            })?;
        self.approve_skills(actor, &[folder]).await.map(drop)
    }
}

fn state_of(name: String, folder: PathBuf, approval: Option<&SkillApproval>) -> SkillState {
    let read = SkillFolder::read(&folder);
    let approved = approval.map(|a| (a.approved_by.clone(), a.approved_at));
    // Judged as a run would under `refuse`: the page names the state
    // whatever the setting lets runs do with it.
    let verdict = judge(
        read.as_ref().map(|r| &r.digest),
        approval,
        UnapprovedSkills::Refuse,
    );
    let mut state = SkillState {
        name,
        folder,
        state: "approved",
        approved,
        changes: Vec::new(),
        diff: None,
        problem: None,
    };
    match verdict {
        Verdict::Trusted | Verdict::UnapprovedAllowed => {}
        Verdict::Refused(Distrust::NotApproved) => state.state = "never approved",
        Verdict::Refused(Distrust::Unhashable { reason }) => {
            state.state = "unreadable";
            state.problem = Some(reason);
        }
        Verdict::Refused(Distrust::Changed { changes, .. }) => {
            state.state = "changed";
            let skill_md_changed = changes
                .iter()
                .any(|c| matches!(c, FileChange::Changed(path) if path == SKILL_FILE));
            state.changes = changes.iter().map(ToString::to_string).collect();
            let now = read.ok().and_then(|r| String::from_utf8(r.skill_file).ok());
            if let (true, Some(then), Some(now)) = (
                skill_md_changed,
                approval.and_then(|a| a.skill_md.as_deref()),
                now,
            ) {
                state.diff = line_diff(then, &now);
            }
        }
    }
    state
}

/// The lines of `then` and `now` as the longest common subsequence pairs
/// them, a removed line before the line added in its place; `None` when
/// the texts are too long to diff.
pub fn line_diff(then: &str, now: &str) -> Option<Vec<DiffLine>> {
    let a: Vec<&str> = then.lines().collect();
    let b: Vec<&str> = now.lines().collect();
    if a.len().saturating_mul(b.len()) > MAX_DIFF_CELLS {
        return None;
    }
    // common[i][j]: the longest common subsequence of a[i..] and b[j..].
    let width = b.len() + 1;
    let mut common = vec![0u32; (a.len() + 1) * width];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            common[i * width + j] = if a[i] == b[j] {
                common[(i + 1) * width + j + 1] + 1
            } else {
                common[(i + 1) * width + j].max(common[i * width + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut lines = Vec::with_capacity(a.len().max(b.len()));
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            lines.push(DiffLine::Same(a[i].to_owned()));
            i += 1;
            j += 1;
        } else if j < b.len()
            && (i == a.len() || common[i * width + j + 1] > common[(i + 1) * width + j])
        {
            lines.push(DiffLine::Added(b[j].to_owned()));
            j += 1;
        } else {
            lines.push(DiffLine::Removed(a[i].to_owned()));
            i += 1;
        }
    }
    Some(lines)
}
