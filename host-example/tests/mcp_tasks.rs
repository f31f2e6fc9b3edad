//! Approvals as MCP tasks (the `io.modelcontextprotocol/tasks` extension),
//! against the real binary over HTTP with a raw JSON-RPC client: the
//! official Python and TypeScript clients do not speak the extension yet.
//!
//! A write call from a client that declares the extension returns a task
//! that stays `working` while a person decides in the browser or on the
//! command line, then ends `completed` with the applied result, `failed`
//! with the rejection, or `cancelled` when the caller withdrew it; a
//! restart of the host in between changes nothing, since the task is the
//! stored proposal. Another user's poll is answered as for an id never
//! issued, and a client without the extension keeps the plain answer.

mod mcp_support;

use mcp_support::Host;
use mcp_support::pages::post_from_inbox;
use mcp_support::raw::Session;
use serde_json::{Value, json};

/// The tasks extension's id, as a client declares it.
const TASKS: &str = "io.modelcontextprotocol/tasks";

/// `update_page_metadata` on page 20: the answer's `result`.
async fn propose(session: &mut Session, title: &str) -> Value {
    let arguments = json!({"page": 20, "title": title});
    let answer = session
        .request(
            "tools/call",
            json!({"name": "update_page_metadata", "arguments": arguments}),
        )
        .await;
    answer["result"].clone()
}

async fn task(session: &mut Session, id: &str) -> Value {
    session.request("tasks/get", json!({"taskId": id})).await
}

/// Signs `user` in to the pages at `base` and approves proposal `id` there,
/// as the inbox's button does; the notice the page then shows.
async fn approve_in_browser(base: &str, user: &str, id: &str) -> String {
    let path = format!("/approvals/{id}/approve");
    post_from_inbox(base, user, &path, "").await.1
}

/// A fresh host with the write tool the tests propose with switched on
/// (write tools ship disabled).
fn host_with_write_tool() -> Host {
    let host = Host::new();
    host.set_tools(json!({"update_page_metadata": {"state": "enabled"}}));
    host
}

