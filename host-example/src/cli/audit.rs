//! `host-example audit tail [-n N]`, `audit export` and `audit verify`.

use clap::Subcommand;
use site_model::Timestamp;

use host_example::app::AuditFilter;
use host_example::{plain_table, render_table};

use super::{Context, Failure};

#[derive(Debug, Subcommand)]
#[allow(
    clippy::large_enum_variant,
    reason = "parsed once per process from the command line"
)]
pub enum Command {
    /// Print the newest entries of the audit trail, oldest first.
    #[command(after_help = "Example: host-example audit tail -n 50")]
    Tail {
        /// How many entries.
        #[arg(short = 'n', default_value_t = 20)]
        n: usize,
    },
    /// Check the audit trail's chains with the key and heads files: every
    /// row's keyed hash, no row removed or moved, no tail cut. Exit code 1,
    /// naming the first row that is wrong, when something is.
    #[command(after_help = "Example: host-example audit verify")]
    Verify,
    /// Print the entries matching a filter as JSON Lines, newest first, for
    /// a log system (as an administrator, --user). The same rows as the
    /// audit page's export.
    #[command(
        after_help = "Example: host-example --user admin audit export --since 2026-12-01 --gate exposure --format jsonl"
    )]
    Export {
        /// From this day on (YYYY-MM-DD, UTC).
        #[arg(long)]
        since: Option<String>,
        /// Up to and including this day (YYYY-MM-DD, UTC).
        #[arg(long)]
        until: Option<String>,
        /// Who acted.
        #[arg(long)]
        actor: Option<String>,
        /// The tool or command.
        #[arg(long)]
        tool: Option<String>,
        /// `gate`, `call` or `write`.
        #[arg(long)]
        kind: Option<String>,
        /// What was decided (`denied`, `approved`, …).
        #[arg(long)]
        decision: Option<String>,
        /// The gate that decided.
        #[arg(long)]
        gate: Option<String>,
        /// The run.
        #[arg(long)]
        run: Option<String>,
        /// The output format; JSON Lines is the one there is.
        #[arg(long, default_value = "jsonl", value_parser = ["jsonl"])]
        format: String,
    },
}

pub async fn run(context: &Context, command: Command) -> Result<(), Failure> {
    let n = match command {
        Command::Tail { n } => n,
        Command::Verify => return verify(context).await,
        Command::Export {
            since,
            until,
            actor,
            tool,
            kind,
            decision,
            gate,
            run,
            format: _,
        } => {
            let day = |name: &str, value: Option<String>| -> Result<Option<i64>, Failure> {
                value
                    .map(|date| {
                        Timestamp::from_date(&date).map(|t| t.0).ok_or_else(|| {
                            Failure::new(format!("--{name}: `{date}` is not a date (YYYY-MM-DD)"))
                        })
                    })
                    .transpose()
            };
            let filter = AuditFilter {
                actor,
                tool,
                kind,
                decision,
                gate,
                run,
                from: day("since", since)?,
                until: day("until", until)?.map(|start| start + 86_400),
            };
            let viewer = context.user("audit export")?.to_owned();
            let host = context.host().await?;
            for record in host.admin().audit_export(&viewer, &filter).await? {
                let line = serde_json::to_string(&record)
                    .map_err(|error| Failure::new(error.to_string()))?;
                outln!("{line}");
            }
            return Ok(());
        }
    };
    let host = context.host().await?;
    let mut table = plain_table([
        "AT", "ACTOR", "KIND", "DECISION", "TOOL", "RUN", "GATE", "CLIENT", "PROTOCOL", "MS",
        "DETAIL",
    ]);
    let dash = |value: Option<String>| value.unwrap_or_else(|| "-".into());
    let viewer = context.user("audit tail")?;
    for entry in host.admin().audit_tail(viewer, n).await? {
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

async fn verify(context: &Context) -> Result<(), Failure> {
    let host = context.host().await?;
    let report = host
        .admin()
        .audit_verify(context.user("audit verify")?)
        .await?;
    let heads = match &report.heads_file {
        Some(file) => format!(
            "heads file {}: {} chains recorded",
            file.display(),
            report.heads
        ),
        None => "no heads file (a database in memory)".to_owned(),
    };
    outln!(
        "{} chained rows in {} chains checked; {} rows from before the chain (not covered); {heads}",
        report.rows,
        report.chains,
        report.before_chain
    );
    for problem in &report.problems {
        outln!("{problem}");
    }
    match report.problems.first() {
        None => {
            outln!("ok: the audit trail verifies");
            Ok(())
        }
        Some(first) => Err(Failure::new(format!(
            "the audit trail does not verify ({} problems); the first: {first}",
            report.problems.len()
        ))),
    }
}
