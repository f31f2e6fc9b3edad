//! The host end to end: the real binary, a fake model server speaking the
//! Chat Completions wire format, and one database (a SQLite file, and a
//! PostgreSQL database when `HOST_TEST_POSTGRES_URL` names a server) shared
//! by several host processes.

#[path = "../store/backends.rs"]
mod backends;
mod budgets;
mod fake_model;
mod recovery;
mod skill_approval;

use std::process::{Command, Output};

use backends::TestDb;
use budgets::a_daily_budget_stops_the_run_that_would_cross_it;
use fake_model::{FakeModel, answering, calling};
use host_example::store::{AuditKind, Store};
use recovery::{
    a_live_lease_is_left_and_expired_work_is_recovered,
    a_run_left_resuming_after_an_unapplied_approval_is_given_back,
};
use serde_json::{Value, json};
use site_model::{PageId, Pages};
use skill_approval::{
    a_changed_skill_allows_no_tools_until_approved_again,
    an_unapproved_skill_is_refused_unless_the_setting_allows_it,
    approving_needs_an_administrator_and_a_valid_skill,
};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// One test database and the binary pointed at it.
struct Host {
    db: TestDb,
}

impl Host {
    fn sqlite() -> Host {
        Host {
            db: TestDb::sqlite(),
        }
    }

    fn postgres() -> Option<Host> {
        runtime().block_on(TestDb::postgres()).map(|db| Host { db })
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_host-example"));
        command
            .env_remove("HOST_DATABASE_URL")
            .env_remove("HOST_USER")
            .arg("--database")
            .arg(&self.db.url)
            .args(args);
        command
    }

    /// Runs the binary; (exit code, stdout, stderr).
    fn run(&self, args: &[&str]) -> (i32, String, String) {
        split(self.command(args).output().unwrap())
    }

    /// Runs the binary and expects success.
    fn ok(&self, args: &[&str]) -> String {
        let (code, out, err) = self.run(args);
        assert_eq!(code, 0, "{args:?}\nstdout: {out}\nstderr: {err}");
        out
    }

    fn setting(&self, key: &str, value: &str) {
        self.ok(&["--user", "admin", "settings", "set", key, value]);
    }

    fn store(&self) -> (tokio::runtime::Runtime, Store) {
        let rt = runtime();
        let store = rt.block_on(Store::open(&self.db.url)).unwrap();
        (rt, store)
    }

    fn page_title(&self, page: u64) -> String {
        let (rt, store) = self.store();
        rt.block_on(store.site().page(PageId(page)))
            .unwrap()
            .title
            .for_host()
            .clone()
    }

    /// The only pending proposal's id.
    fn pending_id(&self) -> String {
        let out = self.ok(&["--user", "admin", "approvals", "list"]);
        let rows: Vec<&str> = out.lines().skip(1).collect();
        assert_eq!(rows.len(), 1, "{out}");
        rows[0].split_whitespace().next().unwrap().to_owned()
    }
}

fn split(output: Output) -> (i32, String, String) {
    (
        output.status.code().unwrap(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

/// One line on stderr, starting with `error:`.
fn assert_one_line_error(stderr: &str) {
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
}

const ENABLE_EDITING: &str = r#"{"update_page_metadata": {"state": "enabled"}}"#;
const DISABLE_EDITING: &str = r#"{"update_page_metadata": {"state": "disabled"}}"#;
const NEW_TITLE: &str = "Bikes and parts";

fn propose_title() -> Value {
    calling(&[(
        "call-w",
        "update_page_metadata",
        json!({"page": 2, "title": NEW_TITLE}),
    )])
}

/// A run by admin that proposes a new title for page 2; returns the
/// proposal's id.
fn suspended_run(host: &Host, model: &FakeModel) -> String {
    host.setting("model", &model.setting());
    host.setting("tools", ENABLE_EDITING);
    let out = host.ok(&["run", "Rename page 2", "--user", "admin"]);
    assert!(out.contains("waits for approval of proposal"), "{out}");
    assert!(
        out.contains(&format!("title: \"Products\" → \"{NEW_TITLE}\"")),
        "{out}"
    );
    assert!(out.contains("host-example approvals approve"), "{out}");
    host.pending_id()
}

// Every test runs against both backends.
macro_rules! both {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[test]
                fn $name() {
                    super::$name(&super::Host::sqlite());
                }
            )*
        }
        mod postgres {
            $(
                #[test]
                fn $name() {
                    if let Some(host) = super::Host::postgres() {
                        super::$name(&host);
                    }
                }
            )*
        }
    };
}

