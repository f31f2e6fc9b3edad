//! The gate benchmarks' paths, for counting instructions under callgrind
//! (BENCHMARKS.md, "Gates"): `instructions PATH N` makes one warm-up call of
//! PATH, then N more. The cost of one call is the difference between the
//! counts for N and for 0, divided by N; `tool-core/benches/callgrind.sh`
//! runs every path that way.
//!
//! Run without a path (as `cargo bench` does), it only lists the paths.

mod agent_run;
mod common;
mod corpus;

use std::hint::black_box;

use futures_executor::block_on;
use regex::Regex;
use tool_core::agent::{Agent, Event, RunEnd};
use tool_core::gates::{Gates, HostSettings, RunConfig, RunInputs, Selection};
use tool_core::skills::tokenize;
use tool_core::{RunId, ToolContext};

const PATHS: &[&str] = &[
    "bare",
    "registry",
    "gated",
    "check",
    "granted-3",
    "granted-1000",
    "unscoped",
    "scoped",
    "resolve",
    "tokenize",
    "regex",
    "agent-none",
    "agent-listening",
    "agent-model",
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
        // A whole run of the agent-loop bench (`agent_loop.rs`): 5 rounds,
        // so a round is a fifth of it. `agent-model` is the model alone on
        // the same 5 requests.
        "agent-none" | "agent-listening" => {
            let registry = agent_run::registry();
            let model = agent_run::CannedModel::new();
            let host = agent_run::Host::new();
            let listening = path == "agent-listening";
            repeat(&mut || {
                let history = agent_run::history();
                let agent = Agent::new(&registry, &model);
                let end = if listening {
                    let mut sink = |event: &Event| {
                        black_box(event);
                    };
                    block_on(agent.start(history, host.inputs(), &cx, &mut sink))
                } else {
                    block_on(agent.start(history, host.inputs(), &cx, &mut ()))
                };
                assert!(matches!(end, RunEnd::Finished(_)));
            });
        }
        "agent-model" => {
            let registry = agent_run::registry();
            let model = agent_run::CannedModel::new();
            let requests = agent_run::requests(&registry, &model);
            repeat(&mut || {
                // The history the runs build each time, for the same work.
                black_box(agent_run::history());
                for (messages, tools) in &requests {
                    black_box(model.answer(messages, tools.as_deref()).expect("canned"));
                }
            });
        }
        other => panic!("no path `{other}`; one of {PATHS:?}"),
    }
}
