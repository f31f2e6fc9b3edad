//! The official TypeScript SDK (pinned in tests/mcp_clients) against the
//! example server over stdio. SDK 1.x speaks 2025-11-25 with `initialize`.

mod mcp_support;

use mcp_support::{Driver, common_checks, granted, propose};

fn client(user: &str) -> Option<Driver> {
    let server = mcp_support::server_binary();
    Driver::typescript(&[server.to_str().unwrap(), "stdio", "--user", user])
}

#[tokio::test]
async fn stdio_serves_each_user_their_grant() {
    let Some(mut clara) = client("clara") else {
        return;
    };
    common_checks(&mut clara, "clara", &granted("clara").await);
    propose(&mut clara, "Repairs and servicing");

    let admin_tools = client("admin").unwrap().names();
    let petra_tools = client("petra").unwrap().names();
    assert_eq!(admin_tools, granted("admin").await);
    assert_eq!(petra_tools, granted("petra").await);
    assert!(admin_tools.iter().any(|t| t == "get_system_status"));
    assert!(!petra_tools.iter().any(|t| t == "get_system_status"));
}
