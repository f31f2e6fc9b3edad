//! Approved skills through the MCP Skills extension
//! (`io.modelcontextprotocol/skills`), against the real binary over HTTP
//! with a raw JSON-RPC client (the official clients read prompts, not
//! this extension): `skills/list` and `skills/get` give a skill's front
//! matter and the manifest of its files, `resources/read` the approved
//! bytes of each; a user not granted every tool the skill names is offered
//! nothing of it, and one byte changed takes the skill away from everyone
//! until it is approved again.

mod mcp_support;

use std::path::Path;

use mcp_support::Host;
use mcp_support::raw::Session;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// The Skills extension's id, as a client declares it.
const SKILLS: &str = "io.modelcontextprotocol/skills";

const TABLES: &str = "---\nname: table-report\ndescription: Lists the site's tables and their record counts. Use when asked about data.\nallowed-tools: list_tables\n---\nList the tables, then run `scripts/count.sh`.\n";
const SCRIPT: &[u8] = b"#!/bin/sh\necho counting\n";
const STATUS: &str = "---\nname: status-check\ndescription: Checks the system's status. Use when asked whether the site is healthy.\nallowed-tools: get_system_status\n---\nAsk for the system status.\n";

fn write(root: &Path, path: &str, bytes: &[u8]) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

fn digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let hex: String = hash.iter().map(|byte| format!("{byte:02x}")).collect();
    format!("sha256:{hex}")
}

fn names(answer: &Value) -> Vec<String> {
    answer["result"]["skills"]
        .as_array()
        .unwrap_or_else(|| panic!("{answer}"))
        .iter()
        .map(|skill| skill["frontmatter"]["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn approved_skills_are_served_with_their_files_to_users_granted_their_tools() {
    let host = Host::new();
    let skills = tempfile::tempdir().unwrap();
    write(skills.path(), "table-report/SKILL.md", TABLES.as_bytes());
    write(skills.path(), "table-report/scripts/count.sh", SCRIPT);
    write(skills.path(), "status-check/SKILL.md", STATUS.as_bytes());
    let dir = skills.path().to_str().unwrap();
    let folders = json!([dir]).to_string();
    host.run(&[
        "--user",
        "admin",
        "settings",
        "set",
        "skills_folders",
        &folders,
    ]);
    host.run(&["--user", "admin", "skills", "approve", dir]);
    let server = host.serve();
    let mut petra = Session::open(&server, &host.token("petra"), &[SKILLS]).await;
    let mut admin = Session::open(&server, &host.token("admin"), &[SKILLS]).await;

    // petra (an editor) is not granted get_system_status.
    let listed = petra.request("skills/list", json!({})).await;
    assert_eq!(names(&listed), ["table-report"]);
    let listed_for_admin = admin.request("skills/list", json!({})).await;
    assert_eq!(names(&listed_for_admin), ["status-check", "table-report"]);

    let skill = &listed["result"]["skills"][0];
    assert_eq!(skill["uri"], "skill://table-report/SKILL.md");
    // The front matter whole, as the SKILL.md holds it (the extension's
    // entry carries every field, `allowed-tools` included).
    assert_eq!(
        skill["frontmatter"],
        json!({
            "name": "table-report",
            "description": "Lists the site's tables and their record counts. Use when asked about data.",
            "allowed-tools": "list_tables",
        })
    );
    assert_eq!(
        skill["resources"],
        json!([
            {"uri": "skill://table-report/SKILL.md", "digest": digest(TABLES.as_bytes()), "size": TABLES.len()},
            {"uri": "skill://table-report/scripts/count.sh", "digest": digest(SCRIPT), "size": SCRIPT.len()},
        ])
    );
    let got = petra
        .request(
            "skills/get",
            json!({"uri": "skill://table-report/SKILL.md"}),
        )
        .await;
    assert_eq!(&got["result"]["skill"], skill, "{got}");

    // Each file's bytes, as approved.
    let read = petra
        .request(
            "resources/read",
            json!({"uri": "skill://table-report/scripts/count.sh"}),
        )
        .await;
    let contents = &read["result"]["contents"][0];
    assert_eq!(
        contents["text"].as_str().unwrap().as_bytes(),
        SCRIPT,
        "{read}"
    );
    let listed_resources = petra.request("resources/list", json!({})).await;
    assert_eq!(
        listed_resources["result"]["resources"][0]["uri"],
        "skill://table-report/SKILL.md"
    );

    // Not offered reads as not there, for a skill and for a file.
    let theirs = petra
        .request(
            "skills/get",
            json!({"uri": "skill://status-check/SKILL.md"}),
        )
        .await;
    let never = petra
        .request(
            "skills/get",
            json!({"uri": "skill://status-chekc/SKILL.md"}),
        )
        .await;
    let message = |answer: &Value| answer["error"]["message"].as_str().unwrap().to_owned();
    assert_eq!(
        message(&theirs).replace("status-check", "NAME"),
        message(&never).replace("status-chekc", "NAME")
    );
    let theirs = petra
        .request(
            "resources/read",
            json!({"uri": "skill://status-check/SKILL.md"}),
        )
        .await;
    assert_eq!(theirs["error"]["code"], -32002, "{theirs}");

    // One byte of the script changed: the skill is gone for everyone,
    // its files too, until it is approved again.
    write(
        skills.path(),
        "table-report/scripts/count.sh",
        b"#!/bin/sh\necho Counting\n",
    );
    assert!(names(&petra.request("skills/list", json!({})).await).is_empty());
    let read = petra
        .request(
            "resources/read",
            json!({"uri": "skill://table-report/scripts/count.sh"}),
        )
        .await;
    assert_eq!(read["error"]["code"], -32002, "{read}");
    assert_eq!(
        names(&admin.request("skills/list", json!({})).await),
        ["status-check"]
    );
    host.run(&["--user", "admin", "skills", "approve", dir]);
    assert_eq!(
        names(&petra.request("skills/list", json!({})).await),
        ["table-report"]
    );
}
