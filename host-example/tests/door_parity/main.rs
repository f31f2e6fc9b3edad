//! One rule, every door: the same scenarios through the command line (the
//! real binary, `--user` given), the browser routes (HTTP to a real
//! `host-example serve`, signed in with a session cookie and its CSRF
//! token) and MCP (the official Python client over stdio), each asserting
//! the same outcome. Where MCP offers no such action (deciding a proposal,
//! reading a run, changing a setting) its column asserts nothing new.
//!
//! The model behind runs is the scripted model on loopback
//! (`support/scripted_model.rs`): a prompt line `CALL tool {json}` makes
//! it call that tool, `SAY text` makes it answer.
//!
//! The MCP column needs the clients of `tests/mcp_clients/install.sh`: it
//! is skipped with a note when they are missing, and fails under `CI`.

#[path = "../mcp_support/mod.rs"]
mod mcp_support;
mod outcomes;
mod runs;
#[path = "../support/scripted_model.rs"]
mod scripted_model;

use std::collections::BTreeSet;
use std::process::Output;

use mcp_support::{Driver, Host, Served, is_error, text};
use scripted_model::ScriptedModel;
use serde_json::json;

/// Every writing tool switched on (they ship disabled).
const WRITE_TOOLS_ON: &str = r#"{"update_page_metadata": {"state": "enabled"}}"#;

/// A host with its database, its HTTP server and the scripted model.
struct World {
    runtime: tokio::runtime::Runtime,
    host: Host,
    served: Served,
    _model: ScriptedModel,
}

impl World {
    fn new() -> World {
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
        host.run(&[
            "--user",
            "admin",
            "settings",
            "set",
            "tools",
            WRITE_TOOLS_ON,
        ]);
        let served = host.serve();
        World {
            runtime,
            host,
            served,
            _model: model,
        }
    }

    /// The trust zone `confidential`, as an administrator sets it: what
    /// the `code` tools' data class needs.
    fn trust_confidential(&self) {
        self.host.run(&[
            "--user",
            "admin",
            "settings",
            "set",
            "trust_zone",
            "\"confidential\"",
        ]);
    }

    /// The command line as `user`, whatever its exit code.
    fn cli(&self, user: &str, args: &[&str]) -> Output {
        let mut command = self.host.command(&["--user", user]);
        command.args(args);
        command.output().unwrap()
    }

    /// The browser routes, signed in as `user`.
    fn browser(&self, user: &str) -> Browser<'_> {
        Browser::sign_in(&self.runtime, &self.served.base, user)
    }

    /// The Python MCP client over stdio as `user`; `None` (skipped) when it
    /// is not installed.
    fn mcp(&self, user: &str) -> Option<Driver> {
        Driver::python_stdio("legacy", &self.host, user)
    }

    /// The ids of the proposals waiting now.
    fn pending(&self) -> BTreeSet<String> {
        let listed = self.host.run(&["--user", "admin", "approvals", "list"]);
        listed
            .lines()
            .skip(1)
            .filter_map(|line| line.split_whitespace().next())
            .map(str::to_owned)
            .collect()
    }

    /// The one proposal that is pending now and was not in `before`.
    fn new_proposal(&self, before: &BTreeSet<String>) -> String {
        let now = self.pending();
        let new: Vec<_> = now.difference(before).cloned().collect();
        assert_eq!(new.len(), 1, "{before:?} -> {now:?}");
        new.into_iter().next().unwrap()
    }

    /// The newest audit entries' lines.
    fn audit(&self) -> Vec<String> {
        self.host
            .run(&["--user", "admin", "audit", "tail", "-n", "50"])
            .lines()
            .map(str::to_owned)
            .collect()
    }
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A browser's session on the host's pages: its cookie and CSRF token.
struct Browser<'w> {
    runtime: &'w tokio::runtime::Runtime,
    base: String,
    client: reqwest::Client,
    cookie: String,
    csrf: String,
}

/// What the server answered: the status, where it redirects, the body.
struct Answer {
    status: u16,
    location: Option<String>,
    body: String,
}

