//! `host-example tools [--offered | --for USER [--format json]]`.

use clap::{Args, ValueEnum};

use super::{Context, Failure, block_on};

#[derive(Debug, Args)]
pub struct Command {
    /// Instead of every linked tool: the tools a run of --user is offered
    /// now (the settings, the trust zone and their administrator flag as
    /// they are now, no skill), one `GROUP TOOL` line each.
    #[arg(long, conflicts_with = "for_user")]
    offered: bool,
    /// Every tool for USER now: offered, or the gate that refused it and
    /// why (what USER's MCP client is offered). --user may ask for
    /// themselves; for another user they must be an administrator.
    #[arg(long = "for", value_name = "USER")]
    for_user: Option<String>,
    /// With --for: a table for people, or JSON (one array of objects with
    /// `tool`, `group`, `offered`, and for a refused tool `gate` and
    /// `reason`).
    #[arg(long, value_enum, default_value_t = Format::Table, requires = "for_user")]
    format: Format,
}

/// How `--for` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Table,
    Json,
}

pub fn run(context: &Context, command: Command) -> Result<(), Failure> {
    if let Some(subject) = &command.for_user {
        let viewer = context.user("tools --for")?;
        return block_on(async {
            let host = context.host().await?;
            let verdicts = host.calls().tool_verdicts(viewer, subject).await?;
            if command.format == Format::Json {
                let json = serde_json::to_string_pretty(&verdicts)
                    .map_err(|error| Failure::new(error.to_string()))?;
                outln!("{json}");
                return Ok(());
            }
            let mut table = host_example::plain_table(["TOOL", "GROUP", "OFFERED", "WHY NOT"]);
            for verdict in &verdicts {
                table.add_row([
                    verdict.tool.clone(),
                    verdict.group.clone(),
                    if verdict.offered { "yes" } else { "no" }.to_owned(),
                    verdict.reason.clone().unwrap_or_default(),
                ]);
            }
            out!("{}", host_example::render_table(&table));
            Ok(())
        });
    }
    if command.offered {
        let user = context.user("tools --offered")?;
        return block_on(async {
            let host = context.host().await?;
            let actor = host.actor(user).await?;
            let offer = host.admin().offer(&actor).await?;
            for (group, tools) in &offer.by_group {
                for tool in tools {
                    outln!("{group}  {tool}");
                }
            }
            Ok(())
        });
    }
    let registry = host_example::registry().map_err(|error| Failure::new(error.to_string()))?;
    out!("{}", host_example::tools_table(&registry));
    Ok(())
}
