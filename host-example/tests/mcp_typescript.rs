//! The official TypeScript SDK (pinned in tests/mcp_clients) against the
//! real binary over stdio (`host-example mcp --user NAME`) on a fresh
//! SQLite database. SDK 1.x speaks 2025-11-25 with `initialize`.

mod mcp_support;

use mcp_support::{Driver, Host, common_checks, propose};
use serde_json::json;

fn client(host: &Host, user: &str) -> Option<Driver> {
    let command = host.mcp_command(user);
    Driver::typescript(&command.iter().map(String::as_str).collect::<Vec<_>>())
}

#[tokio::test]
async fn stdio_serves_each_user_their_grant() {
    let host = Host::new();
    host.set_tools(json!({"update_page_metadata": {"state": "enabled"}}));
    let Some(mut clara) = client(&host, "clara") else {
        return;
    };
    common_checks(&mut clara, "clara", &host.granted("clara").await);
    let id = propose(&mut clara, "Repairs and servicing");
    let pending = host.run(&["--user", "admin", "audit", "tail", "-n", "20"]);
    assert!(pending.contains(&format!("proposal {id}")), "{pending}");
    assert!(
        pending.contains("host-example-typescript-test/1.0.0"),
        "{pending}"
    );

    let admin_tools = client(&host, "admin").unwrap().names();
    let petra_tools = client(&host, "petra").unwrap().names();
    assert_eq!(admin_tools, host.granted("admin").await);
    assert_eq!(petra_tools, host.granted("petra").await);
    assert!(admin_tools.iter().any(|t| t == "get_system_status"));
    assert!(!petra_tools.iter().any(|t| t == "get_system_status"));
}
