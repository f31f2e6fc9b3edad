//! `host-example db migrate`.

use clap::Subcommand;
use host_example::app::LATEST_VERSION;

use super::{Context, Failure};

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create the database if it is missing, apply every migration it
    /// lacks, and seed it with the demo site on first use. Every command
    /// that opens the database does the same; this one only does that.
    #[command(after_help = "Example: host-example --database sqlite://host.db?mode=rwc db migrate")]
    Migrate,
}

pub async fn run(context: &Context, command: Command) -> Result<(), Failure> {
    let Command::Migrate = command;
    let version = context.host().await?.schema_version().await?;
    outln!("database at schema version {version} (this build knows up to {LATEST_VERSION})");
    Ok(())
}
