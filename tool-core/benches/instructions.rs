//! The gate benchmarks' paths, for counting instructions under callgrind
//! (BENCHMARKS.md, "Gates"): `instructions PATH N` makes one warm-up call of
//! PATH, then N more. The cost of one call is the difference between the
//! counts for N and for 0, divided by N; `tool-core/benches/callgrind.sh`
//! runs every path that way.
//!
//! Run without a path (as `cargo bench` does), it only lists the paths.
//! The agent loop's paths have their own driver (`agent_instructions.rs`),
//! so this one builds against older commits for side-by-side counts
//! (`callgrind-compare.sh`).

mod common;
mod corpus;

use std::hint::black_box;

use futures_executor::block_on;
use regex::Regex;
use tool_core::gates::{Gates, HostSettings, RunConfig, RunInputs, Selection};
use tool_core::redact::{redact_json, redact_text};
use tool_core::skills::tokenize;
use tool_core::{RunId, ToolContext};

const PATHS: &[&str] = &[
    "bare",
    "registry",
    "gated",
    "gated-exposed",
    "check",
    "granted-3",
    "granted-1000",
    "unscoped",
    "scoped",
    "resolve",
    "tokenize",
    "regex",
    "redact-text",
    "redact-json",
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(path), Some(count)) = (args.first(), args.get(1)) else {
        println!("instructions PATH N, PATH one of {PATHS:?}");
        return;
    };
    let count: usize = count.parse().expect("N is a number of calls");
    run(path, count);
}

fn run(path: &str, count: usize) {
    let cx = ToolContext::new(RunId("bench".into()));
    let arguments = common::arguments();
    let repeat = |call: &mut dyn FnMut()| {
        for _ in 0..=count {
            call();
        }
    };
    match path {
        "bare" => repeat(&mut || {
            black_box(block_on(common::bare(black_box(arguments.clone()), &cx))).unwrap();
        }),
        "registry" => {
            let registry = common::registry(1);
            repeat(&mut || {
                let call = registry.call_ungated("read_file", black_box(arguments.clone()), &cx);
                black_box(block_on(call)).unwrap();
            });
        }
        "gated-exposed" => {
            // A run that has read personal data and untrusted content: gate
            // 9 looks at every call, and lets this one (no egress) through.
            let registry = common::registry(1);
            let (gates, grant) = common::gates(&registry, &[]);
            let mut exposure = tool_core::exposure::Exposure::default();
            let _ = exposure.record(
                "list_users",
                "call-1",
                tool_core::DataClass::Personal,
                tool_core::Content::Untrusted,
            );
            let cx = cx.clone().with_exposure(std::sync::Arc::new(exposure));
            repeat(&mut || {
                let call = gates.call(&grant, "read_file", black_box(arguments.clone()), &cx);
                black_box(block_on(call)).unwrap();
            });
        }
        "gated" | "check" | "granted-3" | "granted-1000" => {
            let tools = match path {
                "granted-3" => 3,
                "granted-1000" => 1000,
                _ => 1,
            };
            let registry = common::registry(tools);
            let (gates, grant) = common::gates(&registry, &[]);
            assert_eq!(grant.len(), tools);
            if path == "check" {
                repeat(&mut || {
                    let checked = gates.check_call(&grant, black_box("read_file"), &arguments, &cx);
                    assert!(black_box(checked).is_ok());
                });
            } else {
                repeat(&mut || {
                    let call = gates.call(&grant, "read_file", black_box(arguments.clone()), &cx);
                    black_box(block_on(call)).unwrap();
                });
            }
        }
        "unscoped" | "scoped" => {
            let registry = common::registry(3);
            let token = if path == "scoped" {
                "read_file(src/**)"
            } else {
                "read_file"
            };
            let (gates, grant) = common::gates(&registry, &[common::skill("s", token)]);
            repeat(&mut || {
                let call = gates.call(&grant, "read_file", black_box(arguments.clone()), &cx);
                black_box(block_on(call)).unwrap();
            });
        }
        "resolve" => {
            let registry = common::registry(1000);
            let settings = HostSettings::default();
            let config = RunConfig::default();
            let skills = common::skills();
            let inputs = RunInputs {
                settings: &settings,
                actor: None,
                config: &config,
                skills: &skills,
                selection: &Selection::All,
            };
            repeat(&mut || {
                let resolution = Gates::new(black_box(&registry), black_box(inputs)).resolve();
                black_box(resolution.grant.len());
            });
        }
        // One pass over every `allowed-tools` value of the skills corpus,
        // as in `tokenizer.rs`.
        "tokenize" => {
            let inputs = corpus::inputs();
            repeat(&mut || {
                for input in &inputs {
                    black_box(tokenize(black_box(input)));
                }
            });
        }
        "regex" => {
            let inputs = corpus::inputs();
            let one_line = Regex::new(corpus::ONE_LINE).expect("valid regex");
            repeat(&mut || {
                for input in &inputs {
                    let tokens: Vec<&str> = one_line
                        .find_iter(black_box(input))
                        .map(|m| m.as_str())
                        .collect();
                    black_box(tokens);
                }
            });
        }
        // One kilobyte of tool output (log lines, settings, a path, a
        // hash; one secret), as text and as JSON (docs/redaction.md).
        "redact-text" => {
            let text = kilobyte();
            repeat(&mut || {
                black_box(redact_text(black_box(&text)));
            });
        }
        "redact-json" => {
            let value = kilobyte_json();
            repeat(&mut || {
                black_box(redact_json(black_box(&value)));
            });
        }
        other => panic!("no path `{other}`; one of {PATHS:?}"),
    }
}

/// Lines of output as tools show them, 1,024 bytes in all.
const LINES: [&str; 6] = [
    "2026-03-01T12:00:00Z INFO mailer sent newsletter 42 to 1204 recipients in 3.2 s",
    "DATABASE_HOST=db.internal DATABASE_PORT=5432 DATABASE_USER=app",
    "GET /fileadmin/images/gallery-2026.jpg 200 48213 bytes",
    "deployed release v1.42.0 (commit 4bf13e873571ce82bb7672a002d0cbaabc549435)",
    "request 7f3c2a10-9b4e-4d21-a0c3-5e6f7a8b9c0d took 182 ms",
    "SMTP_PASSWORD=hunter2-but-longer",
];

fn kilobyte() -> String {
    let mut text = String::new();
    for line in LINES.iter().cycle() {
        if text.len() + line.len() + 1 > 1024 {
            break;
        }
        text.push_str(line);
        text.push('\n');
    }
    let pad = 1024 - text.len();
    text.push_str(&"x".repeat(pad));
    text
}

/// The same lines as the string values of a JSON object, about 1 KiB.
fn kilobyte_json() -> serde_json::Value {
    let mut object = serde_json::Map::new();
    for (i, line) in kilobyte().lines().enumerate() {
        object.insert(format!("line_{i}"), serde_json::Value::from(line));
    }
    serde_json::Value::Object(object)
}
