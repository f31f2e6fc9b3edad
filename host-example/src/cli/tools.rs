//! `host-example tools [--offered]`.

use clap::Args;

use super::{Context, Failure, block_on};

#[derive(Debug, Args)]
pub struct Command {
    /// Instead of every linked tool: the tools a run of --user is offered
    /// now (the settings, the trust zone and their administrator flag as
    /// they are now, no skill), one `GROUP TOOL` line each.
    #[arg(long)]
    offered: bool,
}

pub fn run(context: &Context, command: Command) -> Result<(), Failure> {
    if command.offered {
        let user = context.user("tools --offered")?;
        return block_on(async {
            let host = context.host().await?;
            let actor = host.actor(user).await?;
            let offer = host.offer(&actor).await?;
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
