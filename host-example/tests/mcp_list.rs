//! `tools/list` answers from a listing built once per grant: the next list
//! after a settings change shows the new grant (a tool switched off, a
//! group switched off, both switched on again), page by page, also for a
//! cursor handed out before the change. Raw JSON-RPC over an in-memory
//! pipe to the real server, three-tool pages so the grant spans several.

mod mcp_support;

use std::sync::Arc;

use host_example::mcp::{self, McpServer, MemoryBackend, Store as _};
use mcp_support::{actor, backend};
use rmcp::ServiceExt as _;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio_util::sync::CancellationToken;
use tool_core::gates::{GroupSettings, Toggle};

const PAGE: usize = 3;

#[derive(Debug, Clone, Copy)]
enum Transport {
    Stdio,
    Rmcp,
}

struct Client {
    write: DuplexStream,
    read: BufReader<DuplexStream>,
    next_id: u64,
}

impl Client {
    /// A session of `petra` on a server listing [`PAGE`] tools a page:
    /// stdio's (pages written from their JSON), or the handler on rmcp's
    /// own transport (pages serialized by rmcp, as over HTTP).
    async fn start(backend: &Arc<MemoryBackend>, transport: Transport) -> Client {
        let (write, server_read) = tokio::io::duplex(1 << 16);
        let (server_write, read) = tokio::io::duplex(1 << 16);
        let backend = Arc::clone(backend);
        match transport {
            Transport::Stdio => {
                tokio::spawn(mcp::serve_io_with_page_size(
                    backend,
                    actor("petra"),
                    PAGE,
                    server_read,
                    server_write,
                ));
            }
            Transport::Rmcp => {
                let server = McpServer::for_user(backend, actor("petra"), CancellationToken::new())
                    .with_page_size(PAGE);
                tokio::spawn(async move {
                    let running = server.serve((server_read, server_write)).await.unwrap();
                    running.waiting().await
                });
            }
        }
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
        let answer = self.request("tools/list", params).await;
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

    /// Every page, following the cursors.
    async fn names(&mut self) -> Vec<String> {
        let (mut names, mut cursor) = self.page(None).await;
        while let Some(after) = cursor {
            let (more, next) = self.page(Some(&after)).await;
            assert!(more.len() <= PAGE);
            names.extend(more);
            cursor = next;
        }
        names
    }
}

async fn granted(backend: &MemoryBackend) -> Vec<String> {
    let grant = backend.grant(&actor("petra")).await.unwrap();
    grant.tool_names().map(str::to_owned).collect()
}

#[tokio::test]
async fn stdio_lists_the_new_grant_after_a_change() {
    the_next_list_after_a_change_shows_the_new_grant(Transport::Stdio).await;
}

#[tokio::test]
async fn rmcp_serialized_lists_show_the_new_grant_after_a_change() {
    the_next_list_after_a_change_shows_the_new_grant(Transport::Rmcp).await;
}

async fn the_next_list_after_a_change_shows_the_new_grant(transport: Transport) {
    let backend = backend();
    let mut client = Client::start(&backend, transport).await;
    let before = client.names().await;
    assert_eq!(before, granted(&backend).await);
    assert!(before.len() > 2 * PAGE, "{before:?}");
    assert!(before.iter().any(|name| name == "list_tables"));
    // Listed again from the same listing: the same answer.
    assert_eq!(client.names().await, before);

    // A tool switched off.
    let (_, old_cursor) = client.page(None).await;
    backend
        .set_tool_state("list_tables", Toggle::Disabled)
        .await
        .unwrap();
    let after = client.names().await;
    assert_eq!(after, granted(&backend).await);
    assert!(!after.iter().any(|name| name == "list_tables"), "{after:?}");
    assert_eq!(after.len(), before.len() - 1);
    // A cursor from before the change pages through the new grant.
    let (rest, _) = client.page(old_cursor.as_deref()).await;
    assert!(!rest.contains(&"list_tables".to_owned()), "{rest:?}");
    assert!(rest.iter().all(|name| after.contains(name)), "{rest:?}");

    // A group switched off.
    let files: Vec<String> = before
        .iter()
        .filter(|name| backend.registry().get(name).unwrap().declaration().group == "files")
        .cloned()
        .collect();
    assert!(!files.is_empty());
    let mut host = backend.store().settings().await.unwrap().host.clone();
    host.groups.insert(
        "files".into(),
        GroupSettings {
            state: Toggle::Disabled,
            ..GroupSettings::default()
        },
    );
    backend.set_settings(host.clone()).await.unwrap();
    let without_files = client.names().await;
    assert_eq!(without_files, granted(&backend).await);
    assert!(
        without_files.iter().all(|name| !files.contains(name)),
        "{without_files:?}"
    );

    // Both on again: the first list is back.
    host.groups.remove("files");
    host.tools.remove("list_tables");
    backend.set_settings(host).await.unwrap();
    assert_eq!(client.names().await, before);
}
