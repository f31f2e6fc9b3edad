//! `host-example tools`: the tools this host links, as a table.
//! `host-example skills check DIR…`: the skill folders below each DIR,
//! validated against those tools.

#![forbid(unsafe_code)]

use std::process::ExitCode;

use host_example::skills_check::{self, Format};

const USAGE: &str = "usage: host-example tools
       host-example skills check [--format text|json] DIR...

  tools          list the tools this host links
  skills check   validate every skill folder (a folder holding SKILL.md) below
                 each DIR, and its allowed-tools against this host's tools;
                 exits 0 with warnings only, 1 on any error, 2 on a usage error";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["tools"] => match host_example::registry() {
            Ok(registry) => {
                print!("{}", host_example::tools_table(&registry));
                ExitCode::SUCCESS
            }
            Err(error) => {
                eprintln!("error: {error}");
                ExitCode::FAILURE
            }
        },
        ["skills", "check", rest @ ..] => skills_check(rest),
        ["-h" | "--help" | "help"] => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn skills_check(args: &[&str]) -> ExitCode {
    let args = match skills_check::parse_check_args(args) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("error: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let registry = match host_example::registry() {
        Ok(registry) => registry,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::FAILURE;
        }
    };
    let known = skills_check::known_tools(&registry);
    let checked = match skills_check::check_dirs(&args.dirs, &known) {
        Ok(checked) => checked,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::from(2);
        }
    };
    match args.format {
        Format::Text => print!("{}", skills_check::render_text(&checked.findings)),
        Format::Json => println!("{}", skills_check::render_json(&checked.findings)),
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
