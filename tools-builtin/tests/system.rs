//! `fetch_logs`, `get_last_error` and `probe_url` against the demo site;
//! `probe_url` against real HTTP servers on the loopback interface.

mod common;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};
use tool_core::Authored;

use serde_json::json;
use site_model::{LogEntry, LogId, LogLevel, MemorySite, NOT_FOUND, Site, Timestamp, UserId};
use tool_core::gates::{
    Gates, GroupSettings, HostSettings, RunConfig, RunInputs, Selection, Toggle,
};
use tool_core::{Actor, DataClass, Egress, Outcome, Shipped, ToolContext};

use common::{ADMIN, CLARA, NILS, PETRA, assert_no_secret, registry, text};

const EDITORS: [&str; 3] = [PETRA, NILS, CLARA];

/// Client addresses in the demo log; no tool may show one.
const DEMO_ADDRESSES: [&str; 3] = ["203.0.113.", "198.51.100.", "2001:db8::"];

fn assert_no_person(tool: &str, output: &str) {
    assert_no_secret(tool, output);
    for address in DEMO_ADDRESSES {
        assert!(
            !output.contains(address),
            "`{tool}` shows a client address:\n{output}"
        );
    }
    // The entry's own fields for people; a payload may name a mail account.
    assert!(
        !output.contains("client_address") && !output.contains("\nuser: "),
        "{output}"
    );
}

#[test]
fn declarations_are_what_the_table_says() {
    let registry = registry();
    for (name, data, egress) in [
        ("fetch_logs", DataClass::Personal, Egress::None),
        ("get_last_error", DataClass::Personal, Egress::None),
        ("probe_url", DataClass::Personal, Egress::OwnSite),
        ("get_system_status", DataClass::Internal, Egress::None),
        ("get_env", DataClass::Confidential, Egress::None),
    ] {
        let declaration = registry.get(name).unwrap().declaration();
        assert_eq!(declaration.group, tools_builtin::groups::SYSTEM, "{name}");
        assert!(declaration.requires_admin, "{name}");
        assert_eq!(declaration.shipped, Shipped::Enabled, "{name}");
        assert_eq!(declaration.data, data, "{name}");
        assert_eq!(declaration.egress, egress, "{name}");
    }
}

#[test]
fn editors_get_the_neutral_denial() {
    for editor in EDITORS {
        assert_eq!(text("fetch_logs", json!({}), editor), NOT_FOUND);
        assert_eq!(text("get_last_error", json!({}), editor), NOT_FOUND);
    }
}

// fetch_logs

#[test]
fn fetch_logs_shows_the_newest_twenty_and_the_total() {
    let output = text("fetch_logs", json!({}), ADMIN);
    let lines: Vec<&str> = output.lines().collect();
    assert_eq!(lines.len(), 21, "{output}");
    assert_eq!(
        lines[20],
        "showing 20 of 200; narrow the query to see the rest"
    );
    let times: Vec<&str> = lines[..20]
        .iter()
        .map(|line| line.split(' ').nth(1).unwrap())
        .collect();
    let mut sorted = times.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(times, sorted, "newest first");
    assert_no_person("fetch_logs", &output);
}

#[test]
fn fetch_logs_cuts_one_over_the_cap() {
    let output = text("fetch_logs", json!({"limit": 51}), ADMIN);
    assert_eq!(output.lines().count(), 51, "50 entries and the total");
    assert!(output.ends_with("showing 50 of 200; narrow the query to see the rest"));
    let all = text("fetch_logs", json!({"limit": 50, "level": "debug"}), ADMIN);
    assert_no_person("fetch_logs", &all);
}

#[test]
fn fetch_logs_filters_by_level_at_least() {
    let errors = text("fetch_logs", json!({"level": "error", "limit": 50}), ADMIN);
    assert!(errors.ends_with("20 in total"), "{errors}");
    assert!(errors.lines().take(20).all(|line| line.contains(" error ")));
    let warnings = text(
        "fetch_logs",
        json!({"level": "warning", "limit": 50}),
        ADMIN,
    );
    assert!(warnings.ends_with("showing 50 of 51; narrow the query to see the rest"));
    assert!(!warnings.contains(" info "));
}

#[test]
fn fetch_logs_redacts_messages() {
    let site = site_with(vec![entry(
        1_000,
        LogLevel::Warning,
        "login failed, password=DEMO-SECRET-typed-password-hunter2 for user petra",
    )]);
    let output = common::call_with(
        "fetch_logs",
        json!({"limit": 1}),
        &common::cx_on(site, ADMIN),
    )
    .unwrap();
    assert!(output.contains("password=[redacted]"), "{output}");
    assert_no_person("fetch_logs", &output);
}

#[test]
fn fetch_logs_refuses_unknown_arguments_and_levels() {
    assert!(text("fetch_logs", json!({"lines": 3}), ADMIN).contains("lines"));
    assert!(text("fetch_logs", json!({"level": "fatal"}), ADMIN).contains("level"));
}

// get_last_error