/// The task a write call returned: its id, after checking its shape.
fn task_id(result: &Value, title: &str) -> String {
    assert_eq!(result["resultType"], "task", "{result}");
    assert_eq!(result["status"], "working", "{result}");
    let message = result["statusMessage"].as_str().unwrap();
    assert!(
        message.contains("awaiting a person's approval"),
        "{message}"
    );
    assert!(
        message.contains(&format!("title → \"{title}\"")),
        "{message}"
    );
    // The words for the approver quote the page's title, which a person
    // wrote: the caller is not shown them.
    assert!(!message.contains("page 20 \""), "{message}");
    result["taskId"].as_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_write_call_is_a_task_that_ends_with_what_a_person_decided() {
    let host = host_with_write_tool();
    let server = host.serve();
    let clara = host.token("clara");
    let mut session = Session::open(&server, &clara, &[TASKS]).await;

    // Approved in the browser: completed, with the applied result.
    let result = propose(&mut session, "Bikes and more").await;
    let approved = task_id(&result, "Bikes and more");
    let waiting = task(&mut session, &approved).await;
    assert_eq!(waiting["result"]["status"], "working", "{waiting}");
    assert!(waiting["result"]["pollIntervalMs"].is_u64(), "{waiting}");
    let notice = approve_in_browser(&server.base, "admin", &approved).await;
    assert!(notice.contains("Approved and applied"), "{notice}");
    let done = task(&mut session, &approved).await;
    assert_eq!(done["result"]["status"], "completed", "{done}");
    let result = &done["result"]["result"];
    assert_ne!(result["isError"], true, "{done}");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("written and verified"), "{done}");

    // Rejected on the command line: failed, with the reason.
    let result = propose(&mut session, "Bikes, rejected").await;
    let rejected = task_id(&result, "Bikes, rejected");
    host.run(&[
        "--user",
        "admin",
        "approvals",
        "reject",
        &rejected,
        "--reason",
        "not this week",
    ]);
    let failed = task(&mut session, &rejected).await;
    assert_eq!(failed["result"]["status"], "failed", "{failed}");
    let error = failed["result"]["error"]["message"].as_str().unwrap();
    assert_eq!(error, "rejected by admin: not this week", "{failed}");

    // Withdrawn by the caller: cancelled, and nobody can approve it after.
    let result = propose(&mut session, "Bikes, withdrawn").await;
    let withdrawn = task_id(&result, "Bikes, withdrawn");
    let ack = session
        .request("tasks/cancel", json!({"taskId": withdrawn}))
        .await;
    assert!(ack.get("error").is_none(), "{ack}");
    let cancelled = task(&mut session, &withdrawn).await;
    assert_eq!(cancelled["result"]["status"], "cancelled", "{cancelled}");
    let late = host
        .command(&["--user", "admin", "approvals", "approve", &withdrawn])
        .output()
        .unwrap();
    assert!(!late.status.success());
    assert!(String::from_utf8_lossy(&late.stderr).contains("already decided"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_task_outlives_a_restart_of_the_host() {
    let host = host_with_write_tool();
    let clara = host.token("clara");
    let server = host.serve();
    let mut session = Session::open(&server, &clara, &[TASKS]).await;
    let result = propose(&mut session, "Bikes after a restart").await;
    let id = task_id(&result, "Bikes after a restart");
    drop(session);
    // SIGKILL: nothing is flushed or said goodbye to.
    drop(server);

    let server = host.serve();
    let mut session = Session::open(&server, &clara, &[TASKS]).await;
    let waiting = task(&mut session, &id).await;
    assert_eq!(waiting["result"]["status"], "working", "{waiting}");
    let notice = approve_in_browser(&server.base, "admin", &id).await;
    assert!(notice.contains("Approved and applied"), "{notice}");
    drop(session);
    drop(server);

    let server = host.serve();
    let mut session = Session::open(&server, &clara, &[TASKS]).await;
    let done = task(&mut session, &id).await;
    assert_eq!(done["result"]["status"], "completed", "{done}");
}

#[tokio::test(flavor = "multi_thread")]
async fn only_the_caller_sees_their_task_and_other_clients_keep_the_plain_answer() {
    let host = host_with_write_tool();
    let server = host.serve();
    let mut clara = Session::open(&server, &host.token("clara"), &[TASKS]).await;
    let result = propose(&mut clara, "Bikes, clara's").await;
    let id = task_id(&result, "Bikes, clara's");

    // Another user, even an administrator, is told what an id never
    // issued is told.
    let mut admin = Session::open(&server, &host.token("admin"), &[TASKS]).await;
    let theirs = task(&mut admin, &id).await;
    let never = task(&mut admin, "no-such-task").await;
    let message = |answer: &Value| answer["error"]["message"].as_str().unwrap().to_owned();
    assert_eq!(
        message(&theirs).replace(&id, "ID"),
        message(&never).replace("no-such-task", "ID")
    );
    assert_eq!(theirs["error"]["code"], never["error"]["code"]);
    let cancel = admin.request("tasks/cancel", json!({"taskId": id})).await;
    assert!(cancel.get("error").is_some(), "{cancel}");
    assert_eq!(task(&mut clara, &id).await["result"]["status"], "working");

    // A client that did not declare the extension: today's answer.
    let mut plain = Session::open(&server, &host.token("clara"), &[]).await;
    let result = propose(&mut plain, "Bikes, plainly").await;
    assert_eq!(
        result["structuredContent"]["status"], "awaiting_approval",
        "{result}"
    );
    assert!(result.get("taskId").is_none(), "{result}");
    let refused = task(&mut plain, &id).await;
    assert!(refused.get("error").is_some(), "{refused}");
}
