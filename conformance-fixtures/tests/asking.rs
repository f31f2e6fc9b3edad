//! A tool that asks its client, end to end: the official Python and
//! TypeScript MCP clients (pinned in host-example/tests/mcp_clients)
//! against `toolkit-conformance` over Streamable HTTP. On 2025-11-25 the
//! form's answer and the model's answer come back to the tool; a declined
//! form reads as declined; an answer too late is a clear tool error. On
//! 2026-07-28 (no request to the client inside a call) the questions go
//! back in the call's result and the client calls again with the answers,
//! which reach the tool the same.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

/// The token `toolkit-conformance` adds to a request without one.
const TOKEN: &str = "conformance";

/// The clients' scripts, beside host-example's tests.
fn scripts() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../host-example/tests/mcp_clients")
}

/// `path` when install.sh put it there: required under CI, skipped with
/// a note elsewhere.
fn installed(relative: &str) -> Option<PathBuf> {
    let target = std::env::current_exe()
        .unwrap()
        .ancestors()
        .nth(3)
        .unwrap()
        .to_path_buf();
    let dir = std::env::var_os("MCP_CLIENTS_DIR")
        .map_or_else(|| target.join("mcp-clients"), PathBuf::from);
    let path = dir.join(relative);
    if path.exists() {
        return Some(path);
    }
    let message = format!(
        "{} is missing: run host-example/tests/mcp_clients/install.sh",
        path.display()
    );
    assert!(std::env::var_os("CI").is_none(), "{message}");
    eprintln!("skipped: {message}");
    None
}

/// The Python client over HTTP in `mode`: the command before its answers.
fn python(mode: &str, url: &str) -> Option<Vec<String>> {
    let python = installed("venv/bin/python")?;
    let script = scripts().join("client.py");
    Some(vec![
        python.display().to_string(),
        script.display().to_string(),
        "http".into(),
        mode.into(),
        url.into(),
        TOKEN.into(),
    ])
}

/// The TypeScript client (2025-11-25) over HTTP, its script copied beside
/// the SDK's `node_modules` so node resolves it.
fn typescript(url: &str) -> Option<Vec<String>> {
    let sdk = installed("node/node_modules/@modelcontextprotocol/sdk/package.json")?;
    let script = sdk.ancestors().nth(3).unwrap().join("client.mjs");
    std::fs::copy(scripts().join("client.mjs"), &script).unwrap();
    Some(vec![
        "node".into(),
        script.display().to_string(),
        "--http".into(),
        url.into(),
        TOKEN.into(),
    ])
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
    /// The client `command` starts, answering as `answers` says.
    fn start(command: &[String], answers: Value) -> Client {
        let mut child = Command::new(&command[0])
            .args(&command[1..])
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
        "roots": [{"uri": "file:///home/ada/site", "name": "site"}],
    })
}

#[test]
fn a_tool_gets_the_python_clients_roots_and_its_answer_to_a_url() {
    let server = Server::start();
    let Some(python) = python("legacy", &server.url) else {
        return;
    };
    let mut client = Client::start(&python, answers("accept"));
    let roots = client.call("test_list_roots", json!({}));
    assert_eq!(text(&roots), "Roots: file:///home/ada/site site", "{roots}");
    let mut declining = Client::start(&python, json!({"elicit": {"action": "decline"}}));
    let opened = declining.call(
        "test_elicitation_url",
        json!({"url": "https://example.com/sign-in"}),
    );
    assert_eq!(text(&opened), "URL elicitation: action=decline", "{opened}");
}

/// The form's answer and the model's answer come back through `command`'s
/// client; a declined form reads as declined.
fn answered_through(accepting: &[String], declining: &[String]) {
    let mut client = Client::start(accepting, answers("accept"));
    let elicited = client.call("test_elicitation", json!({"message": "Who are you?"}));
    assert_ne!(elicited["isError"], true, "{elicited}");
    assert_eq!(
        text(&elicited),
        r#"User response: action=accept, content={"email":"ada@example.com","username":"ada"}"#
    );
    let sampled = client.call("test_sampling", json!({"prompt": "Two plus two?"}));
    assert_eq!(text(&sampled), "LLM response: Four.", "{sampled}");

    let mut declining = Client::start(declining, answers("decline"));
    let declined = declining.call("test_elicitation", json!({"message": "Who are you?"}));
    assert_eq!(text(&declined), "User response: action=decline, content={}");
}

#[test]
fn a_tool_gets_the_python_clients_form_and_its_models_answer() {
    let server = Server::start();
    let Some(python) = python("legacy", &server.url) else {
        return;
    };
    answered_through(&python, &python);
}

#[test]
fn a_tool_gets_the_typescript_clients_form_and_its_models_answer() {
    let server = Server::start();
    let Some(typescript) = typescript(&server.url) else {
        return;
    };
    answered_through(&typescript, &typescript);
}

#[test]
fn a_late_answer_is_a_clear_tool_error() {
    let server = Server::start();
    let Some(legacy) = python("legacy", &server.url) else {
        return;
    };
    let mut late = answers("accept");
    late["delay"] = json!(3);
    let mut slow = Client::start(&legacy, late);
    let timed_out = slow.call("test_elicitation", json!({"message": "Who are you?"}));
    assert_eq!(timed_out["isError"], true, "{timed_out}");
    assert_eq!(text(&timed_out), "the client did not answer in time");
}

/// On 2026-07-28 the questions go back in the call's result and the
/// Python client makes the call again with its answers (input-required
/// results): the tool gets them as on 2025-11-25.
#[test]
fn on_2026_07_28_a_tool_gets_the_python_clients_answers_through_input_required_results() {
    let server = Server::start();
    let Some(stateless) = python("auto", &server.url) else {
        return;
    };
    let mut client = Client::start(&stateless, answers("accept"));
    let sampled = client.call("test_sampling", json!({"prompt": "Two plus two?"}));
    assert_eq!(sampled["isError"], false, "{sampled}");
    assert_eq!(text(&sampled), "LLM response: Four.");
    let filled = client.call("test_elicitation", json!({"message": "Who are you?"}));
    assert_eq!(
        text(&filled),
        r#"User response: action=accept, content={"email":"ada@example.com","username":"ada"}"#,
        "{filled}"
    );
    let rooted = client.call("test_list_roots", json!({}));
    assert_eq!(
        text(&rooted),
        "Roots: file:///home/ada/site site",
        "{rooted}"
    );

    let mut declining = Client::start(&stateless, answers("decline"));
    let declined = declining.call("test_elicitation", json!({"message": "Who are you?"}));
    assert_eq!(
        text(&declined),
        "User response: action=decline, content={}",
        "{declined}"
    );
}
