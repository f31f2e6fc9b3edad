//! What deciding came to, told alike at every door: an approval that
//! writes nothing (stale, expired) is `Not applied: WHY` at the command
//! line (a failure), in the browser (an alert) and in the MCP task; a
//! proposal gate 9 held says why at each; every unknown address gets the
//! host's own page.

use serde_json::json;

use super::mcp_support::raw::Session;
use super::{World, between, clara_proposes, stderr, stdout};

/// The text after `Not applied: ` in `said`, up to the end of its line
/// or sentence.
fn not_applied_why(said: &str) -> String {
    let why = said
        .split("Not applied: ")
        .nth(1)
        .unwrap_or_else(|| panic!("not told as not applied: {said}"));
    let why = why.lines().next().unwrap_or_default();
    // The browser goes on with how the run went on.
    let why = why.split(". It was one call").next().unwrap();
    why.split(". The run ").next().unwrap().to_owned()
}

#[test]
fn an_approval_that_writes_nothing_is_told_so_alike_at_every_door() {
    let world = World::new();
    // Three proposals for page 20, one from each door, all made stale by a
    // fourth applied first.
    let from_cli = clara_proposes(&world, "Stale from the command line");
    let before = world.pending();
    let row = world
        .browser("clara")
        .run(r#"CALL update_page_metadata {"page": 20, "title": "Stale from the browser"}"#);
    assert!(row.contains("suspended"), "{row}");
    let from_browser = world.new_proposal(&before);
    let clara = world.host.token("clara");
    let mut session = world.runtime.block_on(Session::open(
        &world.served,
        &clara,
        &["io.modelcontextprotocol/tasks"],
    ));
    let arguments = json!({"page": 20, "title": "Stale from MCP"});
    let answer = world.runtime.block_on(session.request(
        "tools/call",
        json!({"name": "update_page_metadata", "arguments": arguments}),
    ));
    let from_mcp = answer["result"]["taskId"].as_str().unwrap().to_owned();
    let fresh = clara_proposes(&world, "Fresh");
    let applied = world.cli("admin", &["approvals", "approve", &fresh]);
    assert!(applied.status.success(), "{}", stderr(&applied));

    // The command line: a failure, in the words every door uses.
    let refused = world.cli("admin", &["approvals", "approve", &from_cli]);
    assert_eq!(refused.status.code(), Some(1), "{}", stdout(&refused));
    let why = not_applied_why(&stderr(&refused));
    assert!(!stdout(&refused).contains("applied: written"));
    let shown = world
        .host
        .run(&["--user", "admin", "approvals", "show", &from_cli]);
    assert!(shown.contains(&format!("Not applied: {why}")), "{shown}");
    // The browser: the same words, as an alert, and the decided table
    // says it.
    let mut admin = world.browser("admin");
    let answer = admin.post(&format!("/approvals/{from_browser}/approve"), &[]);
    let notice = admin.notice_after(&answer);
    assert!(notice.starts_with("Not applied: "), "{notice}");
    assert_eq!(not_applied_why(&notice), why);
    let inbox = admin.get("/approvals").body;
    let decided = between(
        &inbox,
        &format!("data-proposal=\"{from_browser}\""),
        "</tr>",
    )
    .unwrap();
    assert!(decided.contains("not applied"), "{decided}");
    // MCP: the caller's task ends with the same words, as an error.
    let approved = world.cli("admin", &["approvals", "approve", &from_mcp]);
    assert_eq!(not_applied_why(&stderr(&approved)), why);
    let task = world
        .runtime
        .block_on(session.request("tasks/get", json!({"taskId": from_mcp})));
    let message = task["result"]["statusMessage"].as_str().unwrap();
    assert_eq!(message, format!("Not applied: {why}"), "{task}");
}

#[test]
fn a_proposal_held_after_untrusted_content_says_why_at_every_door() {
    let world = World::new();
    let read_then_write = |title: &str| {
        format!(
            "CALL get_pagetree {{\"root\": 19}}\nCALL update_page_metadata {{\"page\": 20, \"title\": \"{title}\"}}"
        )
    };
    let before = world.pending();
    let ran = world.cli("clara", &["run", &read_then_write("Held")]);
    assert!(ran.status.success(), "{}", stderr(&ran));
    let id = world.new_proposal(&before);
    let shown = world
        .host
        .run(&["--user", "admin", "approvals", "show", &id]);
    let held = shown
        .lines()
        .find_map(|line| line.strip_prefix("held:"))
        .unwrap_or_else(|| panic!("not said to be held: {shown}"))
        .trim()
        .to_owned();
    assert!(held.contains("untrusted content"), "{held}");
    assert!(held.contains("get_pagetree"), "{held}");
    let card = world.browser("admin").get("/approvals").body;
    let shown = between(&card, "class=\"held\">", "<").unwrap_or_default();
    assert_eq!(shown.replace("&#96;", "`"), held);

    // A single call after an untrusted read: the caller's task says it too.
    let clara = world.host.token("clara");
    let mut session = world.runtime.block_on(Session::open(
        &world.served,
        &clara,
        &["io.modelcontextprotocol/tasks"],
    ));
    let call =
        |name: &str, arguments: serde_json::Value| json!({"name": name, "arguments": arguments});
    let read = call("get_pagetree", json!({"root": 19}));
    world.runtime.block_on(session.request("tools/call", read));
    let write = call(
        "update_page_metadata",
        json!({"page": 21, "title": "Held too"}),
    );
    let answer = world.runtime.block_on(session.request("tools/call", write));
    let task = answer["result"]["taskId"].as_str().unwrap().to_owned();
    let polled = world
        .runtime
        .block_on(session.request("tasks/get", json!({"taskId": task})));
    let message = polled["result"]["statusMessage"].as_str().unwrap();
    assert!(
        message.contains("held for an approver other than its requester: it was proposed after untrusted content entered the run through `get_pagetree`"),
        "{message}"
    );
}

#[test]
fn an_unknown_address_gets_the_hosts_own_page_with_its_navigation() {
    let world = World::new();
    let mut admin = world.browser("admin");
    let lost = admin.get("/no/such/page");
    assert_eq!(lost.status, 404);
    assert!(
        lost.body.contains("There is no page at this address"),
        "{}",
        lost.body
    );
    assert!(lost.body.contains("href=\"/approvals\""), "{}", lost.body);
    assert!(lost.body.contains("<nav"), "{}", lost.body);
}

/// Makes every pending proposal as old as the epoch: past any lifetime.
fn age_every_proposal(world: &World) {
    world.runtime.block_on(async {
        let store = host_example::store::Store::open(&world.host.url)
            .await
            .unwrap();
        sqlx::query(
            "UPDATE proposals SET data = json_set(data, '$.created_at', 1), created_at = 1
             WHERE status = 'pending'",
        )
        .execute(store.pool())
        .await
        .unwrap();
    });
}

#[test]
fn approving_an_expired_proposal_is_told_not_applied_alike_at_every_door() {
    let world = World::new();
    let from_cli = clara_proposes(&world, "Too late from the command line");
    let from_browser = clara_proposes(&world, "Too late from the browser");
    let clara = world.host.token("clara");
    let mut session = world.runtime.block_on(Session::open(
        &world.served,
        &clara,
        &["io.modelcontextprotocol/tasks"],
    ));
    let arguments = json!({"page": 21, "title": "Too late from MCP"});
    let answer = world.runtime.block_on(session.request(
        "tools/call",
        json!({"name": "update_page_metadata", "arguments": arguments}),
    ));
    let from_mcp = answer["result"]["taskId"].as_str().unwrap().to_owned();
    age_every_proposal(&world);

    let expired =
        "the proposal expired before it was approved (nobody decided in time); nothing was written";
    let refused = world.cli("admin", &["approvals", "approve", &from_cli]);
    assert_eq!(refused.status.code(), Some(1), "{}", stdout(&refused));
    assert_eq!(not_applied_why(&stderr(&refused)), expired);
    assert!(
        !stdout(&refused).contains("approved by"),
        "{}",
        stdout(&refused)
    );
    let shown = world
        .host
        .run(&["--user", "admin", "approvals", "show", &from_cli]);
    assert!(shown.contains("status:    expired"), "{shown}");
    let mut admin = world.browser("admin");
    let answer = admin.post(&format!("/approvals/{from_browser}/approve"), &[]);
    let notice = admin.notice_after(&answer);
    assert_eq!(not_applied_why(&notice), expired, "{notice}");
    // The caller's task: expired, nobody decided in time, nothing written.
    let task = world
        .runtime
        .block_on(session.request("tasks/get", json!({"taskId": from_mcp})));
    assert_eq!(task["result"]["status"], "failed", "{task}");
    let message = task["result"]["statusMessage"].as_str().unwrap();
    assert!(
        message.contains("nobody decided in time; nothing was written"),
        "{task}"
    );
    let late = world.cli("admin", &["approvals", "approve", &from_mcp]);
    assert!(
        stderr(&late).contains("already decided (expired)"),
        "{}",
        stderr(&late)
    );
}

/// A live run follows the rule of every run: its user and the
/// administrators watch it; another editor finds no such run, as with an
/// id nobody has.
#[test]
fn an_administrator_watches_another_users_live_run_and_an_editor_does_not() {
    let world = World::new();
    let mut petra = world.browser("petra");
    let started = petra.post("/playground/run", &[("prompt", "SAY petra's answer")]);
    assert_eq!(started.status, 303, "{}", started.body);
    let live = started.location.unwrap();
    let events = format!("{live}/events");

    let own = petra.get(&events);
    assert_eq!(own.status, 200, "{}", own.body);
    let watched = world.browser("admin").get(&events);
    assert_eq!(watched.status, 200, "{}", watched.body);
    assert_eq!(
        watched.body, own.body,
        "the administrator sees the same steps"
    );
    assert!(watched.body.contains("petra"), "{}", watched.body);

    let mut clara = world.browser("clara");
    for path in [
        events.clone(),
        "/playground/live/00000000/events".to_owned(),
    ] {
        let refused = clara.get(&path);
        assert_eq!(refused.status, 404, "{path}: {}", refused.body);
    }
}
