//! `host-example skills check [--format text|json] DIR…`.

use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Subcommand, ValueEnum};
use host_example::skills_check;

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Validate every skill folder (a folder holding SKILL.md) below each
    /// DIR, and its allowed-tools against this host's tools. Exits 0 with
    /// warnings only, 1 on any error, 2 on a usage error or a DIR that
    /// cannot be read.
    #[command(after_help = "Example: host-example skills check --format json ./skills")]
    Check {
        /// How to print the findings.
        #[arg(long, value_enum, default_value_t = FormatArg::Text)]
        format: FormatArg,
        /// The folders to search for skill folders.
        #[arg(required = true, value_name = "DIR")]
        dirs: Vec<PathBuf>,
    },
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum FormatArg {
    /// `file:line:col: severity[code]: message`.
    Text,
    /// A JSON array.
    Json,
}

pub fn run(command: Command) -> ExitCode {
    let Command::Check { format, dirs } = command;
    let registry = match host_example::registry() {
        Ok(registry) => registry,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::FAILURE;
        }
    };
    let known = registry.known_tools();
    let checked = match skills_check::check_dirs(&dirs, &known) {
        Ok(checked) => checked,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::from(2);
        }
    };
    match format {
        // A person at a terminal gets the source line and a caret; a pipe
        // or a file gets one `file:line:col` line per finding.
        FormatArg::Text if std::io::stdout().is_terminal() => {
            print!("{}", skills_check::render_annotated(&checked.findings));
        }
        FormatArg::Text => print!("{}", skills_check::render_text(&checked.findings)),
        FormatArg::Json => println!("{}", skills_check::render_json(&checked.findings)),
    }
    let (errors, warnings) = checked.counts();
    eprintln!(
        "checked {} skill file(s): {errors} error(s), {warnings} warning(s)",
        checked.skill_files.len()
    );
    if checked.skill_files.is_empty() {
        eprintln!("note: no folder holding a SKILL.md was found");
    }
    if checked.has_errors() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
