//! `skills check --approvals`: each skill folder against the approvals in
//! the host's database, through the rule a run's start follows
//! ([`judge`]). Only run when asked, so a check without a database (and
//! the corpus comparison with the reference validator) is unchanged.

use std::path::Path;

use site_model::Timestamp;
use tool_core::skills::Position;

use super::{CheckCode, Checked, Finding, folder_name};
use crate::app::skills::approval::{Distrust, UnapprovedSkills, Verdict, judge};
use crate::app::skills::digest::{FileChange, SkillFolder};
use crate::store::SkillApproval;

/// Adds a finding for every skill in `checked` that a run would not trust,
/// or would use unapproved: a changed file (one finding per file, at that
/// file), a skill never approved, a folder that cannot be hashed.
pub fn check_approvals(
    checked: &mut Checked,
    approvals: &[SkillApproval],
    unapproved: UnapprovedSkills,
) {
    for skill_file in &checked.skill_files {
        let folder = skill_file.parent().unwrap_or(Path::new("."));
        let name = folder_name(folder);
        let read = SkillFolder::read(folder);
        let approval = approvals.iter().find(|a| a.name == name);
        let approve = format!(
            "`host-example --user ADMIN skills approve {}`",
            folder.display()
        );
        let finding = |file: &Path, code, message: String| Finding {
            file: file.to_path_buf(),
            position: Position::START,
            code,
            message,
        };
        match judge(read.as_ref().map(|r| &r.digest), approval, unapproved) {
            Verdict::Trusted => {}
            Verdict::UnapprovedAllowed => checked.findings.push(finding(
                skill_file,
                CheckCode::UnapprovedAllowed,
                format!(
                    "skill `{name}` is not approved; runs use it because the setting \
                     unapproved_skills is \"allow\": review it, then approve it with {approve}"
                ),
            )),
            Verdict::Refused(Distrust::NotApproved) => checked.findings.push(finding(
                skill_file,
                CheckCode::NotApproved,
                format!(
                    "skill `{name}` is not approved, so runs give it no tools and leave its text \
                     out: review it, then approve it with {approve}"
                ),
            )),
            Verdict::Refused(Distrust::Changed {
                changes,
                approved_by,
                approved_at,
            }) => {
                for change in changes {
                    let how = match change {
                        FileChange::Changed(_) => "changed",
                        FileChange::Added(_) => "added",
                        FileChange::Removed(_) => "removed",
                    };
                    checked.findings.push(finding(
                        &folder.join(change.path()),
                        CheckCode::SkillChanged,
                        format!(
                            "{how} since `{approved_by}` approved skill `{name}` at {}, so runs \
                             give it no tools and leave its text out: review the change, then \
                             approve it again with {approve}",
                            Timestamp(approved_at)
                        ),
                    ));
                }
            }
            Verdict::Refused(Distrust::Unhashable { reason }) => {
                let at = read
                    .as_ref()
                    .err()
                    .map_or(skill_file.as_path(), |e| e.path());
                checked.findings.push(finding(
                    at,
                    CheckCode::Unhashable,
                    format!(
                        "{reason}; until then skill `{name}` cannot be approved and runs give it \
                         no tools"
                    ),
                ));
            }
        }
    }
    checked
        .findings
        .sort_by(|a, b| (&a.file, a.position).cmp(&(&b.file, b.position)));
}
