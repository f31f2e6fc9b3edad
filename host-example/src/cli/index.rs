//! `host-example index status` and `index rebuild`: the public search
//! index behind the `rag` tools.

use clap::Subcommand;
use host_example::app::index::IndexStatus;

use super::{Context, Failure};

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Bring the index up to the site's generation (building it when it
    /// is missing) and show where it stands.
    #[command(after_help = "Example: host-example index status")]
    Status,
    /// Build the index again from what the public may read of the site,
    /// even when it is current.
    #[command(after_help = "Example: host-example --search-backend database index rebuild")]
    Rebuild,
}

pub async fn run(context: &Context, command: Command) -> Result<(), Failure> {
    let host = context.host().await?;
    let status = host
        .refresh_index(matches!(command, Command::Rebuild))
        .await?;
    print_status(&status)
}

fn print_status(status: &IndexStatus) -> Result<(), Failure> {
    outln!("preferred backend:  {}", status.preferred);
    outln!("answering backend:  {}", status.answering);
    if let Some(reason) = &status.fallback_reason {
        outln!("fallback because:   {reason}");
    }
    outln!("public sources:     {}", status.sources);
    outln!(
        "generation:         index {} of site {}{}",
        status.index_generation,
        status.site_generation,
        if status.index_generation == status.site_generation {
            " (current)"
        } else {
            " (behind)"
        }
    );
    outln!("tantivy index at:   {}", status.location);
    Ok(())
}
