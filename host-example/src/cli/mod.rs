//! The command line: global options, the subcommands, and how a failure
//! becomes one line on stderr and an exit code. Each subcommand's file
//! parses nothing itself (clap does) and holds no rule: it calls the store
//! or the library and prints.

mod approvals;
mod audit;
mod db;
mod mcp;
mod progress;
mod run;
mod runs;
mod serve;
mod settings;
mod skills;
mod tools;
mod users;

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};
use host_example::store::{DEFAULT_DATABASE_URL, Store, StoreError};
use host_example::{Host, HostError};

const EXIT_CODES: &str = "Exit codes: 0 ok, 1 refused or failed (the reason is one line on stderr, \
starting with `error:`), 2 usage error (a wrong option or argument).";

/// The host: the tools it links, its skills, and its database of site,
/// settings, users and audit trail.
#[derive(Debug, Parser)]
#[command(
    name = "host-example",
    version,
    after_help = EXIT_CODES,
    after_long_help = EXIT_CODES
)]
pub struct Cli {
    /// The database: `sqlite://FILE?mode=rwc` (a file, created, migrated
    /// and seeded with the demo site on first use) or
    /// `postgres://USER:PASSWORD@HOST:PORT/DATABASE` (shared by several
    /// host processes).
    #[arg(
        long,
        global = true,
        env = "HOST_DATABASE_URL",
        default_value = DEFAULT_DATABASE_URL,
        value_name = "URL"
    )]
    database: String,

    /// The host user acting; commands that change users or settings need
    /// an administrator (a fresh database has `admin` and `ops`, password
    /// `demo`). Taken on trust: whoever can run this command against the
    /// database can read and write it directly anyway.
    #[arg(long, global = true, env = "HOST_USER", value_name = "NAME")]
    user: Option<String>,

    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List the tools this host links, as a table.
    #[command(after_help = "Example: host-example tools")]
    Tools,
    /// Check, approve and list skill folders.
    #[command(subcommand)]
    Skills(skills::Command),
    /// Work with the database itself.
    #[command(subcommand)]
    Db(db::Command),
    /// Add and list host users, and make bearer tokens.
    #[command(subcommand)]
    Users(users::Command),
    /// Show and change the host's settings.
    #[command(subcommand)]
    Settings(settings::Command),
    /// Read the audit trail.
    #[command(subcommand)]
    Audit(audit::Command),
    /// Serve the host's tools over MCP on stdin and stdout, acting for
    /// --user (the form Claude Desktop and Claude Code start).
    #[command(
        after_help = "Example: host-example --database sqlite:///abs/path/host-example.db?mode=rwc mcp --user admin"
    )]
    Mcp,
    /// Serve the host over HTTP: MCP (Streamable HTTP) at /mcp, with
    /// bearer tokens from `host-example users token NAME`.
    Serve(serve::Command),
    /// Run the agent as --user: the model calls the tools the gates grant;
    /// a change it proposes waits for approval.
    Run(run::Command),
    /// List and show runs.
    #[command(subcommand)]
    Runs(runs::Command),
    /// List, show, approve and reject proposed changes.
    #[command(subcommand)]
    Approvals(approvals::Command),
}

/// A command's failure: one line for the user, and the exit code.
#[derive(Debug)]
pub struct Failure {
    message: String,
    code: u8,
}

impl Failure {
    /// A refusal or failure: exit code 1.
    pub fn new(message: impl Into<String>) -> Self {
        Failure {
            message: message.into(),
            code: 1,
        }
    }
}

impl From<StoreError> for Failure {
    fn from(error: StoreError) -> Self {
        Failure::new(error.to_string())
    }
}

impl From<HostError> for Failure {
    fn from(error: HostError) -> Self {
        Failure::new(error.to_string())
    }
}

/// What every subcommand gets: the global options.
pub struct Context {
    database: String,
    user: Option<String>,
}

impl Context {
    /// The database, opened (migrated and seeded on first use).
    pub async fn store(&self) -> Result<Store, Failure> {
        Ok(Store::open(&self.database).await?)
    }

    /// The host's middle layer over the database.
    pub async fn host(&self) -> Result<Host, Failure> {
        Ok(Host::new(self.store().await?)?)
    }

    /// The acting user's name, or a failure saying to pass `--user`.
    pub fn user(&self, doing: &str) -> Result<&str, Failure> {
        self.user.as_deref().ok_or_else(|| {
            Failure::new(format!(
                "{doing} needs to know who is acting: pass --user NAME (or set HOST_USER)"
            ))
        })
    }
}

/// Parses the command line, runs the command, and turns its result into
/// an exit code.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => return usage_error(&error),
    };
    let context = Context {
        database: cli.database,
        user: cli.user,
    };
    let mut exit = ExitCode::SUCCESS;
    let result = match cli.command {
        Command::Tools => tools::run(),
        Command::Skills(command) => skills::run(&context, command).map(|code| {
            exit = code;
        }),
        Command::Db(command) => block_on(db::run(&context, command)),
        Command::Users(command) => block_on(users::run(&context, command)),
        Command::Settings(command) => block_on(settings::run(&context, command)),
        Command::Audit(command) => block_on(audit::run(&context, command)),
        Command::Mcp => block_on(mcp::run(&context)),
        Command::Serve(command) => serve::run(&context, command),
        Command::Run(command) => block_on(run::run(&context, command)),
        Command::Runs(command) => block_on(runs::run(&context, command)),
        Command::Approvals(command) => block_on(approvals::run(&context, command)),
    };
    match result {
        Ok(()) => exit,
        Err(failure) => {
            eprintln!("error: {}", failure.message.replace('\n', " "));
            ExitCode::from(failure.code)
        }
    }
}

/// Help and version exit 0 as clap prints them; any other parse error
/// exits 2 with the usage of the subcommand it is about, even for errors
/// clap prints without one (an invalid value).
fn usage_error(error: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        error.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
    ) {
        let _ = error.print();
        return ExitCode::SUCCESS;
    }
    let text = error.render().to_string();
    eprint!("{text}");
    if !text.contains("Usage:") {
        let mut command = Cli::command();
        command.build();
        let mut current = &command;
        for arg in std::env::args().skip(1) {
            if let Some(sub) = current.find_subcommand(&arg) {
                current = sub;
            }
        }
        eprintln!("\n{}", current.clone().render_usage());
    }
    ExitCode::from(2)
}

fn block_on<T, F: Future<Output = Result<T, Failure>>>(future: F) -> Result<T, Failure> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| Failure::new(format!("cannot start the runtime: {error}")))?
        .block_on(future)
}
