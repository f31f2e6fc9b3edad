//! `host-example runs list|show`.

use clap::Subcommand;
use host_example::{plain_table, render_table};
use site_model::Timestamp;
use tool_core::agent::{CallResult, Event};

use super::{Context, Failure};
use host_example::app::recorder::cut;

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List the newest runs: id, user, status, created, rounds.
    #[command(after_help = "Example: host-example runs list -n 50")]
    List {
        /// How many runs.
        #[arg(short = 'n', default_value_t = 20)]
        n: usize,
    },
    /// Show one run: its status, answer, the host's notes (such as a skill
    /// it did not trust, and why) and events.
    #[command(after_help = "Example: host-example runs show run-0123456789abcdef")]
    Show {
        /// The run's id.
        id: String,
    },
}

pub async fn run(context: &Context, command: Command) -> Result<(), Failure> {
    let viewer = context.user("runs")?;
    let host = context.host().await?;
    match command {
        Command::List { n } => {
            let mut table = plain_table(["ID", "USER", "STATUS", "CREATED", "ROUNDS"]);
            for run in host.runs().list(viewer, n).await? {
                table.add_row([
                    run.id.0,
                    run.user,
                    run.status.to_string(),
                    Timestamp(run.created_at).to_string(),
                    run.rounds.to_string(),
                ]);
            }
            out!("{}", render_table(&table));
            Ok(())
        }
        Command::Show { id } => {
            let detail = host.runs().run_detail(viewer, &id).await?;
            let run = &detail.run;
            outln!("run:     {}", run.id.0);
            outln!("user:    {}", run.user);
            outln!("status:  {}", run.status);
            outln!("created: {}", Timestamp(run.created_at));
            if let Some(request) = &run.request {
                outln!("prompt:  {}", request.prompt);
            }
            outln!(
                "tokens:  {} in, {} out",
                run.usage.input_tokens,
                run.usage.output_tokens
            );
            if let Some(answer) = &run.answer {
                outln!("answer:  {answer}");
            }
            if !detail.notes.is_empty() {
                outln!("notes:");
                for (n, note) in detail.notes.iter().enumerate() {
                    outln!("  {:>3} {note}", n + 1);
                }
            }
            outln!("events:");
            for (n, event) in detail.events.iter().enumerate() {
                outln!("  {:>3} {}", n + 1, summary(event));
            }
            Ok(())
        }
    }
}

/// One event on one line.
fn summary(event: &Event) -> String {
    match event {
        Event::RoundStarted { round } => format!("round {round} started"),
        Event::ContextBudget { budget, .. } => format!(
            "context: about {} of {} tokens, {} left (an estimate)",
            budget.total(),
            budget.limits.window,
            budget.left()
        ),
        Event::RequestSent {
            messages, tools, ..
        } => format!(
            "request: {} messages, {} tools",
            messages.len(),
            tools.as_deref().map_or(0, <[_]>::len)
        ),
        Event::ResponseReceived {
            text, calls, usage, ..
        } => {
            let names: Vec<&str> = calls.iter().map(|c| c.name.as_str()).collect();
            format!(
                "response: {} calls [{}], {} tokens{}",
                calls.len(),
                names.join(", "),
                usage.total(),
                if text.is_empty() {
                    String::new()
                } else {
                    format!(": {}", cut(&text.replace('\n', " "), 60))
                }
            )
        }
        Event::ToolExecuted {
            tool,
            arguments,
            result,
            ..
        } => {
            let result = match result {
                CallResult::Output { .. } => "ok".to_owned(),
                CallResult::Proposed { proposal } => {
                    format!("proposed {}", proposal.id().as_str())
                }
                CallResult::Error { detail, .. } => format!("error: {}", cut(detail, 60)),
            };
            format!("{tool} {}: {result}", cut(&arguments.to_string(), 60))
        }
        Event::Suspended { proposal, .. } => {
            format!("suspended for proposal {}", proposal.id().as_str())
        }
        Event::ExposureRaised {
            call_id,
            tool,
            exposure,
            withdrawn,
            ..
        } => host_example::app::describe_exposure(tool, call_id, exposure, withdrawn),
        Event::Resumed { decision, .. } => {
            format!("resumed: {}", host_example::app::describe(decision))
        }
        Event::Finished { status, rounds, .. } => {
            let status = serde_json::to_value(status)
                .ok()
                .and_then(|v| v["status"].as_str().map(str::to_owned))
                .unwrap_or_default();
            format!("finished: {status} after {rounds} rounds")
        }
        _ => "other".to_owned(),
    }
}
