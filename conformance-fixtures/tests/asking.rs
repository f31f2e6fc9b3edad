//! A tool that asks its client, end to end: the official Python MCP
//! client (pinned in host-example/tests/mcp_clients) against
//! `toolkit-conformance` over Streamable HTTP. On 2025-11-25 the form's
//! answer and the model's answer come back to the tool; a declined form
//! reads as declined; an answer too late is a clear tool error; on
//! 2026-07-28 (no request to the client inside a call) the tool is told
//! so, and nothing waits.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

/// The token `toolkit-conformance` adds to a request without one.
const TOKEN: &str = "conformance";

fn python() -> Option<PathBuf> {
    let target = std::env::current_exe()
        .unwrap()
        .ancestors()
        .nth(3)
        .unwrap()
        .to_path_buf();
    let dir = std::env::var_os("MCP_CLIENTS_DIR")
        .map_or_else(|| target.join("mcp-clients"), PathBuf::from);
    let python = dir.join("venv/bin/python");
    if python.exists() {
        return Some(python);
    }
    let message = format!(
        "the Python MCP client is not installed at {}: run host-example/tests/mcp_clients/install.sh",
        python.display()
    );
    assert!(std::env::var_os("CI").is_none(), "{message}");
    eprintln!("skipped: {message}");
    None
}

/// `toolkit-conformance` on a free loopback port, its questions waiting
/// one second for an answer.
struct Server {
    child: Child,
    url: String,
}

impl Server {
    fn start() -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolkit-conformance"))
            .env("TOOLKIT_ASK_TIMEOUT_MS", "1000")
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let base = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap()
            .to_owned();
        Server {
            child,
            url: format!("{base}/mcp"),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The client script answering as `answers` says.
struct Client {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Client {
    fn start(python: &Path, mode: &str, url: &str, answers: Value) -> Client {
        let script = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../host-example/tests/mcp_clients/client.py");
        let mut child = Command::new(python)
            .arg(script)
            .args(["http", mode, url, TOKEN])
            .env("MCP_TEST_ANSWERS", answers.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        Client {
            stdin: child.stdin.take().unwrap(),
            stdout: BufReader::new(child.stdout.take().unwrap()),
            child,
        }
    }

    fn call(&mut self, name: &str, arguments: Value) -> Value {
        let command = json!({"op": "call", "name": name, "arguments": arguments});
        writeln!(self.stdin, "{command}").unwrap();
        self.stdin.flush().unwrap();
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap_or_else(|_| panic!("not JSON: {line:?}"))
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

fn answers(action: &str) -> Value {
    json!({
        "elicit": {"action": action, "content": {"username": "ada", "email": "ada@example.com"}},
        "sample": "Four.",
    })
}

#[test]
fn a_tool_gets_the_clients_form_and_its_models_answer() {
    let Some(python) = python() else { return };
    let server = Server::start();
    let mut client = Client::start(&python, "legacy", &server.url, answers("accept"));
    let elicited = client.call("test_elicitation", json!({"message": "Who are you?"}));
    assert_ne!(elicited["isError"], true, "{elicited}");
    assert_eq!(
        text(&elicited),
        r#"User response: action=accept, content={"email":"ada@example.com","username":"ada"}"#
    );
    let sampled = client.call("test_sampling", json!({"prompt": "Two plus two?"}));
    assert_eq!(text(&sampled), "LLM response: Four.", "{sampled}");

    let mut declining = Client::start(&python, "legacy", &server.url, answers("decline"));
    let declined = declining.call("test_elicitation", json!({"message": "Who are you?"}));
    assert_eq!(text(&declined), "User response: action=decline, content={}");
}

#[test]
fn a_late_answer_and_a_stateless_revision_are_clear_tool_errors() {
    let Some(python) = python() else { return };
    let server = Server::start();
    let mut late = answers("accept");
    late["delay"] = json!(3);
    let mut slow = Client::start(&python, "legacy", &server.url, late);
    let timed_out = slow.call("test_elicitation", json!({"message": "Who are you?"}));
    assert_eq!(timed_out["isError"], true, "{timed_out}");
    assert_eq!(text(&timed_out), "the client did not answer in time");

    let mut stateless = Client::start(&python, "auto", &server.url, answers("accept"));
    let refused = stateless.call("test_sampling", json!({"prompt": "Two plus two?"}));
    assert_eq!(refused["isError"], true, "{refused}");
    assert_eq!(
        text(&refused),
        "the client cannot answer this: the 2026-07-28 revision carries no request to the client inside a call"
    );
}
