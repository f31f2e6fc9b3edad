//! Approved skills reach MCP clients as prompts, through the official
//! Python client over HTTP: a user is offered a skill only when the gates
//! grant them every tool its `allowed-tools` names; a skill with no
//! `allowed-tools`, or never approved, is offered to nobody; changing one
//! byte of an approved skill takes it away until it is approved again, and
//! a listening client is told (`notifications/prompts/list_changed`), on
//! a 2026-07-28 subscription and on a 2025-11-25 session alike.

mod mcp_support;

use std::path::Path;
use std::sync::Arc;

use host_example::serve::{self, HostState};
use host_example::web::WebState;
use mcp_support::{Demo, Driver};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

const TABLES: &str = "---\nname: table-report\ndescription: Lists the site's tables and their record counts. Use when asked about data.\nallowed-tools: list_tables\n---\nList the tables, then count the records of each.\n";
const STATUS: &str = "---\nname: status-check\ndescription: Checks the system's status. Use when asked whether the site is healthy.\nallowed-tools: get_system_status list_tables\n---\nAsk for the system status and report anything not ok.\n";
const OPEN: &str = "---\nname: open-ended\ndescription: Answers questions about the site. Use for any question.\n---\nAnswer the question.\n";

fn skill(root: &Path, name: &str, text: &str) {
    std::fs::create_dir_all(root.join(name)).unwrap();
    std::fs::write(root.join(name).join("SKILL.md"), text).unwrap();
}

fn names(answer: &Value) -> Vec<&str> {
    answer["prompts"]
        .as_array()
        .unwrap_or_else(|| panic!("{answer}"))
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect()
}

/// Waits for `client` to be told its prompts changed (a tools change
/// announced meanwhile is passed over).
fn told_prompts_changed(client: &mut Driver) {
    loop {
        let change = client.send(json!({"op": "wait_list_changed"}));
        assert_eq!(change["list_changed"], true, "no prompts/list_changed");
        if change["kind"] == "prompts" {
            return;
        }
    }
}

#[test]
fn approved_skills_are_prompts_for_users_granted_all_their_tools() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let demo = runtime.block_on(Demo::new());
    let skills = tempfile::tempdir().unwrap();
    skill(skills.path(), "table-report", TABLES);
    skill(skills.path(), "status-check", STATUS);
    skill(skills.path(), "open-ended", OPEN);
    skill(
        skills.path(),
        "unapproved",
        &TABLES.replace("table-report", "unapproved"),
    );
    let folders = json!([skills.path()]).to_string();
    let approve = |names: &[&str]| {
        let dirs: Vec<_> = names.iter().map(|n| skills.path().join(n)).collect();
        runtime
            .block_on(demo.host.skills().approve_skills("admin", &dirs))
            .unwrap();
    };
    runtime
        .block_on(
            demo.host
                .admin()
                .set_setting("admin", "skills_folders", &folders),
        )
        .unwrap();
    approve(&["table-report", "status-check", "open-ended"]);

    let state = HostState {
        host: Arc::clone(&demo.host),
        web: WebState::new(Arc::clone(&demo.host)),
    };
    let router = serve::router(&state, CancellationToken::new());
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    runtime.spawn(async move { axum::serve(listener, router).await });

    let Some(mut petra) = Driver::python(&["http", "auto", &url, demo.token("petra")]) else {
        return;
    };
    let mut admin = Driver::python(&["http", "auto", &url, demo.token("admin")]).unwrap();
    let mut listening = [
        Driver::python(&["http", "auto", &url, demo.token("petra")]).unwrap(),
        Driver::python(&["http", "legacy", &url, demo.token("petra")]).unwrap(),
    ];
    for client in &mut listening {
        assert_eq!(client.send(json!({"op": "listen"}))["listening"], true);
    }
    // petra (an editor) is not granted get_system_status; nobody is
    // offered a skill that names no tools or was never approved.
    assert_eq!(
        names(&petra.send(json!({"op": "prompts"}))),
        ["table-report"]
    );
    assert_eq!(
        names(&admin.send(json!({"op": "prompts"}))),
        ["status-check", "table-report"]
    );

    let prompt = petra.send(json!({"op": "get_prompt", "name": "table-report"}));
    assert_eq!(
        prompt["description"],
        "Lists the site's tables and their record counts. Use when asked about data."
    );
    assert_eq!(prompt["messages"][0]["role"], "user");
    assert_eq!(
        prompt["messages"][0]["content"]["text"],
        "List the tables, then count the records of each.\n"
    );
    // Not offered answers like not there.
    let refused = petra.send(json!({"op": "get_prompt", "name": "status-check"}));
    let missing = petra.send(json!({"op": "get_prompt", "name": "status-chekc"}));
    assert_eq!(
        refused["error"]
            .as_str()
            .unwrap()
            .replace("status-check", "NAME"),
        missing["error"]
            .as_str()
            .unwrap()
            .replace("status-chekc", "NAME"),
    );

    // One byte changed: gone for everyone until approved again.
    skill(
        skills.path(),
        "table-report",
        &TABLES.replace("each.", "each!"),
    );
    for client in &mut listening {
        told_prompts_changed(client);
    }
    assert!(names(&petra.send(json!({"op": "prompts"}))).is_empty());
    assert_eq!(
        names(&admin.send(json!({"op": "prompts"}))),
        ["status-check"]
    );
    assert!(petra.send(json!({"op": "get_prompt", "name": "table-report"}))["error"].is_string());
    approve(&["table-report"]);
    for client in &mut listening {
        told_prompts_changed(client);
    }
    assert_eq!(
        names(&petra.send(json!({"op": "prompts"}))),
        ["table-report"]
    );
}