#[test]
fn get_last_error_shows_the_newest_error_without_people() {
    let newest = text("get_last_error", json!({}), ADMIN);
    assert!(newest.starts_with("log entry #"), "{newest}");
    assert!(newest.contains("\nlevel: error\n"));
    assert_eq!(newest, text("get_last_error", json!({"index": 0}), ADMIN));
    assert_ne!(newest, text("get_last_error", json!({"index": 1}), ADMIN));
    for index in 0..20 {
        let output = text("get_last_error", json!({"index": index}), ADMIN);
        assert_no_person("get_last_error", &output);
    }
}

#[test]
fn get_last_error_redacts_the_payload() {
    // Entry 42 of the demo: a bearer token in the payload's headers.
    let output = (0..20)
        .map(|index| text("get_last_error", json!({"index": index}), ADMIN))
        .find(|output| output.starts_with("log entry #42\n"))
        .expect("entry 42 is an error");
    assert!(output.contains("[redacted]"), "{output}");
    assert!(output.contains("api.payments.example"), "{output}");
    assert_no_person("get_last_error", &output);
}

#[test]
fn get_last_error_past_the_oldest_says_so() {
    let output = text("get_last_error", json!({"index": 20}), ADMIN);
    assert_eq!(
        output,
        "no error at index 20: the log holds 20 error entries"
    );
    let far = text("get_last_error", json!({"index": 5000}), ADMIN);
    assert!(far.starts_with("no error at index 999"), "{far}");
}

// probe_url

/// A loopback HTTP server answering each request by its path; counts the
/// connections it accepted.
struct Server {
    port: u16,
    connections: Arc<AtomicUsize>,
}

fn serve(route: fn(&str) -> String) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let connections = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&connections);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            counted.fetch_add(1, Ordering::SeqCst);
            if let Ok(stream) = stream {
                answer(stream, route);
            }
        }
    });
    Server { port, connections }
}

fn answer(mut stream: TcpStream, route: fn(&str) -> String) {
    let mut request = Vec::new();
    let mut buffer = [0; 1024];
    while !request.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => return,
            Ok(n) => request.extend_from_slice(&buffer[..n]),
        }
    }
    let request = String::from_utf8_lossy(&request);
    let path = request.split(' ').nth(1).unwrap_or("/");
    let _ = stream.write_all(route(path).as_bytes());
}

fn response(status: &str, headers: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\ncontent-length: {}\r\nconnection: close\r\n{headers}\r\n{body}",
        body.len()
    )
}

static FOREIGN_PORT: AtomicUsize = AtomicUsize::new(0);

fn own_site(path: &str) -> String {
    match path {
        "/" => response(
            "200 OK",
            "content-type: text/html\r\ncache-control: max-age=60\r\nserver: demo\r\n",
            &format!(
                "<html>Northwind Bikes. stripe key sk_live_51DemoNorthwindBikes0000aaaaBBBBcccc {}</html>",
                "x".repeat(2_000)
            ),
        ),
        "/moved" => response(
            "302 Found",
            &format!(
                "location: http://127.0.0.1:{}/landing\r\n",
                FOREIGN_PORT.load(Ordering::SeqCst)
            ),
            "",
        ),
        "/reset?token=DEMO-SECRET-reset-token-f00d" => response("204 No Content", "", ""),
        "/boom" => response(
            "500 Internal Server Error",
            "content-type: text/plain\r\n",
            "oops",
        ),
        _ => response("404 Not Found", "", "nothing here"),
    }
}

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

fn entry(id: u64, level: LogLevel, message: &str) -> LogEntry {
    LogEntry {
        id: LogId(id),
        at: Timestamp(now()),
        level,
        component: "frontend".into(),
        message: Authored::new(message.into()),
        client_address: Some("203.0.113.7".into()),
        user: Some(UserId(3)),
        payload: Authored::new(json!({"token": "DEMO-SECRET-bearer-9c8b7a"})),
    }
}

/// The demo site with `extra` log entries added.
fn site_with(extra: Vec<LogEntry>) -> Arc<dyn Site> {
    let mut data = MemorySite::demo().data();
    data.logs.extend(extra);
    Arc::new(MemorySite::new(data))
}

/// Calls `probe_url` through the gates, with `system` granted `own_site`
/// egress to the server on `port`, as the administrator.
async fn probe(port: u16, url: &str, site: Arc<dyn Site>) -> String {
    let registry = registry();
    let mut settings = HostSettings {
        sites: vec![format!("http://127.0.0.1:{port}").parse().unwrap()],
        ..HostSettings::default()
    };
    settings.groups.insert(
        tools_builtin::groups::SYSTEM.into(),
        GroupSettings {
            state: Toggle::Unset,
            egress: Egress::OwnSite,
            ..GroupSettings::default()
        },
    );
    let actor = Actor {
        id: ADMIN.into(),
        admin: true,
    };
    let config = RunConfig {
        trust_zone: DataClass::Personal,
        ..RunConfig::default()
    };
    let gates = Gates::new(
        &registry,
        RunInputs {
            settings: &settings,
            actor: Some(&actor),
            config: &config,
            skills: &[],
            selection: &Selection::All,
        },
    );
    let grant = gates.resolve().grant;
    let cx: ToolContext = common::cx_on(site, ADMIN);
    match gates
        .call(&grant, "probe_url", json!({"url": url}), &cx)
        .await
    {
        Ok(Outcome::Done(output)) => output.to_model_text(),
        Ok(other) => panic!("{other:?}"),
        Err(error) => error.model_text(),
    }
}

