//! `host-example run "PROMPT" --user NAME [--skill NAME]… [--max-rounds N]
//! [--group GROUP]… [--tool TOOL]…`.

use clap::Args;
use host_example::app::RunRequest;
use host_example::app::runs::{RunEnded, RunReport};
use tool_core::Proposal;
use tool_core::agent::{Finished, RunStatus};
use tool_core::gates::Selection;

use super::progress::Progress;
use super::{Context, Failure};

#[derive(Debug, Args)]
#[command(
    after_help = "Example: host-example run \"Which tables does the site have?\" --user admin"
)]
pub struct Command {
    /// What to ask.
    prompt: String,
    /// A skill to use, by name, from the settings' skills folders; may be
    /// given more than once.
    #[arg(long = "skill", value_name = "NAME")]
    skills: Vec<String>,
    /// How many rounds may offer tools.
    #[arg(long, value_name = "N", default_value_t = host_example::app::DEFAULT_ROUNDS)]
    max_rounds: u32,
    /// A tool group the run is offered (every tool of it the gates allow);
    /// may be given more than once. With none, and no `--tool`, every
    /// tool the gates allow.
    #[arg(long = "group", value_name = "GROUP")]
    groups: Vec<String>,
    /// A tool the run is offered, if the gates allow it; may be given more
    /// than once.
    #[arg(long = "tool", value_name = "TOOL")]
    tools: Vec<String>,
}

pub async fn run(context: &Context, command: Command) -> Result<(), Failure> {
    let user = context.user("run")?.to_owned();
    let host = context.host().await?;
    let request = RunRequest {
        skills: command.skills,
        max_rounds: command.max_rounds,
        tools: if command.tools.is_empty() {
            Selection::All
        } else {
            Selection::Only(command.tools.into_iter().collect())
        },
        groups: command.groups.into_iter().collect(),
        ..RunRequest::new(command.prompt)
    };
    let mut progress = Progress::new();
    let report = host.runs().start_run(&user, request, &mut progress).await?;
    drop(progress);
    show_report(&report)
}

/// How a run (started or resumed) ended, for people; a failed run is a
/// failure.
pub fn show_report(report: &RunReport) -> Result<(), Failure> {
    match &report.ended {
        RunEnded::Finished(finished) => show_finished(&report.run.0, finished),
        RunEnded::Suspended(proposal) => show_proposal(&report.run.0, proposal),
    }
}

fn show_finished(run: &str, finished: &Finished) -> Result<(), Failure> {
    let usage = finished.usage;
    let tokens = format!(
        "{} rounds, {} tokens in, {} out",
        finished.rounds, usage.input_tokens, usage.output_tokens
    );
    match &finished.status {
        RunStatus::Failed { error } => Err(Failure::new(format!(
            "run {run} failed: {error} (its conversation is kept; see `host-example runs show {run}`)"
        ))),
        status => {
            outln!();
            outln!("{}", finished.answer.as_deref().unwrap_or("(no answer)"));
            outln!();
            let how = match status {
                RunStatus::Truncated => " (truncated at the round cap)".to_owned(),
                RunStatus::Budget { reason } => format!(" (stopped by the budget: {reason})"),
                _ => String::new(),
            };
            outln!("run {run} finished{how}: {tokens}");
            Ok(())
        }
    }
}

fn show_proposal(run: &str, proposal: &Proposal) -> Result<(), Failure> {
    outln!();
    outln!(
        "run {run} waits for approval of proposal {}",
        proposal.id().as_str()
    );
    out!("{}", proposal_text(proposal));
    outln!(
        "approve: host-example approvals approve {} --user NAME",
        proposal.id().as_str()
    );
    outln!(
        "reject:  host-example approvals reject {} --user NAME --reason TEXT",
        proposal.id().as_str()
    );
    Ok(())
}

/// A proposal's tool, record, summary and every replaced value.
pub fn proposal_text(proposal: &Proposal) -> String {
    let mut text = format!(
        "  {} on {}: {}\n",
        proposal.tool(),
        proposal.record,
        proposal.summary
    );
    for change in &proposal.changes {
        text.push_str(&format!(
            "    {}: {} → {}\n",
            change.field, change.replaces, change.new
        ));
    }
    text
}
