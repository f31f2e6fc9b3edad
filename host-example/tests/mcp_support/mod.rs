//! Shared by the MCP tests: the app layer in this process over a fresh
//! SQLite file ([`Demo`]), the real binary on a fresh SQLite database
//! ([`Host`]), finding the installed clients, and driving a client script
//! line by line.
#![allow(dead_code)] // each test file uses part of it

pub mod pages;
pub mod raw;

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};
use tool_core::{Actor, Effect};

/// The demo users the tests act as.
pub const USERS: [&str; 4] = ["admin", "petra", "nils", "clara"];

/// The app layer in this process over a fresh SQLite file: the demo site
/// and users, the writing tools switched on (they ship disabled) so clients
/// see what a write tool looks like, and a bearer token per demo user.
pub struct Demo {
    pub host: Arc<host_example::Host>,
    /// The database's URL, for a second host on it.
    pub url: String,
    tokens: HashMap<String, String>,
    _dir: tempfile::TempDir,
}

impl Demo {
    pub async fn new() -> Demo {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}?mode=rwc", dir.path().join("host.db").display());
        let host = host_example::Host::open(&url).await.unwrap();
        let writing: serde_json::Map<String, Value> = host
            .registry()
            .tools()
            .iter()
            .filter(|tool| tool.declaration().effect == Effect::Write)
            .map(|tool| (tool.name().to_owned(), json!({"state": "enabled"})))
            .collect();
        host.admin()
            .set_setting("admin", "tools", &Value::Object(writing).to_string())
            .await
            .unwrap();
        let mut tokens = HashMap::new();
        for user in USERS {
            tokens.insert(
                user.to_owned(),
                host.admin().new_token("admin", user).await.unwrap(),
            );
        }
        Demo {
            host: Arc::new(host),
            url,
            tokens,
            _dir: dir,
        }
    }

    /// The bearer token of `user`.
    pub fn token(&self, user: &str) -> &str {
        &self.tokens[user]
    }

    /// The tool names the gates grant `user` for a single call now.
    pub async fn granted(&self, user: &str) -> Vec<String> {
        let grant = self.host.access().grant(&actor(user)).await.unwrap();
        grant.tool_names().map(str::to_owned).collect()
    }
}

pub fn actor(name: &str) -> Actor {
    Actor {
        id: name.to_owned(),
        admin: name == "admin",
    }
}

/// `target/debug` of this build: the test binary is in its `deps`.
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().parent().unwrap().to_owned()
}

/// Where install.sh put the clients: `MCP_CLIENTS_DIR`, else
/// `<target>/mcp-clients`.
fn clients_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("MCP_CLIENTS_DIR") {
        return dir.into();
    }
    profile_dir().parent().unwrap().join("mcp-clients")
}

fn scripts_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_clients")
}

/// `path` when it exists; otherwise fails under CI and skips locally.
fn installed(path: PathBuf, what: &str) -> Option<PathBuf> {
    if path.exists() {
        return Some(path);
    }
    let message = format!(
        "{what} is not installed at {}: run host-example/tests/mcp_clients/install.sh",
        path.display()
    );
    assert!(std::env::var_os("CI").is_none(), "{message}");
    eprintln!("skipped: {message}");
    None
}

/// The Python interpreter of the clients' virtual environment.
pub fn python() -> Option<PathBuf> {
    installed(
        clients_dir().join("venv/bin/python"),
        "the Python MCP client",
    )
}

/// The TypeScript client script, copied beside its `node_modules`.
pub fn typescript_client() -> Option<PathBuf> {
    let node = clients_dir().join("node");
    installed(
        node.join("node_modules/@modelcontextprotocol/sdk/package.json"),
        "the TypeScript MCP SDK",
    )?;
    let script = node.join("client.mjs");
    std::fs::copy(scripts_dir().join("client.mjs"), &script).unwrap();
    Some(script)
}

/// One client script, driven one JSON line at a time.
pub struct Driver {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// What the client wrote to stderr, when it is kept ([`Driver::python_keeping_stderr`]).
    stderr: Option<std::thread::JoinHandle<String>>,
}

impl Driver {
    pub fn python(args: &[&str]) -> Option<Driver> {
        let python = python()?;
        let mut command = Command::new(python);
        command.arg(scripts_dir().join("client.py")).args(args);
        Some(Driver::spawn(command, false))
    }