#[tokio::test]
async fn probe_url_reports_status_headers_timing_and_a_redacted_excerpt() {
    let server = serve(own_site);
    let output = probe(server.port, "/", Arc::new(MemorySite::demo())).await;
    assert!(
        output.starts_with(&format!("GET http://127.0.0.1:{}/ → 200 OK", server.port)),
        "{output}"
    );
    assert!(output.contains(" ms"), "{output}");
    assert!(output.contains("\ncontent-type: text/html\n"), "{output}");
    assert!(output.contains("\ncache-control: max-age=60\n"), "{output}");
    assert!(output.contains("\nserver: demo\n"), "{output}");
    assert!(
        output.contains("<html>Northwind Bikes. stripe key [redacted]"),
        "{output}"
    );
    let body = output
        .lines()
        .find(|line| line.starts_with("body ("))
        .unwrap();
    let excerpt = body.split_once("): ").unwrap().1;
    assert_eq!(
        excerpt.chars().count(),
        501,
        "500 characters and the ellipsis"
    );
    assert_no_secret("probe_url", &output);
    assert!(!output.contains("matching error"));
}

#[tokio::test]
async fn probe_url_reports_a_redirect_and_does_not_follow_it() {
    let foreign = serve(own_site);
    FOREIGN_PORT.store(foreign.port.into(), Ordering::SeqCst);
    let server = serve(own_site);
    let output = probe(server.port, "/moved", Arc::new(MemorySite::demo())).await;
    assert!(output.contains("→ 302 Found"), "{output}");
    assert!(
        output.contains(&format!(
            "\nlocation: http://127.0.0.1:{}/landing\n",
            foreign.port
        )),
        "{output}"
    );
    assert!(
        output.contains("redirect not followed (outside the host's sites"),
        "{output}"
    );
    assert_eq!(server.connections.load(Ordering::SeqCst), 1);
    assert_eq!(
        foreign.connections.load(Ordering::SeqCst),
        0,
        "the foreign host was contacted"
    );
}

#[tokio::test]
async fn probe_url_appends_the_error_behind_a_5xx() {
    let server = serve(own_site);
    let site = site_with(vec![
        entry(
            1_000,
            LogLevel::Error,
            "Uncaught TypeError rendering /boom: null is not a page",
        ),
        entry(1_001, LogLevel::Error, "Mailer queue stalled"),
    ]);
    let output = probe(server.port, "/boom", site).await;
    assert!(output.contains("→ 500 Internal Server Error"), "{output}");
    assert!(
        output.contains("matching error in the log: #1000 ")
            && output.contains("Uncaught TypeError rendering /boom"),
        "{output}"
    );
    assert_no_person("probe_url", &output);

    // No message names the path: the newest error of the last hour.
    let site = site_with(vec![entry(1_001, LogLevel::Error, "Mailer queue stalled")]);
    let output = probe(server.port, "/boom", site).await;
    assert!(
        output.contains("matching error in the log: #1001 "),
        "{output}"
    );

    // Nothing recent: the demo's errors are old.
    let output = probe(server.port, "/boom", Arc::new(MemorySite::demo())).await;
    assert!(output.ends_with("no matching error in the log"), "{output}");
}

#[tokio::test]
async fn probe_url_redacts_a_token_in_the_url_it_shows() {
    let server = serve(own_site);
    let url = "/reset?token=DEMO-SECRET-reset-token-f00d";
    let output = probe(server.port, url, Arc::new(MemorySite::demo())).await;
    assert!(output.contains("→ 204 No Content"), "{output}");
    assert!(output.contains("token=[redacted]"), "{output}");
    assert_no_secret("probe_url", &output);
}

#[tokio::test]
async fn probe_url_refuses_other_hosts_before_any_request() {
    let server = serve(own_site);
    let other = serve(own_site);
    for url in [
        format!("http://127.0.0.1:{}/", other.port),
        "http://evil.example/".to_owned(),
        format!("http://user:pw@127.0.0.1:{}/", server.port),
        "file:///etc/passwd".to_owned(),
    ] {
        let output = probe(server.port, &url, Arc::new(MemorySite::demo())).await;
        assert!(
            output.contains("refused, no request sent"),
            "{url}: {output}"
        );
    }
    assert_eq!(server.connections.load(Ordering::SeqCst), 0);
    assert_eq!(other.connections.load(Ordering::SeqCst), 0);
}

#[test]
fn probe_url_outside_a_gated_call_sends_nothing() {
    let server = serve(own_site);
    let output = text(
        "probe_url",
        json!({"url": format!("http://127.0.0.1:{}/", server.port)}),
        ADMIN,
    );
    assert!(output.contains("refused, no request sent"), "{output}");
    assert_eq!(server.connections.load(Ordering::SeqCst), 0);
}
