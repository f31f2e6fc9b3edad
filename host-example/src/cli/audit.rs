//! `host-example audit tail [-n N]`.

use clap::Subcommand;
use site_model::Timestamp;

use host_example::{plain_table, render_table};

use super::{Context, Failure};

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the newest entries of the audit trail, oldest first.
    #[command(after_help = "Example: host-example audit tail -n 50")]
    Tail {
        /// How many entries.
        #[arg(short = 'n', default_value_t = 20)]
        n: usize,
    },
}

pub async fn run(context: &Context, command: Command) -> Result<(), Failure> {
    let Command::Tail { n } = command;
    let host = context.host().await?;
    let mut table = plain_table([
        "AT", "ACTOR", "KIND", "DECISION", "TOOL", "RUN", "GATE", "CLIENT", "PROTOCOL", "MS",
        "DETAIL",
    ]);
    let dash = |value: Option<String>| value.unwrap_or_else(|| "-".into());
    for entry in host.audit_tail(n).await? {
        let client = entry.client.unwrap_or_default();
        // One word, so the columns stay split by whitespace.
        let client_name = client.name.map(|name| {
            let name = name.split_whitespace().collect::<Vec<_>>().join("_");
            match client.version {
                Some(version) => format!("{name}/{version}"),
                None => name,
            }
        });
        table.add_row([
            Timestamp(entry.at).to_string(),
            entry.actor,
            entry.kind.as_str().to_owned(),
            entry.decision,
            dash(entry.tool),
            dash(entry.run),
            dash(entry.gate),
            dash(client_name),
            dash(client.protocol),
            dash(entry.duration.map(|d| d.as_millis().to_string())),
            dash(entry.detail),
        ]);
    }
    outln!("{}", render_table(&table).trim_end());
    Ok(())
}
