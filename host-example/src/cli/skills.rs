//! `host-example skills check [--format text|json] [--approvals] DIR…`,
//! `skills approve DIR…` and `skills approved`.

use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Subcommand, ValueEnum};
use host_example::app::skills::check as skills_check;
use host_example::{plain_table, render_table};
use serde_json::json;
use site_model::Timestamp;

use super::{Context, Failure, block_on};

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Validate every skill folder (a folder holding SKILL.md) below each
    /// DIR, and its allowed-tools against this host's tools. Exits 0 with
    /// warnings only, 1 on any error, 2 on a usage error or a DIR that
    /// cannot be read.
    #[command(after_help = "Examples:
  host-example skills check --format json ./skills
  host-example --database sqlite://host.db?mode=rwc skills check --approvals ./skills")]
    Check {
        /// How to print the findings.
        #[arg(long, value_enum, default_value_t = FormatArg::Text)]
        format: FormatArg,
        /// Also check each skill against the approvals in the host's
        /// database (--database): a file changed since its skill was
        /// approved (A001), a skill never approved (A002, or the warning
        /// A003 when the setting unapproved_skills is "allow"), a folder
        /// that cannot be hashed (A004).
        #[arg(long)]
        approvals: bool,
        /// The folders to search for skill folders.
        #[arg(required = true, value_name = "DIR")]
        dirs: Vec<PathBuf>,
    },
    /// Approve every skill folder below each DIR (needs --user naming an
    /// administrator): records the SHA-256 of every file in each skill's
    /// folder, with who approved it and when, replacing an earlier
    /// approval of a skill of that name. A run trusts a skill only while
    /// its files match. All or nothing: a skill with an error (see
    /// `skills check`) approves nothing.
    #[command(after_help = "Example: host-example --user admin skills approve ./skills/review")]
    Approve {
        /// The skill folders, or folders holding them.
        #[arg(required = true, value_name = "DIR")]
        dirs: Vec<PathBuf>,
    },
    /// List the approved skills: name, digest (SHA-256 over every file),
    /// files, who approved each and when, and the folder approved.
    #[command(after_help = "Example: host-example skills approved --format json")]
    Approved {
        /// How to print them; JSON adds each file's SHA-256.
        #[arg(long, value_enum, default_value_t = FormatArg::Text)]
        format: FormatArg,
    },
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum FormatArg {
    /// `file:line:col: severity[code]: message`, or a table.
    Text,
    /// A JSON array.
    Json,
}

pub fn run(context: &Context, command: Command) -> Result<ExitCode, Failure> {
    match command {
        Command::Check {
            format,
            approvals,
            dirs,
        } => check(context, format, approvals, &dirs),
        Command::Approve { dirs } => block_on(approve(context, &dirs)).map(|()| ExitCode::SUCCESS),
        Command::Approved { format } => {
            block_on(approved(context, format)).map(|()| ExitCode::SUCCESS)
        }
    }
}

fn check(
    context: &Context,
    format: FormatArg,
    approvals: bool,
    dirs: &[PathBuf],
) -> Result<ExitCode, Failure> {
    let registry = host_example::registry().map_err(|error| Failure::new(error.to_string()))?;
    let known = registry.known_tools();
    let mut checked = match skills_check::check_dirs(dirs, &known) {
        Ok(checked) => checked,
        Err(error) => {
            eprintln!("error: {error}");
            return Ok(ExitCode::from(2));
        }
    };
    if approvals {
        block_on(async {
            let host = context.host().await?;
            Ok(host.skills().check_skill_approvals(&mut checked).await?)
        })?;
    }
    match format {
        // A person at a terminal gets the source line and a caret; a pipe
        // or a file gets one `file:line:col` line per finding.
        FormatArg::Text if std::io::stdout().is_terminal() => {
            out!(
                "{}",
                skills_check::render::render_annotated(&checked.findings)
            );
        }
        FormatArg::Text => out!("{}", skills_check::render::render_text(&checked.findings)),
        FormatArg::Json => outln!("{}", skills_check::render::render_json(&checked.findings)),
    }
    let (errors, warnings) = checked.counts();
    eprintln!(
        "checked {} skill file(s): {errors} error(s), {warnings} warning(s)",
        checked.skill_files.len()
    );
    if checked.skill_files.is_empty() {
        eprintln!("note: no folder holding a SKILL.md was found");
    }
    Ok(if checked.has_errors() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

async fn approve(context: &Context, dirs: &[PathBuf]) -> Result<(), Failure> {
    let actor = context.user("skills approve")?;
    let host = context.host().await?;
    for approval in host.skills().approve_skills(actor, dirs).await? {
        outln!(
            "approved {} sha256:{} ({} files) from {}",
            approval.name,
            approval.digest.digest,
            approval.digest.files.len(),
            approval.folder.display()
        );
    }
    Ok(())
}

async fn approved(context: &Context, format: FormatArg) -> Result<(), Failure> {
    let host = context.host().await?;
    let approvals = host
        .skills()
        .skill_approvals(context.user("skills approved")?)
        .await?;
    match format {
        FormatArg::Text => {
            let mut table = plain_table([
                "NAME",
                "SHA256",
                "FILES",
                "APPROVED BY",
                "APPROVED",
                "FOLDER",
            ]);
            for approval in approvals {
                table.add_row([
                    approval.name,
                    approval.digest.digest,
                    approval.digest.files.len().to_string(),
                    approval.approved_by,
                    Timestamp(approval.approved_at).to_string(),
                    approval.folder.display().to_string(),
                ]);
            }
            out!("{}", render_table(&table));
        }
        FormatArg::Json => {
            let rows: Vec<_> = approvals
                .iter()
                .map(|approval| {
                    json!({
                        "name": approval.name,
                        "sha256": approval.digest.digest,
                        "files": approval.digest.files,
                        "approved_by": approval.approved_by,
                        "approved_at": approval.approved_at,
                        "folder": approval.folder,
                    })
                })
                .collect();
            let text = serde_json::to_string_pretty(&rows)
                .map_err(|error| Failure::new(error.to_string()))?;
            outln!("{text}");
        }
    }
    Ok(())
}
