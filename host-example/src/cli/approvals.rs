//! `host-example approvals list|show|approve|withdraw|reject|standing|revoke-standing`.

use clap::Subcommand;
use host_example::app::approvals::{Applied, NOT_APPLIED, ProposalView, Recorded};
use host_example::{plain_table, render_table};
use site_model::Timestamp;

use super::progress::Progress;
use super::run::{proposal_text, show_report};
use super::{Context, Failure};

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List the proposals waiting for a decision: id, tool, record,
    /// requester, age.
    #[command(after_help = "Example: host-example approvals list")]
    List,
    /// Show one proposal whole: every field with its old and new value.
    #[command(after_help = "Example: host-example approvals show 3f2a…")]
    Show {
        /// The proposal's id.
        id: String,
    },
    /// Approve a proposal (as --user, who must pass the gates for its
    /// tool), apply it, and continue its run to its end.
    #[command(after_help = "Examples:
  host-example approvals approve 3f2a… --user ops
  host-example approvals approve 3f2a… --user ops --rest-of-run kind")]
    Approve {
        /// The proposal's id.
        id: String,
        /// Also approve the rest of this run's proposals of the same tool,
        /// limited to this record (`record`), these fields (`field`) or
        /// records of this kind (`kind`): a standing approval, until the
        /// run ends or it is revoked. Not for a single call's proposal,
        /// nor where the tool needs two approvers.
        #[arg(long, value_name = "record|field|kind")]
        rest_of_run: Option<String>,
    },
    /// List the standing approvals in force for a run.
    #[command(after_help = "Example: host-example approvals standing run-1f2e… --user ops")]
    Standing {
        /// The run's id.
        run: String,
    },
    /// Revoke a standing approval (as --user: its approver or an
    /// administrator); the run's later proposals wait for a person again.
    #[command(
        after_help = "Example: host-example approvals revoke-standing standing-9c1d… --user ops"
    )]
    RevokeStanding {
        /// The standing approval's id.
        id: String,
    },
    /// Take back your first approval of a proposal whose tool needs two
    /// approvers (as --user), while it is undecided.
    #[command(after_help = "Example: host-example approvals withdraw 3f2a… --user ops")]
    Withdraw {
        /// The proposal's id.
        id: String,
    },
    /// Reject a proposal (as --user): nothing is written; the run goes on
    /// and the model reads the reason.
    #[command(
        after_help = "Example: host-example approvals reject 3f2a… --user ops --reason \"keep the old title\""
    )]
    Reject {
        /// The proposal's id.
        id: String,
        /// Why, for the model.
        #[arg(long, default_value = "")]
        reason: String,
    },
}

pub async fn run(context: &Context, command: Command) -> Result<(), Failure> {
    match command {
        Command::List => {
            let host = context.host().await?;
            let viewer = context.user("approvals list")?;
            let now = host_example_now();
            let mut table = plain_table(["ID", "TOOL", "RECORD", "REQUESTER", "AGE", "NEEDS"]);
            for view in host.approvals().pending_proposals(viewer).await? {
                let proposal = &view.stored.proposal;
                table.add_row([
                    proposal.id().as_str().to_owned(),
                    proposal.tool().to_owned(),
                    proposal.record.clone(),
                    view.requester.clone(),
                    age(now.saturating_sub(proposal.created_at())),
                    view.still_needs.clone().unwrap_or_default(),
                ]);
            }
            out!("{}", render_table(&table));
            Ok(())
        }
        Command::Show { id } => {
            let host = context.host().await?;
            let viewer = context.user("approvals show")?;
            show(&host.approvals().proposal_for(viewer, &id).await?)?;
            Ok(())
        }
        Command::Approve { id, rest_of_run } => {
            let approver = context.user("approvals approve")?.to_owned();
            let host = context.host().await?;
            let mut progress = Progress::new();
            let approved = match &rest_of_run {
                None => {
                    host.approvals()
                        .approve(&id, &approver, &mut progress)
                        .await
                }
                Some(scope) => {
                    host.approvals()
                        .approve_standing(&id, &approver, scope, &mut progress)
                        .await
                }
            };
            drop(progress);
            match approved? {
                // The first approval of two is recorded: done, for now.
                Recorded::Waiting(waiting) => {
                    outln!("recorded: {waiting}");
                    Ok(())
                }
                Recorded::Decided(decided) => {
                    if let Some(Applied::Written(written)) = &decided.applied {
                        outln!("applied: {written}");
                    }
                    if let Some(report) = &decided.report {
                        show_report(report)?;
                    }
                    // Nothing written is a failure, in every door's words.
                    match decided.applied.as_ref().and_then(Applied::not_applied) {
                        Some(words) => Err(Failure::new(format!("proposal {id}: {words}"))),
                        None => Ok(()),
                    }
                }
            }
        }
        Command::Standing { run } => {
            let viewer = context.user("approvals standing")?.to_owned();
            let host = context.host().await?;
            let mut table = plain_table(["ID", "TOOL", "APPROVER", "LIMIT"]);
            for standing in host.approvals().standing_of_run(&viewer, &run).await? {
                table.add_row([
                    standing.id.clone(),
                    standing.tool.clone(),
                    standing.approver.id.clone(),
                    standing.limit.to_string(),
                ]);
            }
            out!("{}", render_table(&table));
            Ok(())
        }
        Command::RevokeStanding { id } => {
            let by = context.user("approvals revoke-standing")?.to_owned();
            let host = context.host().await?;
            host.approvals().revoke_standing(&id, &by).await?;
            outln!("revoked standing approval {id}");
            Ok(())
        }
        Command::Withdraw { id } => {
            let approver = context.user("approvals withdraw")?.to_owned();
            let host = context.host().await?;
            host.approvals().withdraw_approval(&id, &approver).await?;
            outln!("withdrew your approval of proposal {id}");
            Ok(())
        }
        Command::Reject { id, reason } => {
            let approver = context.user("approvals reject")?.to_owned();
            let host = context.host().await?;
            let mut progress = Progress::new();
            let recorded = host
                .approvals()
                .reject(&id, &approver, &reason, &mut progress)
                .await?;
            drop(progress);
            outln!("rejected proposal {id}");
            match recorded.decided().and_then(|decided| decided.report) {
                Some(report) => show_report(&report),
                None => Ok(()),
            }
        }
    }
}

fn show(view: &ProposalView) -> Result<(), Failure> {
    let proposal = &view.stored.proposal;
    outln!("proposal:  {}", proposal.id().as_str());
    outln!("status:    {}", view.stored.status);
    if let Some(decision) = &view.decision {
        outln!("decided:   {}", host_example::app::describe(decision));
    }
    if let Some(why) = &view.not_applied {
        outln!("applied:   {NOT_APPLIED}: {why}");
    }
    if let Some(held) = &view.held {
        outln!("held:      {held}");
    }
    if let Some(needs) = &view.still_needs {
        outln!("needs:     {needs}");
    }
    outln!("run:       {}", view.stored.run.0);
    outln!("requester: {}", view.requester);
    outln!(
        "created:   {}",
        Timestamp(i64::try_from(proposal.created_at()).unwrap_or(i64::MAX))
    );
    outln!("arguments: {}", proposal.arguments());
    out!("{}", proposal_text(proposal));
    Ok(())
}

fn host_example_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// `42s`, `7m`, `3h`, `2d`.
fn age(seconds: u64) -> String {
    match seconds {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m", s / 60),
        s if s < 86_400 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86_400),
    }
}
