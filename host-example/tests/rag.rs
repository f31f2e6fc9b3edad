//! The `rag` tools through the app layer on every backend (tantivy, the
//! database's full-text search, substrings), on SQLite and (when
//! `HOST_TEST_POSTGRES_URL` names a server) PostgreSQL: words only hidden or
//! deleted content holds are never found, as an administrator or an editor;
//! the public pages are found, ranked, with excerpts; a page hidden through
//! an approved change is gone from the next answer of the process that
//! applied it and of another host process on the same database.

#[path = "store/backends.rs"]
mod backends;

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use backends::TestDb;
use host_example::Host;
use host_example::app::AuditFiles;
use host_example::app::approvals::Applied;
use host_example::app::calls::CallScope;
use host_example::app::index::{IndexLocation, SearchBackend};
use serde_json::{Value, json};
use site_model::{MemorySite, NOT_FOUND, public_sources};
use tool_core::calls::CancelToken;
use tool_core::gates::Toggle;
use tool_core::{Actor, Outcome, RunId};

fn actor(name: &str) -> Actor {
    Actor {
        id: name.into(),
        admin: name == "admin",
    }
}

/// The words of `text`, lower-cased, letters only, at least four long.
fn words(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_alphabetic())
        .filter(|word| word.chars().count() >= 4)
        .map(str::to_lowercase)
        .collect()
}

/// Every word of the demo's pages and elements that no public source holds,
/// nor any public word sharing its first five letters (so no stemmer can
/// match it to public text).
fn hidden_only_words() -> Vec<String> {
    let site = MemorySite::demo();
    let data = site.data();
    let mut all = BTreeSet::new();
    for page in &data.pages {
        all.extend(words(page.title.for_host()));
        all.extend(words(
            page.description.as_ref().map_or("", |text| text.for_host()),
        ));
    }
    for element in &data.elements {
        all.extend(words(element.header.for_host()));
        all.extend(words(&site_model::plain_text(element.body.for_host())));
    }
    let public: BTreeSet<String> = futures_executor::block_on(public_sources(&site))
        .unwrap()
        .iter()
        .flat_map(|source| {
            words(&format!(
                "{} {}",
                source.title.for_host(),
                source.text.for_host()
            ))
        })
        .collect();
    let stem = |word: &str| word.chars().take(5).collect::<String>();
    let public_stems: BTreeSet<String> = public.iter().map(|w| stem(w)).collect();
    let hidden: Vec<String> = all
        .into_iter()
        .filter(|word| !public_stems.contains(&stem(word)))
        .collect();
    // The examples are among them.
    for example in ["cargo", "shimano", "moved", "march", "intern", "analytics"] {
        assert!(hidden.iter().any(|w| w == example), "{example}: {hidden:?}");
    }
    hidden
}

async fn call(host: &Host, who: &str, tool: &str, arguments: Value) -> Result<Value, String> {
    let outcome = host
        .calls()
        .call(
            &actor(who),
            tool,
            arguments,
            RunId("rag-test".into()),
            &CallScope::Stateless,
            CancelToken::new(),
        )
        .await
        .map_err(|error| error.to_string())?;
    let Outcome::Done(output) = outcome else {
        panic!("a read tool proposed: {outcome:?}")
    };
    Ok(serde_json::from_str(&output.to_model_text()).unwrap())
}

async fn ask(host: &Host, who: &str, question: &str) -> Value {
    call(
        host,
        who,
        "site_rag_query",
        json!({ "question": question, "limit": 10 }),
    )
    .await
    .unwrap()
}

