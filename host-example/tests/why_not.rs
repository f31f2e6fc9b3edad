//! Why a tool is not offered: `host-example tools --for USER` lists every
//! tool with the gate that refused it, from the core's denials, and what it
//! calls offered is exactly what USER's MCP client is offered.

mod mcp_support;

use mcp_support::{Driver, Host};
use serde_json::Value;

fn verdicts(host: &Host, viewer: &str, subject: &str) -> Vec<Value> {
    let out = host.run(&[
        "--user", viewer, "tools", "--for", subject, "--format", "json",
    ]);
    serde_json::from_str::<Vec<Value>>(&out).unwrap()
}

#[test]
fn tools_for_a_user_agree_with_their_mcp_client_and_name_each_refusing_gate() {
    let host = Host::new();
    let petra = verdicts(&host, "admin", "petra");
    let offered: Vec<String> = petra
        .iter()
        .filter(|v| v["offered"] == true)
        .map(|v| v["tool"].as_str().unwrap().to_owned())
        .collect();
    assert!(!offered.is_empty());
    // Every refused tool names its gate and says why.
    for refused in petra.iter().filter(|v| v["offered"] == false) {
        assert!(refused["gate"].is_string(), "{refused}");
        assert!(refused["reason"].as_str().unwrap().len() > 10, "{refused}");
    }
    let gate_of = |tool: &str| {
        petra.iter().find(|v| v["tool"] == tool).unwrap()["gate"]
            .as_str()
            .map(str::to_owned)
    };
    assert_eq!(gate_of("fetch_logs").as_deref(), Some("admin"));
    assert_eq!(gate_of("get_page_content").as_deref(), Some("trust_zone"));
    assert_eq!(gate_of("update_page_metadata").as_deref(), Some("enabled"));

    // What the command line calls offered is what petra's client lists.
    if let Some(mut client) = Driver::python_stdio("legacy", &host, "petra") {
        let mut listed = client.names();
        listed.sort();
        let mut offered = offered.clone();
        offered.sort();
        assert_eq!(listed, offered);
    }

    // Raising the trust zone changes the answer at once.
    host.run(&[
        "--user",
        "admin",
        "settings",
        "set",
        "trust_zone",
        r#""confidential""#,
    ]);
    let after = verdicts(&host, "admin", "petra");
    let page = after
        .iter()
        .find(|v| v["tool"] == "get_page_content")
        .unwrap();
    assert_eq!(page["offered"], true, "{page}");
}

#[test]
fn a_user_may_ask_for_themselves_and_only_an_administrator_for_others() {
    let host = Host::new();
    assert!(!verdicts(&host, "petra", "petra").is_empty());
    let output = host
        .command(&["--user", "petra", "tools", "--for", "admin"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with("error: ") && stderr.contains("administrator"),
        "{stderr}"
    );
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
}
