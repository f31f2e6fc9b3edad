//! The stdio transport on whatever handles the host is given: pipes are
//! read and written through the runtime's poller, anything else (a file on
//! stdin, a stdout that is also stderr) through tokio's threads. Each way
//! answers every request whole (in whichever order the requests end:
//! rmcp serves them at once).

mod mcp_support;

use std::io::{BufRead, BufReader, Read, Write};
use std::process::Stdio;

use serde_json::{Value, json};

fn initialize() -> [Value; 2] {
    [
        json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"}
            }
        }),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ]
}

fn list(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": {}})
}

/// The answers' ids from output that may also hold stderr's lines.
fn answered_ids(output: &str) -> Vec<u64> {
    output
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|message| message.get("result").is_some())
        .filter_map(|message| message["id"].as_u64())
        .collect()
}

/// A client that writes many requests before reading any answer: the
/// answers fill the stdout pipe, the server's writes wait for room
/// (never fail), and every answer arrives whole.
#[test]
fn answers_that_fill_the_pipe_wait_for_room_and_all_arrive() {
    const REQUESTS: u64 = 200;
    let host = mcp_support::Host::new();
    let mut server = host
        .command(&["mcp", "--user", "admin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = server.stdin.take().unwrap();
    let mut stdout = BufReader::new(server.stdout.take().unwrap());
    for message in initialize() {
        writeln!(stdin, "{message}").unwrap();
    }
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert_eq!(answered_ids(&line), [0], "{line}");
    // Written from another thread: the server stops reading while its
    // answers wait for room, and this thread reads only after.
    let writer = std::thread::spawn(move || {
        for id in 1..=REQUESTS {
            writeln!(stdin, "{}", list(id)).unwrap();
        }
        stdin.flush().unwrap();
        stdin
    });
    std::thread::sleep(std::time::Duration::from_millis(500));
    let mut ids = Vec::new();
    let mut bytes = 0;
    while ids.len() < usize::try_from(REQUESTS).unwrap() {
        line.clear();
        assert!(stdout.read_line(&mut line).unwrap() > 0, "the server ended");
        bytes += line.len();
        ids.extend(answered_ids(&line));
    }
    ids.sort_unstable();
    assert_eq!(ids, (1..=REQUESTS).collect::<Vec<_>>());
    // More than a pipe holds (64 KiB on Linux), so the writes waited.
    assert!(bytes > 256 * 1024, "{bytes} bytes");
    drop(writer.join().unwrap());
    assert!(server.wait().unwrap().success());
}

/// Stdin a file, stdout and stderr one pipe (`< requests 2>&1`): neither
/// is taken through the poller, and the requests are answered all the
/// same, then the end of the file ends the server.
#[test]
fn a_file_on_stdin_and_stdout_shared_with_stderr_are_served_too() {
    let host = mcp_support::Host::new();
    let dir = tempfile::tempdir().unwrap();
    let requests = dir.path().join("requests.jsonl");
    let mut text = String::new();
    for message in initialize().into_iter().chain((1..=3).map(list)) {
        text.push_str(&format!("{message}\n"));
    }
    std::fs::write(&requests, text).unwrap();
    let (mut reader, writer) = std::io::pipe().unwrap();
    let mut server = host
        .command(&["mcp", "--user", "admin"])
        .stdin(std::fs::File::open(&requests).unwrap())
        .stdout(writer.try_clone().unwrap())
        .stderr(writer)
        .spawn()
        .unwrap();
    let mut output = String::new();
    reader.read_to_string(&mut output).unwrap();
    assert!(server.wait().unwrap().success());
    let mut ids = answered_ids(&output);
    ids.sort_unstable();
    assert_eq!(ids, [0, 1, 2, 3], "{output}");
}