    /// [`Driver::python`], keeping what the client writes to stderr for
    /// [`Driver::finish`].
    pub fn python_keeping_stderr(args: &[&str]) -> Option<Driver> {
        let python = python()?;
        let mut command = Command::new(python);
        command.arg(scripts_dir().join("client.py")).args(args);
        Some(Driver::spawn(command, true))
    }

    /// The Python client over stdio, starting the real binary as
    /// `host-example --database URL mcp --user USER`.
    pub fn python_stdio(mode: &str, host: &Host, user: &str) -> Option<Driver> {
        let mut args = vec!["stdio".to_owned(), mode.to_owned()];
        args.extend(host.mcp_command(user));
        Driver::python(&args.iter().map(String::as_str).collect::<Vec<_>>())
    }

    pub fn typescript(args: &[&str]) -> Option<Driver> {
        let script = typescript_client()?;
        let mut command = Command::new("node");
        command.arg(script).args(args);
        Some(Driver::spawn(command, false))
    }

    /// [`Driver::typescript`], keeping what the client writes to stderr
    /// for [`Driver::finish`].
    pub fn typescript_keeping_stderr(args: &[&str]) -> Option<Driver> {
        let script = typescript_client()?;
        let mut command = Command::new("node");
        command.arg(script).args(args);
        Some(Driver::spawn(command, true))
    }

    fn spawn(mut command: Command, keep_stderr: bool) -> Driver {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(if keep_stderr {
                Stdio::piped()
            } else {
                Stdio::inherit()
            })
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().map(|mut stderr| {
            std::thread::spawn(move || {
                let mut text = String::new();
                let _ = std::io::Read::read_to_string(&mut stderr, &mut text);
                text
            })
        });
        let stdin = Some(child.stdin.take().unwrap());
        let stdout = child.stdout.take().unwrap();
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Driver {
            child,
            stdin,
            lines,
            stderr,
        }
    }

    /// Ends the client as a user would (its input closed, so it closes
    /// its session), waits for it to exit, and returns what it wrote to
    /// stderr (empty unless kept).
    pub fn finish(mut self) -> String {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        let stderr = self
            .stderr
            .take()
            .map(|thread| thread.join().unwrap())
            .unwrap_or_default();
        assert!(status.success(), "{status}: {stderr}");
        stderr
    }

    /// Sends one command without waiting for its answer.
    pub fn send_only(&mut self, command: &Value) {
        let stdin = self.stdin.as_mut().expect("the client's input is open");
        writeln!(stdin, "{command}").unwrap();
        stdin.flush().unwrap();
    }

    /// Sends one command and returns its answer.
    pub fn send(&mut self, command: Value) -> Value {
        self.send_only(&command);
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("no answer to {command}"));
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    }

    pub fn list(&mut self) -> Vec<Value> {
        let answer = self.send(json!({"op": "list"}));
        answer["tools"].as_array().unwrap().clone()
    }

    pub fn names(&mut self) -> Vec<String> {
        self.list()
            .iter()
            .map(|tool| tool["name"].as_str().unwrap().to_owned())
            .collect()
    }

    pub fn call(&mut self, name: &str, arguments: Value) -> Value {
        self.send(json!({"op": "call", "name": name, "arguments": arguments}))
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The text of a result's first content block.
pub fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or("")
}

pub fn is_error(result: &Value) -> bool {
    result["isError"] == json!(true)
}

/// The checks every client makes as an editor (`petra`-like) over one
/// connection, where `user` may not call `admin_tool`.
pub fn common_checks(client: &mut Driver, user: &str, expected: &[String]) {
    // tools/list is exactly the grant, in name order, in MCP form.
    let tools = client.list();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, expected, "{user}'s tools");
    let list_tables = tools.iter().find(|t| t["name"] == "list_tables").unwrap();
    assert_eq!(list_tables["annotations"]["readOnlyHint"], json!(true));
    assert!(list_tables["inputSchema"].is_object());

    // A read tool: text content, and the JSON as structured content.
    let result = client.call("list_tables", json!({}));
    assert!(!is_error(&result), "{result}");
    let structured = &result["structuredContent"];
    assert!(structured.is_object(), "{result}");
    let parsed: Value = serde_json::from_str(text(&result)).unwrap();
    assert_eq!(&parsed, structured);

    // Bad arguments: an error result naming the path.
    let result = client.call("get_pagetree", json!({"depth": "deep"}));
    assert!(is_error(&result), "{result}");
    assert!(text(&result).contains("/depth"), "{result}");

    // A refused tool answers exactly like an unknown one.
    let refused = client.call("get_system_status", json!({}));
    let unknown = client.call("get_system_statu", json!({}));
    assert!(is_error(&refused), "{refused}");
    let refused = refused.to_string().replace("get_system_status", "NAME");
    let unknown = unknown.to_string().replace("get_system_statu", "NAME");
    assert_eq!(refused, unknown);
}

