//! Skills that cannot change unseen: a run trusts a skill only while its
//! files match what an administrator approved.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use tempfile::TempDir;

use crate::Host;
use crate::fake_model::{FakeModel, answering};

const SKILL: &str = "---\nname: review\ndescription: Reviews the site's page tree for broken structure. Use when asked to audit pages.\nallowed-tools: get_pagetree\n---\nRead the page tree first.\n";
const BODY: &str = "Read the page tree first.";

/// A skills folder holding the skill `review`, set as the host's
/// `skills_folders`.
struct Skills {
    dir: TempDir,
}

impl Skills {
    fn new(host: &Host) -> Skills {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("review");
        fs::create_dir_all(folder.join("scripts")).unwrap();
        fs::write(folder.join("SKILL.md"), SKILL).unwrap();
        fs::write(folder.join("scripts/check.sh"), "echo ok\n").unwrap();
        let folders = serde_json::to_string(&[dir.path()]).unwrap();
        host.setting("skills_folders", &folders);
        Skills { dir }
    }

    fn folder(&self) -> PathBuf {
        self.dir.path().join("review")
    }

    /// Changes one byte of the file `relative` in the skill's folder.
    fn edit_one_byte(&self, relative: &str) {
        let path = self.folder().join(relative);
        let mut bytes = fs::read(&path).unwrap();
        let last = bytes.len() - 2;
        bytes[last] = if bytes[last] == b'.' { b'!' } else { b'.' };
        fs::write(&path, bytes).unwrap();
    }
}

/// Runs `review` as admin against a model that answers at once; returns
/// the request the model got and the run's id.
fn run_with_skill(host: &Host) -> (Value, String) {
    let model = FakeModel::start([answering("Done.")]);
    host.setting("model", &model.setting());
    let out = host.ok(&[
        "run",
        "Audit the pages",
        "--user",
        "admin",
        "--skill",
        "review",
    ]);
    let seen = model.seen();
    assert_eq!(seen.len(), 1);
    // `run RUN finished…`: runs started in one second list in any order.
    let id = out
        .lines()
        .find_map(|line| line.strip_prefix("run ")?.split_whitespace().next())
        .unwrap_or_else(|| panic!("no run id in {out}"));
    (seen[0].clone(), id.to_owned())
}

fn offered_tools(request: &Value) -> Vec<String> {
    request
        .get("tools")
        .and_then(Value::as_array)
        .map(|tools| {
            tools
                .iter()
                .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn system_prompt(request: &Value) -> String {
    request["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn approve(host: &Host, folder: &Path) -> String {
    host.ok(&[
        "--user",
        "admin",
        "skills",
        "approve",
        folder.to_str().unwrap(),
    ])
}

pub fn a_changed_skill_allows_no_tools_until_approved_again(host: &Host) {
    let skills = Skills::new(host);
    let out = approve(host, &skills.folder());
    assert!(out.starts_with("approved review sha256:"), "{out}");
    assert!(out.contains("(2 files)"), "{out}");

    // Approved and unchanged: the skill's tool and text.
    let (request, id) = run_with_skill(host);
    assert_eq!(offered_tools(&request), ["get_pagetree"]);
    assert!(system_prompt(&request).contains(BODY));
    assert!(
        !host
            .ok(&["--user", "admin", "runs", "show", &id])
            .contains("notes:")
    );

    // One byte of SKILL.md: no tools at all (never the whole registry),
    // no text, and the run says which file changed.
    skills.edit_one_byte("SKILL.md");
    let (request, id) = run_with_skill(host);
    assert_eq!(offered_tools(&request), Vec::<String>::new());
    assert!(!system_prompt(&request).contains("page tree"));
    let shown = host.ok(&["--user", "admin", "runs", "show", &id]);
    assert!(
        shown.contains("skill `review` not trusted (`SKILL.md` changed since `admin` approved it"),
        "{shown}"
    );
    assert!(shown.contains("it allows no tools"), "{shown}");

    // A script beside it counts as much as the prompt.
    approve(host, &skills.folder());
    skills.edit_one_byte("scripts/check.sh");
    let (request, id) = run_with_skill(host);
    assert_eq!(offered_tools(&request), Vec::<String>::new());
    let shown = host.ok(&["--user", "admin", "runs", "show", &id]);
    assert!(shown.contains("`scripts/check.sh` changed"), "{shown}");

    // Approved again: back to normal.
    approve(host, &skills.folder());
    let (request, id) = run_with_skill(host);
    assert_eq!(offered_tools(&request), ["get_pagetree"]);
    assert!(system_prompt(&request).contains("page tree"));
    assert!(
        !host
            .ok(&["--user", "admin", "runs", "show", &id])
            .contains("notes:")
    );
}

pub fn an_unapproved_skill_is_refused_unless_the_setting_allows_it(host: &Host) {
    let _skills = Skills::new(host);
    let (request, id) = run_with_skill(host);
    assert_eq!(offered_tools(&request), Vec::<String>::new());
    assert!(!system_prompt(&request).contains(BODY));
    let shown = host.ok(&["--user", "admin", "runs", "show", &id]);
    assert!(
        shown.contains("skill `review` not trusted (not approved"),
        "{shown}"
    );

    // A trust floor above every configured skill does not drop a refused
    // one: dropped, it would have no opinion and the run would get every
    // tool.
    host.setting("skill_trust_floor", "5");
    let (request, _) = run_with_skill(host);
    assert_eq!(offered_tools(&request), Vec::<String>::new());
    host.setting("skill_trust_floor", "0");

    host.setting("unapproved_skills", "\"allow\"");
    let (request, id) = run_with_skill(host);
    assert_eq!(offered_tools(&request), ["get_pagetree"]);
    assert!(system_prompt(&request).contains(BODY));
    let shown = host.ok(&["--user", "admin", "runs", "show", &id]);
    assert!(
        shown.contains("skill `review` is not approved, used because"),
        "{shown}"
    );
}

pub fn approving_needs_an_administrator_and_a_valid_skill(host: &Host) {
    let skills = Skills::new(host);
    let folder = skills.folder();
    let folder = folder.to_str().unwrap();
    let (code, _, err) = host.run(&["--user", "clara", "skills", "approve", folder]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("needs an administrator"), "{err}");

    fs::write(skills.folder().join("SKILL.md"), "no front matter\n").unwrap();
    let (code, _, err) = host.run(&["--user", "admin", "skills", "approve", folder]);
    assert_eq!(code, 1, "{err}");
    assert!(err.starts_with("error: nothing was approved: "), "{err}");
    assert!(err.contains("[S001]"), "{err}");
    let listed = host.ok(&["--user", "admin", "skills", "approved"]);
    assert_eq!(listed.lines().count(), 1, "only the header: {listed}");
}
