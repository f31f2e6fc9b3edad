//! Standing approvals, through the real binary and the browser's routes:
//! one approval "and the rest of this run, for records of this kind"
//! applies a run's ten proposals to ten pages, each with a decision of its
//! own; a proposal of another kind still waits for a person; revoking
//! ends it; and where two approvers are required, no door gives one.
//!
//! The model is the scripted model on loopback (`support/scripted_model.rs`):
//! a prompt's `CALL tool {json}` lines are one response's calls.

mod mcp_support;
#[path = "support/scripted_model.rs"]
mod scripted_model;

use mcp_support::Host;
use mcp_support::pages::post_from_inbox;
use scripted_model::ScriptedModel;
use serde_json::json;

/// The pages the run retitles: ten records of one kind.
const PAGES: std::ops::RangeInclusive<u32> = 2..=11;

struct World {
    _runtime: tokio::runtime::Runtime,
    _model: ScriptedModel,
    host: Host,
}

impl World {
    fn new(tools: serde_json::Value) -> World {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let model = runtime.block_on(ScriptedModel::start());
        let host = Host::new();
        host.run(&[
            "--user",
            "admin",
            "settings",
            "set",
            "model",
            &model.setting(),
        ]);
        host.set_tools(tools);
        World {
            _runtime: runtime,
            _model: model,
            host,
        }
    }

    /// The ids of the pending proposals.
    fn pending(&self) -> Vec<String> {
        self.host
            .run(&["--user", "admin", "approvals", "list"])
            .lines()
            .skip(1)
            .filter_map(|line| line.split_whitespace().next())
            .map(str::to_owned)
            .collect()
    }

    /// `host-example --user USER ARGS…`, whatever its exit code:
    /// (success, stdout, stderr).
    fn cli(&self, user: &str, args: &[&str]) -> (bool, String, String) {
        let output = self
            .host
            .command(&["--user", user])
            .args(args)
            .output()
            .unwrap();
        (
            output.status.success(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    }

    /// Starts admin's run whose one response retitles every page of
    /// `pages`, then a file; waits for its first proposal.
    fn run_retitling(&self, pages: impl Iterator<Item = u32>) -> String {
        let mut prompt: Vec<String> = pages
            .map(|page| {
                format!(
                    r#"CALL update_page_metadata {{"page": {page}, "title": "Renamed {page}"}}"#
                )
            })
            .collect();
        prompt.push(
            r#"CALL set_file_alternative_text {"file": 1, "alternative": "A bike"}"#.to_owned(),
        );
        let (ok, out, err) = self.cli("admin", &["run", &prompt.join("\n")]);
        assert!(ok, "{err}");
        assert!(out.contains("waits for approval"), "{out}");
        let pending = self.pending();
        assert_eq!(pending.len(), 1, "{pending:?}");
        pending[0].clone()
    }
}

#[test]
fn one_standing_approval_for_a_kind_applies_ten_proposals_each_decided() {
    let world = World::new(json!({
        "update_page_metadata": {"state": "enabled"},
        "set_file_alternative_text": {"state": "enabled"},
    }));
    let first = world.run_retitling(PAGES);
    let (ok, out, err) = world.cli(
        "ops",
        &["approvals", "approve", &first, "--rest-of-run", "kind"],
    );
    assert!(ok, "{err}");
    assert!(out.contains("applied: written and verified"), "{out}");

    // Every page retitled, each by a decision of its own naming ops; the
    // run now waits on the file, which is not a page.
    let audit = world
        .host
        .run(&["--user", "admin", "audit", "tail", "-n", "200"]);
    // The table's columns: at, actor, kind, decision, tool, ….
    let rows: Vec<Vec<&str>> = audit
        .lines()
        .map(|line| {
            line.split("  ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .collect()
        })
        .collect();
    let count = |decision: &str| {
        rows.iter()
            .filter(|row| row.len() > 4 && row[1] == "ops" && row[3] == decision)
            .filter(|row| row[4] == "update_page_metadata")
            .count()
    };
    assert_eq!(count("approved"), PAGES.count(), "{audit}");
    assert_eq!(count("applied"), PAGES.count(), "{audit}");
    let by_standing = count("approved by standing approval");
    assert_eq!(by_standing, PAGES.count() - 1, "{audit}");
    let waiting = world.pending();
    assert_eq!(waiting.len(), 1, "{waiting:?}");
    let shown = world
        .host
        .run(&["--user", "admin", "approvals", "show", &waiting[0]]);
    assert!(shown.contains("set_file_alternative_text"), "{shown}");
    let decided = world
        .host
        .run(&["--user", "admin", "approvals", "show", &first]);
    assert!(decided.contains("approved by ops"), "{decided}");

    // Revoked by its approver: listed no more.
    let run = shown
        .lines()
        .find_map(|line| line.strip_prefix("run:"))
        .unwrap()
        .trim()
        .to_owned();
    let listed = world
        .host
        .run(&["--user", "admin", "approvals", "standing", &run]);
    let standing = listed
        .lines()
        .nth(1)
        .and_then(|line| line.split_whitespace().next())
        .unwrap_or_else(|| panic!("{listed}"))
        .to_owned();
    assert!(listed.contains("records of kind page"), "{listed}");
    // Someone who may not see the run may not list them either.
    let (ok, _, err) = world.cli("petra", &["approvals", "standing", &run]);
    assert!(!ok && err.contains("no run"), "{err}");
    let (ok, _, err) = world.cli("petra", &["approvals", "revoke-standing", &standing]);
    assert!(!ok, "only its approver or an administrator revokes it");
    assert!(err.contains("no standing approval"), "{err}");
    let (ok, _, err) = world.cli("ops", &["approvals", "revoke-standing", &standing]);
    assert!(ok, "{err}");
    let listed = world
        .host
        .run(&["--user", "admin", "approvals", "standing", &run]);
    assert!(!listed.contains(&standing), "{listed}");
}

#[test]
fn no_standing_approval_where_two_approvers_are_required_at_either_door() {
    let world = World::new(json!({
        "update_page_metadata": {"state": "enabled", "required": 2},
        "set_file_alternative_text": {"state": "enabled"},
    }));
    let first = world.run_retitling(2..=3);
    let rule = "this tool's changes need two approvers, so no standing approval can be given";
    let (ok, _, err) = world.cli(
        "ops",
        &["approvals", "approve", &first, "--rest-of-run", "kind"],
    );
    assert!(!ok);
    assert!(err.contains(rule), "{err}");

    let server = world.host.serve();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let notice = runtime.block_on(browser_standing(&server.base, "ops", &first));
    assert!(notice.contains(rule), "{notice}");
    // Nothing was decided or counted: it still needs two people.
    let shown = world
        .host
        .run(&["--user", "admin", "approvals", "show", &first]);
    assert!(shown.contains("needs:     0 of 2 approvals yet"), "{shown}");
}

/// Signs `user` in to the pages at `base` and asks for a standing approval
/// of `id` there; the notice the page then shows.
async fn browser_standing(base: &str, user: &str, id: &str) -> String {
    let path = format!("/approvals/{id}/approve-standing");
    let (inbox, page) = post_from_inbox(base, user, &path, "scope=kind").await;
    assert!(
        inbox.contains("approve-standing"),
        "no standing form: {inbox}"
    );
    page
}