/// A write tool: the answer is a pending proposal with its id.
pub fn propose(client: &mut Driver, title: &str) -> String {
    let result = client.call("update_page_metadata", json!({"page": 20, "title": title}));
    assert!(!is_error(&result), "{result}");
    assert!(text(&result).contains("awaits"), "{result}");
    let structured = &result["structuredContent"];
    assert_eq!(structured["status"], "awaiting_approval", "{result}");
    let id = structured["proposal"].as_str().unwrap().to_owned();
    assert!(text(&result).contains(&id));
    id
}

/// The real `host-example` binary on a fresh SQLite database, or on one a
/// test made elsewhere ([`Host::at`]).
pub struct Host {
    _dir: Option<tempfile::TempDir>,
    pub url: String,
}

impl Host {
    /// A fresh database, migrated and seeded (the demo site and users).
    pub fn new() -> Host {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}?mode=rwc", dir.path().join("host.db").display());
        let host = Host {
            _dir: Some(dir),
            url,
        };
        host.run(&["db", "migrate"]);
        host
    }

    /// The binary on the database at `url`, which the test keeps.
    pub fn at(url: &str) -> Host {
        Host {
            _dir: None,
            url: url.to_owned(),
        }
    }

    /// The binary with `--database` set and nothing from the environment.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_host-example"));
        command
            .env_remove("HOST_DATABASE_URL")
            .env_remove("HOST_USER")
            .args(["--database", &self.url])
            .args(args);
        command
    }

    /// The command line an MCP client starts for `user` over stdio.
    pub fn mcp_command(&self, user: &str) -> Vec<String> {
        [
            env!("CARGO_BIN_EXE_host-example"),
            "--database",
            &self.url,
            "mcp",
            "--user",
            user,
        ]
        .map(str::to_owned)
        .to_vec()
    }

    /// Runs a command in a process of its own; its stdout, after checking
    /// it succeeded.
    pub fn run(&self, args: &[&str]) -> String {
        let output = self.command(args).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{args:?}: {stderr}");
        String::from_utf8(output.stdout).unwrap()
    }

    /// `host-example --user admin settings set tools JSON`, from another
    /// process than the server's.
    pub fn set_tools(&self, tools: Value) {
        let tools = tools.to_string();
        self.run(&["--user", "admin", "settings", "set", "tools", &tools]);
    }

    /// A new bearer token for `user`, as `host-example users token` makes it.
    pub fn token(&self, user: &str) -> String {
        self.run(&["--user", "admin", "users", "token", user])
            .trim()
            .to_owned()
    }

    /// The app layer over the same database, in this process: what the
    /// server's gates grant, and the approval path.
    pub async fn app(&self) -> host_example::Host {
        host_example::Host::open(&self.url).await.unwrap()
    }

    /// The tool names the gates grant `user` now.
    pub async fn granted(&self, user: &str) -> Vec<String> {
        let app = self.app().await;
        let actor = app.access().user(user).await.unwrap().unwrap();
        let grant = app.access().grant(&actor).await.unwrap();
        grant.tool_names().map(str::to_owned).collect()
    }

    /// `host-example serve --addr 127.0.0.1:0`, and the URL it printed.
    pub fn serve(&self) -> Served {
        let mut child = self
            .command(&["serve", "--addr", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        let base = first
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("not an address: {first:?}"))
            .to_owned();
        Served { child, base }
    }
}

/// A running `host-example serve`; killed when dropped.
pub struct Served {
    pub child: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
}

impl Served {
    /// The MCP endpoint.
    pub fn mcp_url(&self) -> String {
        format!("{}{}", self.base, host_example::mcp::http::PATH)
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
