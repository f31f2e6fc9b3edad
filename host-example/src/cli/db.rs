//! `host-example db migrate`, `db backup FILE`, `db check`.

use std::path::PathBuf;

use clap::Subcommand;
use host_example::app::{Backend, LATEST_VERSION};

use super::{Context, Failure};

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create the database if it is missing, apply every migration it
    /// lacks, and seed it with the demo site on first use. Every command
    /// that opens the database does the same; this one only does that.
    #[command(after_help = "Example: host-example --database sqlite://host.db?mode=rwc db migrate")]
    Migrate,
    /// Write a consistent copy of a SQLite database to FILE (which must not
    /// exist), safe while the host runs. A PostgreSQL database is backed up
    /// with pg_dump: this command says so and exits 1.
    #[command(after_help = "Example: host-example db backup /srv/backups/host-2026-12-02.db")]
    Backup {
        /// Where the copy goes; it must not exist.
        file: PathBuf,
    },
    /// Check the database: SQLite's integrity check, the schema version,
    /// and the rows of the main tables. Exits 1 if the check finds damage.
    #[command(after_help = "Example: host-example db check")]
    Check,
}

pub async fn run(context: &Context, command: Command) -> Result<(), Failure> {
    let host = context.host().await?;
    match command {
        Command::Migrate => {
            let version = host.admin().schema_version().await?;
            outln!(
                "database at schema version {version} (this build knows up to {LATEST_VERSION})"
            );
        }
        Command::Backup { file } => {
            host.admin().backup_database(&file).await?;
            outln!("backed up to {}", file.display());
        }
        Command::Check => {
            let check = host.admin().check_database().await?;
            match (&check.integrity, check.backend) {
                (Some(lines), _) => outln!("integrity: {}", lines.join("; ")),
                (None, Backend::Postgres) => {
                    outln!("integrity: checked by the PostgreSQL server as it reads its pages")
                }
                (None, Backend::Sqlite) => {}
            }
            outln!(
                "schema version: {} (this build knows up to {LATEST_VERSION})",
                check.schema_version
            );
            for (table, rows) in &check.counts {
                outln!("{table}: {rows} rows");
            }
            if !check.is_sound() {
                return Err(Failure::new(
                    "the database is damaged: restore it from a backup",
                ));
            }
        }
    }
    Ok(())
}