impl<'w> Browser<'w> {
    fn sign_in(runtime: &'w tokio::runtime::Runtime, base: &str, user: &str) -> Browser<'w> {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        let mut browser = Browser {
            runtime,
            base: base.to_owned(),
            client,
            cookie: String::new(),
            csrf: String::new(),
        };
        let form = browser.get("/signin");
        browser.csrf = csrf_in(&form.body);
        let signed_in = browser.post("/signin", &[("name", user), ("password", "demo")]);
        assert_eq!(signed_in.status, 303, "{}", signed_in.body);
        let page = browser.get("/approvals");
        assert_eq!(page.status, 200, "{}", page.body);
        browser.csrf = csrf_in(&page.body);
        browser
    }

    fn get(&mut self, path: &str) -> Answer {
        let request = self.client.get(format!("{}{path}", self.base));
        self.send(request)
    }

    /// A form post, with the session's CSRF token added.
    fn post(&mut self, path: &str, form: &[(&str, &str)]) -> Answer {
        let mut fields: Vec<(&str, &str)> = form.to_vec();
        let csrf = self.csrf.clone();
        fields.push(("csrf", &csrf));
        let body: Vec<String> = fields
            .iter()
            .map(|(name, value)| format!("{}={}", form_encoded(name), form_encoded(value)))
            .collect();
        let request = self
            .client
            .post(format!("{}{path}", self.base))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body.join("&"));
        self.send(request)
    }

    fn send(&mut self, request: reqwest::RequestBuilder) -> Answer {
        let request = if self.cookie.is_empty() {
            request
        } else {
            request.header("cookie", self.cookie.clone())
        };
        self.runtime.block_on(async {
            let response = request.send().await.unwrap();
            if let Some(set) = response.headers().get("set-cookie") {
                let set = set.to_str().unwrap();
                self.cookie = set.split(';').next().unwrap().to_owned();
            }
            let status = response.status().as_u16();
            let location = response
                .headers()
                .get("location")
                .map(|l| l.to_str().unwrap().to_owned());
            let body = response.text().await.unwrap();
            Answer {
                status,
                location,
                body,
            }
        })
    }

    /// The notice a redirect after a form leads to.
    fn notice_after(&mut self, answer: &Answer) -> String {
        assert_eq!(answer.status, 303, "{}", answer.body);
        let page = self.get(answer.location.as_deref().unwrap());
        // A success is a status; nothing written is an alert.
        between(&page.body, "role=\"status\">", "<")
            .or_else(|| between(&page.body, "role=\"alert\">", "<"))
            .unwrap_or_default()
    }

    /// The tools the playground lists as offered.
    fn offered(&mut self) -> BTreeSet<String> {
        let page = self.get("/playground");
        assert_eq!(page.status, 200, "{}", page.body);
        page.body
            .split("class=\"offered-tool\" data-tool=\"")
            .skip(1)
            .filter_map(|rest| rest.split('"').next())
            .map(str::to_owned)
            .collect()
    }

    /// Starts a run from the playground and waits until it is stored with
    /// an answer or a proposal: its row in the runs list.
    fn run(&mut self, prompt: &str) -> String {
        let rows = |runs: &str| -> Vec<(String, String)> {
            runs.split("<tr data-run=\"")
                .skip(1)
                .filter_map(|row| Some((row.split('"').next()?.to_owned(), row.to_owned())))
                .collect()
        };
        let before: BTreeSet<String> = rows(&self.get("/runs").body)
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        let started = self.post("/playground/run", &[("prompt", prompt)]);
        assert_eq!(started.status, 303, "{}", started.body);
        for _ in 0..600 {
            let new = rows(&self.get("/runs").body)
                .into_iter()
                .find(|(id, _)| !before.contains(id));
            if let Some((_, row)) = new
                && !row.contains("class=\"status\">running")
            {
                return row;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        panic!("the run did not end")
    }
}

/// `text` as a form field: unreserved bytes as they are, every other as
/// `%XX`.
fn form_encoded(text: &str) -> String {
    text.bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(byte).to_string()
            }
            _ => format!("%{byte:02X}"),
        })
        .collect()
}

