//! The built-in tools through a real registry, as a host calls them.

use futures_executor::block_on;
use serde_json::{Value, json};
use tool_core::{Effect, Outcome, Registry, RunId, Shipped, ToolContext};
use tools_builtin::system::{Environment, HostInfo};

fn call(name: &str, arguments: Value, cx: &ToolContext) -> Value {
    tools_builtin::link();
    let registry = Registry::linked().unwrap();
    match block_on(registry.call_ungated(name, arguments, cx)) {
        Ok(Outcome::Done(output)) => output.as_json().cloned().unwrap(),
        other => panic!("{name}: {other:?}"),
    }
}

fn env_cx(pairs: &[(&str, &str)]) -> ToolContext {
    let environment = Environment(
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect(),
    );
    ToolContext::new(RunId("t".into())).with_service(environment)
}

#[test]
fn declarations_follow_the_security_contract() {
    tools_builtin::link();
    let registry = Registry::linked().unwrap();
    for tool in registry.tools() {
        assert_eq!(tool.declaration().effect, Effect::Read);
    }
    for name in ["get_env", "get_env_raw", "get_system_status"] {
        let declaration = registry.get(name).unwrap().declaration();
        assert_eq!(declaration.group, tools_builtin::groups::SYSTEM);
        assert!(declaration.requires_admin, "{name} is for administrators");
    }
    let raw = registry.get("get_env_raw").unwrap().declaration();
    assert!(raw.requires_admin);
    assert_eq!(raw.shipped, Shipped::Disabled);
    let env = registry.get("get_env").unwrap().declaration();
    assert_eq!(env.shipped, Shipped::Enabled);
}

#[test]
fn get_env_redacts_secret_names_and_credential_urls() {
    let cx = env_cx(&[
        ("PATH", "/usr/bin"),
        ("GITHUB_TOKEN", "ghp_abc"),
        ("dbPassword", "hunter2"),
        ("DATABASE_URL", "postgres://app:pw@db/app"),
        ("HOMEPAGE", "https://example.com/"),
    ]);
    let result = call("get_env", json!({}), &cx);
    let vars = &result["variables"];
    assert_eq!(vars["PATH"], "/usr/bin");
    assert_eq!(vars["HOMEPAGE"], "https://example.com/");
    assert_eq!(vars["GITHUB_TOKEN"], "[redacted]");
    assert_eq!(vars["dbPassword"], "[redacted]");
    assert_eq!(vars["DATABASE_URL"], "[redacted]");
    assert!(!result.to_string().contains("hunter2"));
}

#[test]
fn get_env_redacts_look_alike_names_and_token_shaped_values() {
    let cx = env_cx(&[
        ("PASSW\u{41E}RD", "hunter2"),
        ("DB_PWD", "hunter2"),
        ("NOTES", "ghp_1234567890abcdefghijABCDEFGHIJ123456"),
        ("PORT", "8080"),
    ]);
    let result = call("get_env", json!({}), &cx);
    let vars = &result["variables"];
    assert_eq!(vars["PASSW\u{41E}RD"], "[redacted]");
    assert_eq!(vars["DB_PWD"], "[redacted]");
    assert_eq!(vars["NOTES"], "[redacted]");
    assert_eq!(vars["PORT"], "8080");
    assert!(!result.to_string().contains("hunter2"));
}

#[test]
fn get_env_redacts_before_cutting_a_long_value() {
    // The token sits past the cut: redacting after the cut would miss it.
    let value = format!(
        "{} ghp_1234567890abcdefghijABCDEFGHIJ123456",
        "x".repeat(600)
    );
    let cx = env_cx(&[("NOTES", value.as_str())]);
    let result = call("get_env", json!({}), &cx);
    assert_eq!(result["variables"]["NOTES"], "[redacted]");
}

#[test]
fn get_env_raw_returns_values_unredacted() {
    let cx = env_cx(&[("GITHUB_TOKEN", "ghp_abc")]);
    let result = call("get_env_raw", json!({}), &cx);
    assert_eq!(result["variables"]["GITHUB_TOKEN"], "ghp_abc");
}

#[test]
fn get_env_filters_by_prefix_and_caps_the_volume() {
    let names: Vec<String> = (0..250).map(|i| format!("APP_{i:03}")).collect();
    let long = "x".repeat(2000);
    let mut pairs: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), long.as_str())).collect();
    pairs.push(("OTHER", "y"));
    let result = call("get_env", json!({"prefix": "APP_"}), &env_cx(&pairs));
    let vars = result["variables"].as_object().unwrap();
    assert_eq!(vars.len(), 200);
    assert!(!vars.contains_key("OTHER"));
    assert_eq!(result["total"], 250);
    assert_eq!(result["truncated"], true);
    let value = vars["APP_000"].as_str().unwrap();
    assert_eq!(
        value.chars().count(),
        513,
        "512 characters and the ellipsis"
    );
}

#[test]
fn get_env_refuses_unknown_arguments() {
    tools_builtin::link();
    let registry = Registry::linked().unwrap();
    let cx = env_cx(&[]);
    let error =
        block_on(registry.call_ungated("get_env", json!({"name": "PATH"}), &cx)).unwrap_err();
    assert!(error.model_text().contains("name"), "{error}");
}

#[test]
fn system_status_reports_no_paths_or_host_names() {
    let cx = ToolContext::new(RunId("t".into())).with_service(HostInfo {
        name: "host-example".into(),
        version: "9.9.9".into(),
    });
    let status = call("get_system_status", json!({}), &cx);
    assert_eq!(status["host"]["version"], "9.9.9");
    assert_eq!(status["os"], std::env::consts::OS);
    assert_eq!(status["architecture"], std::env::consts::ARCH);
    let text = status.to_string();
    assert!(!text.contains('\\'));
    assert!(!text.contains("/usr") && !text.contains("/etc") && !text.contains("/home"));
    if let Ok(host) = std::fs::read_to_string("/etc/hostname") {
        let host = host.trim();
        if host.len() >= 4 {
            assert!(!text.contains(host), "status leaks the host name {host}");
        }
    }
}

#[test]
fn system_status_without_host_info_says_unknown_host() {
    let status = call(
        "get_system_status",
        json!({}),
        &ToolContext::new(RunId("t".into())),
    );
    assert_eq!(status["host"], Value::Null);
}
