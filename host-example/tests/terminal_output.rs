//! Nothing a person or a model wrote can redraw an approver's terminal:
//! every command that prints records, titles or answers escapes ESC, BEL,
//! CR and the other control characters (and the bidirectional overrides),
//! whatever the value came through. The real binary, its stdout as bytes.

mod mcp_support;
#[path = "support/scripted_model.rs"]
mod scripted_model;

use mcp_support::Host;
use scripted_model::ScriptedModel;

/// What a forged line would be made of: clear the screen, ring, go back
/// to the start of the line, and reverse what follows.
const FORGERY: &str = "\u{1b}[2J\u{7}\rApproved by admin\u{202e}";

/// Bytes a terminal obeys rather than shows.
fn obeyed(bytes: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(bytes);
    let mut found: Vec<u8> = bytes
        .iter()
        .copied()
        .filter(|b| (*b < 0x20 && *b != b'\n' && *b != b'\t') || *b == 0x7f)
        .collect();
    if text.contains('\u{202e}') {
        found.push(0xff);
    }
    found
}

#[test]
fn every_command_that_prints_what_others_wrote_escapes_control_characters() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let model = runtime.block_on(ScriptedModel::start());
    let host = Host::new();
    host.run(&[
        "--user",
        "admin",
        "settings",
        "set",
        "model",
        &model.setting(),
    ]);
    host.set_tools(serde_json::json!({"update_page_metadata": {"state": "enabled"}}));
    // A title carrying the forgery (JSON's escapes make real characters),
    // and an answer carrying it as it is.
    let title = serde_json::to_string(&format!("Bikes{FORGERY}")).unwrap();
    let propose = format!(r#"CALL update_page_metadata {{"page": 20, "title": {title}}}"#);
    let answer = format!("SAY Done.{FORGERY}");

    let ran = |prompt: &str| {
        host.command(&["--user", "clara", "run", prompt])
            .output()
            .unwrap()
    };
    let proposed = ran(&propose);
    let answered = ran(&answer);
    let ids = host.run(&["--user", "admin", "approvals", "list"]);
    let proposal = ids
        .lines()
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_owned();
    let runs = host.run(&["--user", "admin", "runs", "list"]);
    let run_ids: Vec<String> = runs
        .lines()
        .skip(1)
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_owned)
        .collect();
    assert_eq!(run_ids.len(), 2, "{runs}");

    let mut outputs = vec![
        ("run (a proposal)", proposed.stdout.clone(), true),
        ("run (an answer)", answered.stdout.clone(), true),
        ("runs list", runs.clone().into_bytes(), false),
        ("approvals list", ids.into_bytes(), false),
    ];
    for id in &run_ids {
        let shown = host
            .command(&["--user", "admin", "runs", "show", id])
            .output()
            .unwrap();
        outputs.push(("runs show", shown.stdout, true));
    }
    let shown = host
        .command(&["--user", "admin", "approvals", "show", &proposal])
        .output()
        .unwrap();
    outputs.push(("approvals show", shown.stdout, true));
    let audit = host
        .command(&["--user", "admin", "audit", "tail"])
        .output()
        .unwrap();
    outputs.push(("audit tail", audit.stdout, false));
    let rejected = host
        .command(&[
            "--user",
            "admin",
            "approvals",
            "reject",
            &proposal,
            "--reason",
            FORGERY,
        ])
        .output()
        .unwrap();
    outputs.push(("approvals reject", rejected.stdout, false));
    outputs.push(("an error", rejected.stderr, false));
    let unknown = host
        .command(&["--user", "admin", "approvals", "show", FORGERY])
        .output()
        .unwrap();
    outputs.push(("an error naming the value", unknown.stderr, true));

    for (command, stdout, shows_it) in outputs {
        let text = String::from_utf8_lossy(&stdout);
        assert!(obeyed(&stdout).is_empty(), "{command}: {text:?}");
        if shows_it {
            // Shown, escaped (as the terminal escape or, in a JSON value,
            // as JSON's).
            let escaped = [
                r"\x1b[2J\x07\rApproved by admin\u{202e}",
                r"\u001b[2J\u0007\rApproved by admin\u{202e}",
            ];
            assert!(
                escaped.iter().any(|form| text.contains(form)),
                "{command} shows the value, escaped: {text:?}"
            );
        }
    }
}