fn csrf_in(body: &str) -> String {
    between(body, "name=\"csrf\" value=\"", "\"")
        .unwrap_or_else(|| panic!("no CSRF token in {body}"))
}

fn between(text: &str, start: &str, end: &str) -> Option<String> {
    let from = text.find(start)? + start.len();
    let to = text[from..].find(end)? + from;
    Some(text[from..to].to_owned())
}

#[test]
fn every_door_offers_each_user_the_same_tools() {
    let world = World::new();
    for user in ["admin", "petra"] {
        let listed = world.cli(user, &["tools", "--offered"]);
        assert!(listed.status.success(), "{}", stderr(&listed));
        let cli: BTreeSet<String> = stdout(&listed)
            .lines()
            .filter_map(|line| line.split_whitespace().nth(1))
            .map(str::to_owned)
            .collect();
        assert!(!cli.is_empty(), "{user}");
        assert_eq!(world.browser(user).offered(), cli, "{user}: browser");
        if let Some(mut client) = world.mcp(user) {
            let mcp: BTreeSet<String> = client.names().into_iter().collect();
            assert_eq!(mcp, cli, "{user}: MCP");
        }
    }
    // An administrator is offered what an editor is not.
    let admin = stdout(&world.cli("admin", &["tools", "--offered"]));
    let petra = stdout(&world.cli("petra", &["tools", "--offered"]));
    assert!(
        admin.lines().count() > petra.lines().count(),
        "{admin}\n{petra}"
    );
}

#[test]
fn a_code_tool_reads_the_demo_source_at_every_door() {
    let world = World::new();
    world.trust_confidential();
    let prompt = r#"CALL read_source {"path": "app/Cart.php", "start": 5, "count": 1}"#;
    // The source's fifth line.
    let source = "namespace Northwind";

    let ran = world.cli("admin", &["run", prompt]);
    assert!(ran.status.success(), "{}", stderr(&ran));
    assert!(stdout(&ran).contains(source), "{}", stdout(&ran));

    let row = world.browser("admin").run(prompt);
    assert!(row.contains(source), "{row}");

    if let Some(mut client) = world.mcp("admin") {
        let read = client.call(
            "read_source",
            json!({"path": "app/Cart.php", "start": 5, "count": 1}),
        );
        assert!(!is_error(&read), "{read}");
        assert!(text(&read).contains(source), "{read}");
    }
}

#[test]
fn a_tools_progress_is_shown_at_every_door() {
    let world = World::new();
    world.trust_confidential();
    let arguments = json!({"pattern": "namespace Northwind"});
    let prompt = format!("CALL search_code {arguments}");
    // search_code's last report counts every file it searched.
    let searched = "files searched";

    // The command line's run view: a line per report shown.
    let ran = world.cli("admin", &["run", &prompt]);
    assert!(ran.status.success(), "{}", stderr(&ran));
    let shown = stdout(&ran);
    let line = shown
        .lines()
        .find(|line| line.trim_start().starts_with("… search_code: "))
        .unwrap_or_else(|| panic!("no progress line in {shown}"));
    assert!(line.ends_with(searched), "{line}");

    // The playground's live inspector: a `tool_progress` step before the
    // call's result.
    let mut admin = world.browser("admin");
    let started = admin.post("/playground/run", &[("prompt", &prompt)]);
    assert_eq!(started.status, 303, "{}", started.body);
    let live = started.location.unwrap();
    let steps = admin.get(&format!("{live}/events")).body;
    let progress = steps.find("\"event\":\"tool_progress\"");
    let executed = steps.find("\"event\":\"tool_executed\"");
    assert!(
        progress.is_some() && progress < executed,
        "no progress before the result in {steps}"
    );
    assert!(steps.contains(searched), "{steps}");

    // An MCP client that asked for progress.
    if let Some(mut client) = world.mcp("admin") {
        let answer = client.send(json!({
            "op": "call_with_progress", "name": "search_code", "arguments": arguments
        }));
        assert!(!is_error(&answer["result"]), "{answer}");
        let reports = answer["progress"].as_array().unwrap();
        let last = reports.last().unwrap_or_else(|| panic!("{answer}"));
        assert_eq!(last["message"], searched, "{answer}");
    }
}