both!(
    first_start_seeds_the_demo_site,
    a_run_calls_two_read_tools_and_answers,
    a_proposal_approved_from_a_second_process_is_written,
    a_rejected_proposal_tells_the_model_why,
    a_tool_disabled_before_approval_is_refused,
    two_processes_approving_at_once_apply_once,
    an_unreachable_model_fails_the_run_and_changes_nothing,
    a_corrupt_setting_is_one_line_and_changes_nothing,
    a_changed_skill_allows_no_tools_until_approved_again,
    an_unapproved_skill_is_refused_unless_the_setting_allows_it,
    approving_needs_an_administrator_and_a_valid_skill,
    a_daily_budget_stops_the_run_that_would_cross_it,
    a_live_lease_is_left_and_expired_work_is_recovered,
    a_run_left_resuming_after_an_unapplied_approval_is_given_back,
);

fn first_start_seeds_the_demo_site(host: &Host) {
    let out = host.ok(&["--user", "admin", "runs", "list"]);
    assert_eq!(out.lines().count(), 1, "only the header: {out}");
    assert_eq!(host.page_title(2), "Products");
    assert_eq!(
        host.ok(&["--user", "admin", "approvals", "list"])
            .lines()
            .count(),
        1
    );
}

fn a_run_calls_two_read_tools_and_answers(host: &Host) {
    let model = FakeModel::start([
        calling(&[
            ("call-1", "get_pagetree", json!({})),
            ("call-2", "list_tables", json!({})),
        ]),
        answering("The site has pages and tables."),
    ]);
    host.setting("model", &model.setting());
    let out = host.ok(&["run", "What is on the site?", "--user", "admin"]);
    assert!(out.contains("round 1"), "{out}");
    assert!(out.contains("→ get_pagetree {}"), "{out}");
    assert!(out.contains("→ list_tables {}"), "{out}");
    assert!(out.contains("The site has pages and tables."), "{out}");
    assert!(out.contains("2 rounds, 24 tokens in, 14 out"), "{out}");

    // The second request carried both results.
    let seen = model.seen();
    assert_eq!(seen.len(), 2);
    let tool_messages: Vec<&Value> = seen[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .collect();
    assert_eq!(tool_messages.len(), 2, "{}", seen[1]);

    let list = host.ok(&["--user", "admin", "runs", "list"]);
    let row: Vec<&str> = list.lines().nth(1).unwrap().split_whitespace().collect();
    assert_eq!(
        (row[1], row[2], row[4]),
        ("admin", "completed", "2"),
        "{list}"
    );
    let shown = host.ok(&["--user", "admin", "runs", "show", row[0]]);
    assert!(shown.contains("status:  completed"), "{shown}");
    assert!(shown.contains("get_pagetree {}: ok"), "{shown}");
    assert!(
        shown.contains("finished: completed after 2 rounds"),
        "{shown}"
    );

    // Each call: the gate's decision and the call, with actor and run.
    let (rt, store) = host.store();
    let audit = rt.block_on(store.audit_log().audit_tail(50)).unwrap();
    for tool in ["get_pagetree", "list_tables"] {
        for (kind, decision) in [(AuditKind::Gate, "allowed"), (AuditKind::Call, "ok")] {
            assert!(
                audit.iter().any(|e| e.kind == kind
                    && e.decision == decision
                    && e.tool.as_deref() == Some(tool)
                    && e.actor == "admin"
                    && e.run.as_deref() == Some(row[0])
                    && e.at > 0),
                "{tool} {decision}: {audit:#?}"
            );
        }
    }
}

fn a_proposal_approved_from_a_second_process_is_written(host: &Host) {
    let model = FakeModel::start([propose_title(), answering("Renamed.")]);
    let id = suspended_run(host, &model);
    assert_eq!(host.page_title(2), "Products", "nothing written yet");
    let shown = host.ok(&["--user", "admin", "approvals", "show", &id]);
    assert!(shown.contains("status:    pending"), "{shown}");
    assert!(shown.contains("requester: admin"), "{shown}");

    // Another process approves, applies and finishes the run.
    let out = host.ok(&["approvals", "approve", &id, "--user", "ops"]);
    assert!(out.contains("applied:"), "{out}");
    assert!(out.contains("Renamed."), "{out}");
    assert_eq!(host.page_title(2), NEW_TITLE);
    let list = host.ok(&["--user", "admin", "runs", "list"]);
    assert!(list.contains("completed"), "{list}");

    // Once decided, always decided.
    let (code, _, err) = host.run(&["approvals", "approve", &id, "--user", "admin"]);
    assert_eq!(code, 1);
    assert_one_line_error(&err);
    assert!(err.contains("already decided (approved by ops)"), "{err}");

    let (rt, store) = host.store();
    let audit = rt.block_on(store.audit_log().audit_tail(50)).unwrap();
    let by_ops = |decision: &str| {
        audit.iter().any(|e| {
            e.kind == AuditKind::Write
                && e.decision == decision
                && e.actor == "ops"
                && e.tool.as_deref() == Some("update_page_metadata")
                && e.run.is_some()
        })
    };
    assert!(by_ops("approved") && by_ops("applied"), "{audit:#?}");
}

fn a_rejected_proposal_tells_the_model_why(host: &Host) {
    let model = FakeModel::start([propose_title(), answering("Left as it is.")]);
    let id = suspended_run(host, &model);
    let out = host.ok(&[
        "approvals",
        "reject",
        &id,
        "--user",
        "ops",
        "--reason",
        "keep the old title",
    ]);
    assert!(out.contains("Left as it is."), "{out}");
    assert_eq!(host.page_title(2), "Products");
    let seen = model.seen();
    let last = seen.last().unwrap()["messages"].as_array().unwrap().clone();
    let tool = last.iter().rev().find(|m| m["role"] == "tool").unwrap();
    let content = tool["content"].as_str().unwrap();
    assert!(
        content.contains("rejected") && content.contains("keep the old title"),
        "{content}"
    );
    let (code, _, err) = host.run(&["approvals", "approve", &id, "--user", "ops"]);
    assert_eq!(code, 1);
    assert!(err.contains("already decided (rejected by ops)"), "{err}");
}

fn a_tool_disabled_before_approval_is_refused(host: &Host) {
    let model = FakeModel::start([propose_title(), answering("unused")]);
    let id = suspended_run(host, &model);
    host.setting("tools", DISABLE_EDITING);
    let (code, out, err) = host.run(&["approvals", "approve", &id, "--user", "ops"]);
    assert_eq!(code, 1, "{out}");
    assert_one_line_error(&err);
    assert!(err.contains("the approval was refused"), "{err}");
    assert_eq!(host.page_title(2), "Products");
    assert_eq!(model.seen().len(), 1, "the model was not asked again");
    // Still pending, the run still waiting: nothing was decided.
    assert_eq!(host.pending_id(), id);
    assert!(
        host.ok(&["--user", "admin", "runs", "list"])
            .contains("suspended")
    );
    let (rt, store) = host.store();
    let audit = rt.block_on(store.audit_log().audit_tail(50)).unwrap();
    assert!(
        audit
            .iter()
            .any(|e| e.kind == AuditKind::Gate && e.decision == "denied" && e.actor == "ops"),
        "{audit:#?}"
    );
}

fn two_processes_approving_at_once_apply_once(host: &Host) {
    let model = FakeModel::start([propose_title(), answering("Renamed.")]);
    let id = suspended_run(host, &model);
    let children: Vec<_> = ["ops", "admin"]
        .iter()
        .map(|user| {
            host.command(&["approvals", "approve", &id, "--user", user])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let results: Vec<_> = children
        .into_iter()
        .map(|child| split(child.wait_with_output().unwrap()))
        .collect();
    let winners: Vec<_> = results.iter().filter(|(code, ..)| *code == 0).collect();
    let losers: Vec<_> = results.iter().filter(|(code, ..)| *code == 1).collect();
    assert_eq!((winners.len(), losers.len()), (1, 1), "{results:#?}");
    assert_one_line_error(&losers[0].2);
    assert!(
        losers[0].2.contains("already decided (approved by"),
        "{results:#?}"
    );
    assert_eq!(host.page_title(2), NEW_TITLE);
    assert_eq!(model.seen().len(), 2, "the run was continued once");
    let (rt, store) = host.store();
    let audit = rt.block_on(store.audit_log().audit_tail(100)).unwrap();
    let applied = audit.iter().filter(|e| e.decision == "applied").count();
    assert_eq!(applied, 1, "{audit:#?}");
}

fn an_unreachable_model_fails_the_run_and_changes_nothing(host: &Host) {
    host.setting(
        "model",
        r#"{"base_url": "http://127.0.0.1:9/v1", "model": "fake", "max_retries": 0}"#,
    );
    let (rt, store) = host.store();
    let before = rt.block_on(store.site().dump()).unwrap();
    let (code, _, err) = host.run(&["run", "hello", "--user", "admin"]);
    assert_eq!(code, 1);
    assert_one_line_error(&err);
    assert!(err.contains("could not be reached"), "{err}");
    assert_eq!(rt.block_on(store.site().dump()).unwrap(), before);
    // The run is kept, failed, with its conversation.
    let runs = rt.block_on(store.run_log().runs(10)).unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].status, host_example::store::RunPhase::Failed);
    let run = rt
        .block_on(store.run_log().run(&runs[0].id))
        .unwrap()
        .unwrap();
    assert!(run.conversation.is_some_and(|c| c.len() == 2));
}

fn a_corrupt_setting_is_one_line_and_changes_nothing(host: &Host) {
    let model = FakeModel::start([answering("unused")]);
    host.setting("model", &model.setting());
    let (rt, store) = host.store();
    rt.block_on(
        sqlx::query("UPDATE settings SET value = $1 WHERE key = 'model'")
            .bind("{\"base_url\": 7")
            .execute(store.pool()),
    )
    .unwrap();
    let (code, _, err) = host.run(&["run", "hello", "--user", "admin"]);
    assert_eq!(code, 1);
    assert_one_line_error(&err);
    assert!(err.contains("setting `model`"), "{err}");
    assert!(rt.block_on(store.run_log().runs(10)).unwrap().is_empty());
    assert!(model.seen().is_empty());
}

#[test]
fn a_bad_database_url_is_one_line() {
    let dir = tempfile::tempdir().unwrap();
    for url in [
        "mysql://localhost/host".to_owned(),
        "postgres://nobody@127.0.0.1:9/host".to_owned(),
        format!("sqlite://{}/missing/dir/host.db", dir.path().display()),
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_host-example"))
            .args(["--database", &url, "run", "hello", "--user", "admin"])
            .output()
            .unwrap();
        let (code, out, err) = split(output);
        assert_eq!(code, 1, "{url}: {out}");
        assert_one_line_error(&err);
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn a_run_without_a_user_or_model_is_refused() {
    let host = Host::sqlite();
    let (code, _, err) = host.run(&["run", "hello"]);
    assert_eq!(code, 1);
    assert!(err.contains("--user"), "{err}");
    let (code, _, err) = host.run(&["run", "hello", "--user", "admin"]);
    assert_eq!(code, 1);
    assert_one_line_error(&err);
    assert!(err.contains("no model is configured"), "{err}");
    let (code, _, err) = host.run(&["run", "hello", "--user", "nobody"]);
    assert_eq!(code, 1);
    assert!(err.contains("no user `nobody`"), "{err}");
}