fn ids(answer: &Value) -> Vec<String> {
    answer["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|source| source["id"].as_str().unwrap().to_owned())
        .collect()
}

/// The databases to run on: a SQLite file, and PostgreSQL when configured.
async fn databases() -> Vec<TestDb> {
    let mut all = vec![TestDb::sqlite()];
    all.extend(TestDb::postgres().await);
    all
}

fn backend_name(backend: SearchBackend, url: &str) -> &'static str {
    match backend {
        SearchBackend::Tantivy => "tantivy",
        SearchBackend::Database if url.starts_with("sqlite") => "sqlite-fts5",
        SearchBackend::Database => "postgres-tsvector",
        SearchBackend::Substring => "substring",
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn every_backend_finds_public_pages_ranked_and_never_a_hidden_only_word() {
    let hidden = hidden_only_words();
    for db in databases().await {
        for backend in SearchBackend::ALL {
            let folder = tempfile::tempdir().unwrap();
            let host = Host::open_with(
                &db.url,
                backend,
                IndexLocation::Folder(folder.path().join("index")),
                &AuditFiles::for_database(&db.url),
            )
            .await
            .unwrap();
            let expected = backend_name(backend, &db.url);
            for who in ["admin", "petra"] {
                for word in &hidden {
                    let answer = ask(&host, who, word).await;
                    assert_eq!(answer["backend"], expected, "{answer}");
                    assert_eq!(
                        ids(&answer),
                        Vec::<String>::new(),
                        "{expected}: `{word}` as {who}"
                    );
                }
                let warranty = ask(&host, who, "frame warranty").await;
                let found = ids(&warranty);
                assert!(
                    found.iter().take(2).any(|id| id == "page:21"),
                    "{expected}: {warranty}"
                );
                let scores: Vec<f64> = warranty["sources"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|s| s["score"].as_f64().unwrap())
                    .collect();
                assert!(
                    scores.windows(2).all(|p| p[0] >= p[1]),
                    "{expected}: {scores:?}"
                );
                let first = &warranty["sources"][0];
                assert!(
                    first["excerpt"].as_str().unwrap().contains("**"),
                    "{expected}: {first}"
                );
                let german = ask(&host, who, "Garantie").await;
                assert!(
                    ids(&german).contains(&"page:119".to_owned()),
                    "{expected}: {german}"
                );
                let phrase = ask(&host, who, "\"five years\"").await;
                assert_eq!(
                    ids(&phrase).first().map(String::as_str),
                    Some("page:21"),
                    "{expected}: {phrase}"
                );
                let fetched = call(&host, who, "site_fetch_source", json!({ "id": "page:21" }))
                    .await
                    .unwrap();
                assert!(
                    fetched["text"]
                        .as_str()
                        .unwrap()
                        .contains("two years on parts")
                );
                for gone in ["page:11", "page:18", "page:9999"] {
                    let error = call(&host, who, "site_fetch_source", json!({ "id": gone }))
                        .await
                        .unwrap_err();
                    assert!(error.contains(NOT_FOUND), "{expected}: {gone}: {error}");
                }
            }
            let status = host.index_status().await.unwrap();
            assert_eq!(status.answering, expected);
            assert_eq!(status.index_generation, status.site_generation);
        }
    }
}

/// `host-example mcp` as a child process, spoken to in MCP's stdio framing
/// (one JSON-RPC message a line).
struct McpProcess {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl McpProcess {
    fn start(url: &str, index: &std::path::Path, user: &str) -> McpProcess {
        let mut child = Command::new(env!("CARGO_BIN_EXE_host-example"))
            .env_remove("HOST_DATABASE_URL")
            .env_remove("HOST_USER")
            .env_remove("HOST_SEARCH_BACKEND")
            .args(["--database", url, "--index-dir"])
            .arg(index)
            .args(["--user", user, "mcp"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut process = McpProcess {
            child,
            stdin,
            stdout,
            next_id: 1,
        };
        process.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": { "name": "rag-test", "version": "0" }
            }),
        );
        process.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
        process
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "the host closed stdout"
            );
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == id {
                return message;
            }
        }
    }

    /// The ids `site_rag_query` answers for `question`.
    fn ask(&mut self, question: &str) -> Vec<String> {
        let reply = self.request(
            "tools/call",
            json!({ "name": "site_rag_query", "arguments": { "question": question, "limit": 10 } }),
        );
        let text = reply["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("{reply}"));
        ids(&serde_json::from_str(text).unwrap())
    }
}

impl Drop for McpProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_page_hidden_through_an_approved_change_is_gone_here_at_once_and_in_another_process() {
    for db in databases().await {
        let folder = tempfile::tempdir().unwrap();
        let index = folder.path().join("index");
        // This process applies; the other is a real host process on the
        // same database and the same index folder.
        let host = Host::open_with(
            &db.url,
            SearchBackend::Tantivy,
            IndexLocation::Folder(index.clone()),
            &AuditFiles::for_database(&db.url),
        )
        .await
        .unwrap();
        // Write tools ship disabled; the administrator switches this one on.
        host.admin()
            .switch_tool("admin", "update_page_metadata", Toggle::Enabled)
            .await
            .unwrap();
        let mut other = McpProcess::start(&db.url, &index, "petra");
        assert!(ids(&ask(&host, "petra", "warranty").await).contains(&"page:21".to_owned()));
        assert!(other.ask("warranty").contains(&"page:21".to_owned()));

        let outcome = host
            .calls()
            .call(
                &actor("clara"),
                "update_page_metadata",
                json!({ "page": 19, "hidden": true }),
                RunId("hide".into()),
                &CallScope::Stateless,
                CancelToken::new(),
            )
            .await
            .unwrap();
        let Outcome::Proposed(proposal) = outcome else {
            panic!("{outcome:?}")
        };
        // Proposed, not yet approved: still public.
        assert!(ids(&ask(&host, "petra", "warranty").await).contains(&"page:21".to_owned()));
        let decided = host
            .approvals()
            .approve(proposal.id().as_str(), "admin", &mut ())
            .await
            .unwrap();
        assert!(matches!(
            decided.decided().unwrap().applied,
            Some(Applied::Written(_))
        ));

        // The Service page and everything under it, at once, here.
        let here = ids(&ask(&host, "petra", "warranty repairs dealers").await);
        for gone in ["page:19", "page:20", "page:21", "page:22", "page:119"] {
            assert!(
                !here.contains(&gone.to_owned()),
                "{gone} still found here: {here:?}"
            );
        }
        let error = call(
            &host,
            "admin",
            "site_fetch_source",
            json!({ "id": "page:21" }),
        )
        .await
        .unwrap_err();
        assert!(error.contains(NOT_FOUND), "{error}");
        // The other process's very next answer: its index is behind the
        // database's generation, so it is replaced before it answers.
        let there = other.ask("warranty repairs dealers");
        for gone in ["page:19", "page:20", "page:21", "page:22", "page:119"] {
            assert!(
                !there.contains(&gone.to_owned()),
                "{gone} still found there: {there:?}"
            );
        }
    }
}

#[test]
fn index_status_and_rebuild_on_the_command_line() {
    let db = TestDb::sqlite();
    let index = |args: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_host-example"))
            .env_remove("HOST_DATABASE_URL")
            .env_remove("HOST_SEARCH_BACKEND")
            .env_remove("HOST_INDEX_DIR")
            .args(["--database", &db.url])
            .args(args)
            .output()
            .unwrap();
        assert!(output.status.success(), "{args:?}: {output:?}");
        String::from_utf8(output.stdout).unwrap()
    };
    let status = index(&["index", "status"]);
    assert!(status.contains("answering backend:  tantivy"), "{status}");
    assert!(status.contains("public sources:     45"), "{status}");
    assert!(status.contains("(current)"), "{status}");
    // Beside the SQLite file, one folder per generation.
    let file = db
        .url
        .trim_start_matches("sqlite://")
        .split('?')
        .next()
        .unwrap();
    assert!(
        std::path::Path::new(&format!("{file}.index/gen-0")).is_dir(),
        "{status}"
    );
    let rebuilt = index(&["--search-backend", "database", "index", "rebuild"]);
    assert!(
        rebuilt.contains("answering backend:  sqlite-fts5"),
        "{rebuilt}"
    );
    assert!(
        rebuilt.contains("preferred backend:  database"),
        "{rebuilt}"
    );
}