#[test]
fn proposals_need_a_reason_to_reject_and_are_approved_alike() {
    let world = World::new();
    // Each door retitles a page of its own under clara's "Service" (19),
    // so approving one leaves the others' records as they were proposed.
    let propose = |page: u32, title: &str| {
        format!(r#"CALL update_page_metadata {{"page": {page}, "title": "{title}"}}"#)
    };

    // A proposal from each door, each waiting.
    let before = world.pending();
    let ran = world.cli("clara", &["run", &propose(20, "From the command line")]);
    assert!(ran.status.success(), "{}", stderr(&ran));
    assert!(
        stdout(&ran).contains("waits for approval"),
        "{}",
        stdout(&ran)
    );
    let from_cli = world.new_proposal(&before);

    let before = world.pending();
    let row = world.browser("clara").run(&propose(21, "From the browser"));
    assert!(row.contains("suspended"), "{row}");
    let from_browser = world.new_proposal(&before);

    let from_mcp = world.mcp("clara").map(|mut client| {
        let before = world.pending();
        let result = client.call(
            "update_page_metadata",
            json!({"page": 22, "title": "From MCP"}),
        );
        assert_eq!(
            result["structuredContent"]["status"], "awaiting_approval",
            "{result}"
        );
        world.new_proposal(&before)
    });

    // A rejection without a reason decides nothing, at either door that
    // decides, in the same words.
    let refused = world.cli("admin", &["approvals", "reject", &from_cli]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        stderr(&refused).contains("a rejection needs a reason"),
        "{}",
        stderr(&refused)
    );
    let mut admin = world.browser("admin");
    let answer = admin.post(
        &format!("/approvals/{from_browser}/reject"),
        &[("reason", "  ")],
    );
    let notice = admin.notice_after(&answer);
    assert!(notice.contains("a rejection needs a reason"), "{notice}");
    let pending = world.pending();
    assert!(pending.contains(&from_cli) && pending.contains(&from_browser));

    // Approvals apply, whichever door decides.
    let approved = world.cli("admin", &["approvals", "approve", &from_cli]);
    assert!(approved.status.success(), "{}", stderr(&approved));
    assert!(stdout(&approved).contains("applied: written and verified"));
    let answer = admin.post(&format!("/approvals/{from_browser}/approve"), &[]);
    let notice = admin.notice_after(&answer);
    assert!(notice.contains("Approved and applied"), "{notice}");
    if let Some(from_mcp) = from_mcp {
        let approved = world.cli("admin", &["approvals", "approve", &from_mcp]);
        assert!(approved.status.success(), "{}", stderr(&approved));
    }
    assert!(world.pending().is_empty());
}

#[test]
fn nobody_sees_another_users_run_at_any_door() {
    let world = World::new();
    let ran = world.cli("admin", &["run", "SAY the admin's answer"]);
    assert!(ran.status.success(), "{}", stderr(&ran));
    let run = stdout(&ran)
        .split_whitespace()
        .find(|word| word.starts_with("run-"))
        .unwrap()
        .to_owned();

    // petra: as if it did not exist, like an id nobody has.
    for id in [run.as_str(), "run-0000000000000000"] {
        let shown = world.cli("petra", &["runs", "show", id]);
        assert_eq!(shown.status.code(), Some(1));
        assert!(
            stderr(&shown).contains(&format!("no run `{id}`")),
            "{}",
            stderr(&shown)
        );
        assert_eq!(
            world.browser("petra").get(&format!("/runs/{id}")).status,
            404
        );
    }
    assert!(!stdout(&world.cli("petra", &["runs", "list"])).contains(&run));
    assert!(!world.browser("petra").get("/runs").body.contains(&run));

    // admin sees it at both doors.
    assert!(world.cli("admin", &["runs", "show", &run]).status.success());
    let page = world.browser("admin").get(&format!("/runs/{run}"));
    assert_eq!(page.status, 200);
    assert!(
        page.body.contains("the admin&#39;s answer") || page.body.contains("the admin's answer")
    );
}

#[test]
fn an_editor_changing_a_setting_is_refused_and_audited_alike() {
    let world = World::new();
    let refused = world.cli("petra", &["settings", "set", "trust_zone", "\"personal\""]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        stderr(&refused).contains("needs an administrator, and `petra` is not one"),
        "{}",
        stderr(&refused)
    );
    let answer = world.browser("petra").post(
        "/tools/tool",
        &[("tool", "list_tables"), ("state", "disabled")],
    );
    assert_eq!(answer.status, 403, "{}", answer.body);

    // Nothing changed.
    let settings = world.host.run(&["--user", "admin", "settings", "show"]);
    assert!(settings.contains("trust_zone = \"internal\""), "{settings}");
    assert!(!settings.contains("list_tables"), "{settings}");
    // Two refusals in the trail, in the same words.
    let refusals: Vec<Vec<String>> = world
        .audit()
        .iter()
        .filter(|line| line.contains(" petra ") && line.contains(" refused "))
        // Everything but the time.
        .map(|line| line.split_whitespace().skip(1).map(str::to_owned).collect())
        .collect();
    assert_eq!(refusals.len(), 2, "{refusals:?}");
    assert_eq!(refusals[0], refusals[1]);
    assert!(refusals[0].contains(&"settings".to_owned()), "{refusals:?}");
}

#[test]
fn the_search_index_stands_the_same_at_the_command_line_and_on_the_tools_page() {
    let world = World::new();
    let status = world.cli("admin", &["index", "status"]);
    assert!(status.status.success(), "{}", stderr(&status));
    let text = stdout(&status);
    assert!(text.contains("answering backend:  tantivy"), "{text}");
    assert!(text.contains("public sources:     45"), "{text}");
    // `serve` built it at start; the page shows it as that process has it.
    let page = world.browser("admin").get("/tools");
    assert_eq!(page.status, 200, "{}", page.body);
    let section = between(&page.body, "id=\"search-index\"", "</section>").unwrap();
    assert!(
        section.contains("<dd class=\"answering\">tantivy</dd>"),
        "{section}"
    );
    assert!(section.contains("<dd>45</dd>"), "{section}");
    assert!(section.contains("index 0 of site 0"), "{section}");
}

/// A CLI run as clara proposing a new title for page 20 (her "Service"
/// subtree): the proposal's id.
fn clara_proposes(world: &World, title: &str) -> String {
    let before = world.pending();
    let prompt = format!(r#"CALL update_page_metadata {{"page": 20, "title": "{title}"}}"#);
    let ran = world.cli("clara", &["run", &prompt]);
    assert!(ran.status.success(), "{}", stderr(&ran));
    world.new_proposal(&before)
}

#[test]
fn an_approval_policy_of_others_refuses_the_requester_at_every_door_alike() {
    let world = World::new();
    world.host.set_tools(json!({
        "update_page_metadata": {"state": "enabled", "approvers": "others"}
    }));
    let id = clara_proposes(&world, "Four eyes");

    let refused = world.cli("clara", &["approvals", "approve", &id]);
    assert_eq!(refused.status.code(), Some(1));
    let from_cli = stderr(&refused);
    let rule = "this tool's changes need an approver other than the person who asked for them";
    assert!(from_cli.contains(rule), "{from_cli}");
    let mut clara = world.browser("clara");
    let answer = clara.post(&format!("/approvals/{id}/approve"), &[]);
    let from_browser = clara.notice_after(&answer);
    assert!(from_browser.contains(rule), "{from_browser}");
    assert!(world.pending().contains(&id));

    let approved = world.cli("admin", &["approvals", "approve", &id]);
    assert!(approved.status.success(), "{}", stderr(&approved));
    assert!(stdout(&approved).contains("applied: written and verified"));
}

#[test]
fn two_required_approvers_apply_only_after_a_second_different_person() {
    let world = World::new();
    world.host.set_tools(json!({
        "update_page_metadata": {"state": "enabled", "required": 2}
    }));
    let id = clara_proposes(&world, "Two pairs of eyes");

    // The first approval is recorded and applies nothing.
    let first = world.cli("admin", &["approvals", "approve", &id]);
    assert!(first.status.success(), "{}", stderr(&first));
    let waiting = "1 of 2 approvals: approved by admin; waiting for another person";
    assert!(stdout(&first).contains(waiting), "{}", stdout(&first));
    let shown = world
        .host
        .run(&["--user", "admin", "approvals", "show", &id]);
    assert!(shown.contains(&format!("needs:     {waiting}")), "{shown}");
    // The same person never counts twice, at either door.
    let mut admin = world.browser("admin");
    let again = admin.post(&format!("/approvals/{id}/approve"), &[]);
    let notice = admin.notice_after(&again);
    assert!(notice.contains(waiting), "{notice}");
    assert!(world.pending().contains(&id));

    // Withdrawn, the count starts over.
    let withdrawn = world.cli("admin", &["approvals", "withdraw", &id]);
    assert!(withdrawn.status.success(), "{}", stderr(&withdrawn));
    let shown = world
        .host
        .run(&["--user", "admin", "approvals", "show", &id]);
    assert!(shown.contains("needs:     0 of 2 approvals yet"), "{shown}");

    // An edit cannot be approved under four eyes: the second approver
    // would approve what the first never saw.
    let edit = admin.post(
        &format!("/approvals/{id}/edit/confirm"),
        &[("arguments", r#"{"page": 20, "title": "Edited"}"#)],
    );
    let notice = admin.notice_after(&edit);
    assert!(notice.contains("need two approvers"), "{notice}");

    // admin, then clara (the policy admits anyone): applied.
    let first = world.cli("admin", &["approvals", "approve", &id]);
    assert!(stdout(&first).contains(waiting), "{}", stdout(&first));
    let mut clara = world.browser("clara");
    let second = clara.post(&format!("/approvals/{id}/approve"), &[]);
    let notice = clara.notice_after(&second);
    assert!(notice.contains("Approved and applied"), "{notice}");
    assert!(!world.pending().contains(&id));
}

/// The reads only administrators may make (the user list, the settings,
/// the audit trail and its check, the skill approvals), which the command
/// line once served to anyone: refused to an editor at the command line
/// and in the browser, in the app's words, and served to an
/// administrator at both. (MCP offers none of them.)
#[test]
fn an_editor_is_refused_the_administrators_reads_at_every_door_alike() {
    let world = World::new();
    let refusal = "needs an administrator, and `petra` is not one";
    let reads: [(&[&str], Option<&str>); 5] = [
        (&["users", "list"], Some("/users")),
        (&["settings", "show"], Some("/settings/models")),
        (&["audit", "tail", "-n", "5"], Some("/audit")),
        (&["audit", "verify"], None),
        (&["skills", "approved"], Some("/skills")),
    ];
    for (args, page) in reads {
        let refused = world.cli("petra", args);
        assert_eq!(refused.status.code(), Some(1), "{args:?}");
        assert!(
            stderr(&refused).contains(refusal),
            "{args:?}: {}",
            stderr(&refused)
        );
        let served = world.cli("admin", args);
        assert!(served.status.success(), "{args:?}: {}", stderr(&served));
        if let Some(page) = page {
            let answer = world.browser("petra").get(page);
            assert_eq!(answer.status, 403, "{page}");
            assert!(answer.body.contains(refusal), "{page}: {}", answer.body);
            assert_eq!(world.browser("admin").get(page).status, 200, "{page}");
        }
    }
    // The pending proposals: each person sees those they may decide (an
    // administrator all), as in the inbox; an editor's own proposal is
    // shown to them, another's is missing.
    let id = clara_proposes(&world, "Parity of reads");
    assert!(stdout(&world.cli("admin", &["approvals", "list"])).contains(&id));
    let shown = world.cli("clara", &["approvals", "show", &id]);
    assert!(shown.status.success(), "{}", stderr(&shown));
    let hidden = world.cli("petra", &["approvals", "show", &id]);
    assert_eq!(hidden.status.code(), Some(1));
    assert!(
        stderr(&hidden).contains(&format!("no proposal `{id}`")),
        "{}",
        stderr(&hidden)
    );
}
