//! `tools/list` answers from a listing built once per grant: the next list
//! after a settings change shows the new grant (a tool switched off, a
//! group switched off, both switched on again), page by page, also for a
//! cursor handed out before the change; calls and lists sent together are
//! all answered. Raw JSON-RPC over an in-memory pipe to the real stdio
//! server, three-tool pages so the grant spans several.

mod mcp_support;

use std::sync::Arc;

use host_example::{Host, mcp};
use mcp_support::{Demo, actor};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tool_core::gates::{GroupSettings, Toggle};

const PAGE: usize = 3;

struct Client {
    write: DuplexStream,
    read: BufReader<DuplexStream>,
    next_id: u64,
}

impl Client {
    /// An initialized session of `petra` on the stdio server listing
    /// [`PAGE`] tools a page.
    async fn start(host: &Arc<Host>) -> Client {
        let (write, server_read) = tokio::io::duplex(1 << 16);
        let (server_write, read) = tokio::io::duplex(1 << 16);
        tokio::spawn(mcp::serve_io_with_page_size(
            Arc::clone(host),
            actor("petra"),
            PAGE,
            server_read,
            server_write,
        ));
        let mut client = Client {
            write,
            read: BufReader::new(read),
            next_id: 1,
        };
        let answer = client
            .request(
                "initialize",
                json!({
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "0"}
                }),
            )
            .await;
        assert_eq!(answer["result"]["protocolVersion"], "2025-11-25");
        client
            .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        client
    }

    async fn send(&mut self, message: Value) {
        let line = format!("{message}\n");
        self.write.write_all(line.as_bytes()).await.unwrap();
    }

    /// Sends a request and returns its answer (notifications on the way
    /// are skipped).
    async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        self.answer(id).await
    }

    /// The answer to request `id` (other lines on the way are skipped).
    async fn answer(&mut self, id: u64) -> Value {
        loop {
            let mut line = String::new();
            assert!(self.read.read_line(&mut line).await.unwrap() > 0);
            let answer: Value = serde_json::from_str(&line).unwrap();
            if answer["id"] == id {
                return answer;
            }
        }
    }

    /// One page: its tool names and its cursor.
    async fn page(&mut self, cursor: Option<&str>) -> (Vec<String>, Option<String>) {
        let params = match cursor {
            Some(cursor) => json!({"cursor": cursor}),
            None => json!({}),
        };
        names_and_cursor(&self.request("tools/list", params).await)
    }

    /// Every page, following the cursors.
    async fn names(&mut self) -> Vec<String> {
        let (mut names, mut cursor) = self.page(None).await;
        while let Some(after) = cursor {
            let (more, next) = self.page(Some(&after)).await;
            assert!(more.len() <= PAGE);
            // A cursor that does not move on would page forever.
            assert!(next.as_ref() != Some(&after), "{after} repeated");
            names.extend(more);
            cursor = next;
        }
        names
    }
}

/// A list answer's tool names and cursor.
fn names_and_cursor(answer: &Value) -> (Vec<String>, Option<String>) {
    let result = &answer["result"];
    assert_eq!(result["ttlMs"], 0, "{answer}");
    assert_eq!(result["cacheScope"], "private", "{answer}");
    let names = result["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{answer}"))
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect();
    let cursor = result["nextCursor"].as_str().map(str::to_owned);
    (names, cursor)
}

#[tokio::test]
async fn the_next_list_after_a_change_shows_the_new_grant() {
    let demo = Demo::new().await;
    let host = &demo.host;
    let mut client = Client::start(host).await;
    let before = client.names().await;
    assert_eq!(before, demo.granted("petra").await);
    assert!(before.len() > 2 * PAGE, "{before:?}");
    assert!(before.iter().any(|name| name == "list_tables"));
    // Listed again from the same listing: the same answer.
    assert_eq!(client.names().await, before);

    // A tool switched off.
    let (_, old_cursor) = client.page(None).await;
    host.admin()
        .switch_tool("admin", "list_tables", Toggle::Disabled)
        .await
        .unwrap();
    let after = client.names().await;
    assert_eq!(after, demo.granted("petra").await);
    assert!(!after.iter().any(|name| name == "list_tables"), "{after:?}");
    assert_eq!(after.len(), before.len() - 1);
    // A cursor from before the change pages through the new grant.
    let (rest, _) = client.page(old_cursor.as_deref()).await;
    assert!(!rest.contains(&"list_tables".to_owned()), "{rest:?}");
    assert!(rest.iter().all(|name| after.contains(name)), "{rest:?}");

    // A group switched off.
    let files: Vec<String> = before
        .iter()
        .filter(|name| host.registry().get(name).unwrap().declaration().group == "files")
        .cloned()
        .collect();
    assert!(!files.is_empty());
    let egress = GroupSettings::default().egress;
    host.admin()
        .switch_group("admin", "files", Toggle::Disabled, egress)
        .await
        .unwrap();
    let without_files = client.names().await;
    assert_eq!(without_files, demo.granted("petra").await);
    assert!(
        without_files.iter().all(|name| !files.contains(name)),
        "{without_files:?}"
    );

    // Both on again: the first list is back.
    host.admin()
        .switch_group("admin", "files", Toggle::Enabled, egress)
        .await
        .unwrap();
    host.admin()
        .switch_tool("admin", "list_tables", Toggle::Enabled)
        .await
        .unwrap();
    assert_eq!(client.names().await, before);
}

#[tokio::test]
async fn calls_and_lists_interleaved_all_answered() {
    let demo = Demo::new().await;
    let granted = demo.granted("petra").await;
    let mut client = Client::start(&demo.host).await;
    // Calls and lists in one write, none awaited.
    let mut burst = String::new();
    for id in 10..30 {
        let message = if id % 2 == 0 {
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                   "params": {"name": "list_tables", "arguments": {}}})
        } else {
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/list",
                   "params": {"cursor": granted[PAGE - 1]}})
        };
        burst.push_str(&format!("{message}\n"));
    }
    client.write.write_all(burst.as_bytes()).await.unwrap();
    let mut answered = std::collections::BTreeMap::new();
    while answered.len() < 20 {
        let mut line = String::new();
        assert!(client.read.read_line(&mut line).await.unwrap() > 0);
        let answer: Value = serde_json::from_str(&line).unwrap();
        let Some(id) = answer["id"].as_u64() else {
            continue;
        };
        assert!(answered.insert(id, answer).is_none(), "{id} twice");
    }
    for (id, answer) in answered {
        if id % 2 == 0 {
            assert_eq!(answer["result"]["isError"], false, "{answer}");
        } else {
            assert_eq!(names_and_cursor(&answer).0, granted[PAGE..2 * PAGE]);
        }
    }
}
