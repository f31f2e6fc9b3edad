//! `tools/list` answers from a listing built once per grant: the next list
//! after a settings change shows the new grant (a tool switched off, a
//! group switched off, both switched on again), page by page, also for a
//! cursor handed out before the change. Over stdio, which requests the
//! host answers before rmcp (a plain list of an initialized session, on a
//! page boundary) and which it leaves to rmcp, with the same answers.
//! Raw JSON-RPC over an in-memory pipe to the real server, three-tool
//! pages so the grant spans several.

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
        let mut client = Client::initialize(backend, transport).await;
        client
            .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        client
    }

    /// [`Client::start`] up to the `initialize` answer: the session is not
    /// initialized yet.
    async fn initialize(backend: &Arc<MemoryBackend>, transport: Transport) -> Client {
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
    }

    async fn send(&mut self, message: Value) {
        let line = format!("{message}\n");
        self.write.write_all(line.as_bytes()).await.unwrap();
    }

    /// Sends a request and returns its answer (notifications on the way
    /// are skipped).
    async fn request(&mut self, method: &str, params: Value) -> Value {
        self.request_line(method, params).await.0
    }

    /// [`Client::request`], and who wrote the answer.
    async fn request_line(&mut self, method: &str, params: Value) -> (Value, Writer) {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        self.answer(id).await
    }

    /// The answer to request `id` (other lines on the way are skipped).
    async fn answer(&mut self, id: u64) -> (Value, Writer) {
        loop {
            let mut line = String::new();
            assert!(self.read.read_line(&mut line).await.unwrap() > 0);
            let answer: Value = serde_json::from_str(&line).unwrap();
            if answer["id"] == id {
                return (answer, Writer::of(&line));
            }
        }
    }

    /// One page: its tool names and its cursor.
    async fn page(&mut self, cursor: Option<&str>) -> (Vec<String>, Option<String>) {
        let (names, cursor, _) = self.page_by(cursor).await;
        (names, cursor)
    }

    /// [`Client::page`], and who wrote it.
    async fn page_by(&mut self, cursor: Option<&str>) -> (Vec<String>, Option<String>, Writer) {
        let params = match cursor {
            Some(cursor) => json!({"cursor": cursor}),
            None => json!({}),
        };
        let (answer, writer) = self.request_line("tools/list", params).await;
        let (names, cursor) = names_and_cursor(&answer);
        (names, cursor, writer)
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

/// Who wrote an answer, told by its first member: rmcp writes the id
/// before the result, the host's stdio reader (answering a plain
/// `tools/list` from its kept line) after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Writer {
    Rmcp,
    BeforeRmcp,
}

impl Writer {
    fn of(line: &str) -> Writer {
        if line.starts_with(r#"{"jsonrpc":"2.0","id":"#) {
            Writer::Rmcp
        } else if line.starts_with(r#"{"jsonrpc":"2.0","result":"#) {
            Writer::BeforeRmcp
        } else {
            panic!("an answer of neither shape: {line}")
        }
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

#[tokio::test]
async fn stdio_answers_plain_lists_before_rmcp_once_initialized() {
    let backend = backend();
    let granted = granted(&backend).await;
    let mut client = Client::initialize(&backend, Transport::Stdio).await;

    // Before `notifications/initialized`: rmcp answers.
    let (first, writer) = client.request_line("tools/list", json!({})).await;
    assert_eq!(writer, Writer::Rmcp);
    assert_eq!(names_and_cursor(&first).0, granted[..PAGE]);

    // `initialized` and a list in one write: the list is looked at only
    // after rmcp read `initialized`, so the host answers it.
    let list = json!({"jsonrpc": "2.0", "id": 100, "method": "tools/list"});
    let both = format!(
        "{}\n{list}\n",
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    );
    client.write.write_all(both.as_bytes()).await.unwrap();
    let (answer, writer) = client.answer(100).await;
    assert_eq!(writer, Writer::BeforeRmcp);
    assert_eq!(answer["result"], first["result"]);

    // Every page on its cursor, twice (the kept line made again per page).
    for _ in 0..2 {
        let (mut names, mut cursor, writer) = client.page_by(None).await;
        assert_eq!(writer, Writer::BeforeRmcp);
        while let Some(after) = cursor {
            let (more, next, writer) = client.page_by(Some(&after)).await;
            assert!(next.as_ref() != Some(&after), "{after} repeated");
            assert_eq!(writer, Writer::BeforeRmcp, "after {after}");
            names.extend(more);
            cursor = next;
        }
        assert_eq!(names, granted);
    }

    // The same request with `_meta`, or with its params written out long:
    // rmcp's, with the same answer.
    let (with_meta, writer) = client
        .request_line("tools/list", json!({"_meta": {"progressToken": 5}}))
        .await;
    assert_eq!(writer, Writer::Rmcp);
    assert_eq!(with_meta["result"], first["result"]);
    let id = 200;
    let long = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list","params":{{{}}}}}"#,
        " ".repeat(5000)
    );
    client
        .write
        .write_all(format!("{long}\n").as_bytes())
        .await
        .unwrap();
    let (answer, writer) = client.answer(id).await;
    assert_eq!(writer, Writer::Rmcp);
    assert_eq!(answer["result"], first["result"]);

    // A cursor on no page boundary: rmcp's page after it.
    let (names, _, writer) = client.page_by(Some(&granted[0])).await;
    assert_eq!(writer, Writer::Rmcp);
    assert_eq!(names, granted[1..=PAGE]);
    // A cursor past every name: rmcp's empty page.
    let (names, cursor, writer) = client.page_by(Some("~")).await;
    assert_eq!((names.len(), cursor, writer), (0, None, Writer::Rmcp));

    // A cursor that is no string: whatever rmcp makes of it (today it
    // reads the params as absent: the first page).
    let (odd, writer) = client
        .request_line("tools/list", json!({"cursor": 7}))
        .await;
    assert_eq!(writer, Writer::Rmcp);
    assert_eq!(odd["result"], first["result"]);
    let (_, _, writer) = client.page_by(None).await;
    assert_eq!(writer, Writer::BeforeRmcp);
}

#[tokio::test]
async fn stdio_calls_and_lists_interleaved_all_answered() {
    let backend = backend();
    let granted = granted(&backend).await;
    let mut client = Client::start(&backend, Transport::Stdio).await;
    // Calls (rmcp's) and lists (the host's) in one write, none awaited.
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
        assert!(
            answered.insert(id, (answer, Writer::of(&line))).is_none(),
            "{id} twice"
        );
    }
    for (id, (answer, writer)) in answered {
        if id % 2 == 0 {
            assert_eq!(writer, Writer::Rmcp);
            assert_eq!(answer["result"]["isError"], false, "{answer}");
        } else {
            assert_eq!(writer, Writer::BeforeRmcp);
            assert_eq!(names_and_cursor(&answer).0, granted[PAGE..2 * PAGE]);
        }
    }
}
