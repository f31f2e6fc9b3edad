//! The agent-loop benchmark's paths (BENCHMARKS.md, "Agent loop"), for
//! counting instructions under callgrind: `agent_instructions PATH N` makes
//! one warm-up run of PATH, then N more; `tool-core/benches/callgrind.sh`
//! runs `agent-*` paths with this driver.
//!
//! Run without a path (as `cargo bench` does), it only lists the paths.

mod agent_run;

use std::hint::black_box;

use futures_executor::block_on;
use tool_core::agent::{Agent, Event, RunEnd};
use tool_core::{RunId, ToolContext};

const PATHS: &[&str] = &["agent-none", "agent-listening", "agent-model"];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(path), Some(count)) = (args.first(), args.get(1)) else {
        println!("agent_instructions PATH N, PATH one of {PATHS:?}");
        return;
    };
    let count: usize = count.parse().expect("N is a number of runs");
    run(path, count);
}

fn run(path: &str, count: usize) {
    let cx = ToolContext::new(RunId("bench".into()));
    let repeat = |call: &mut dyn FnMut()| {
        for _ in 0..=count {
            call();
        }
    };
    match path {
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
