//! The `host-example` command: see `host-example --help`. Each subcommand
//! lives in `cli/`, a thin adapter over the library (the store, the
//! registry, the skills check).

#![forbid(unsafe_code)]

use std::process::ExitCode;

mod cli;

fn main() -> ExitCode {
    cli::main()
}
