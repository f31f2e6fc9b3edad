//! The command line: global options, the subcommands, and how a failure
//! becomes one line on stderr and an exit code. Each subcommand's file
//! parses nothing itself (clap does) and holds no rule: it calls the app
//! layer ([`Host`]) and prints, adding the command hints a person at a
//! terminal needs. Output goes through [`out!`] and [`outln!`]: a reader
//! that went away (`| head -1`) ends the command quietly with exit 0.

/// `print!` to stdout from a command returning `Result<_, Failure>`; a
/// closed pipe returns [`Failure::closed_pipe`].
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::write_stdout(format_args!($($arg)*))?
    };
}

/// `println!` to stdout, as [`out!`].
macro_rules! outln {
    () => {
        out!("\n")
    };
    ($($arg:tt)*) => {
        out!("{}\n", format_args!($($arg)*))
    };
}

mod approvals;
mod audit;
mod db;
mod index;
mod mcp;
mod progress;
mod run;
mod runs;
mod serve;
mod settings;
mod skills;
mod tools;
mod users;
mod webhooks;

use std::borrow::Cow;
use std::fmt;
use std::io::{ErrorKind, Write as _};
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};
use host_example::app::index::{IndexLocation, SearchBackend};
use host_example::app::skills::SkillsError;
use host_example::app::{AuditFiles, DEFAULT_DATABASE_URL};
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

    /// The backend the `rag` tools' public search prefers: `tantivy` (an
    /// index on disk), `database` (SQLite FTS5 or PostgreSQL tsvector) or
    /// `substring`; when it cannot answer, the next one in that order does.
    #[arg(
        long,
        global = true,
        env = "HOST_SEARCH_BACKEND",
        default_value = "tantivy",
        value_parser = ["tantivy", "database", "substring"],
        value_name = "BACKEND"
    )]
    search_backend: String,

    /// The folder of the tantivy index. Default: `FILE.index` beside a
    /// SQLite file; `host-example-index/HOST-DATABASE` in the working
    /// folder for PostgreSQL.
    #[arg(long, global = true, env = "HOST_INDEX_DIR", value_name = "DIR")]
    index_dir: Option<std::path::PathBuf>,

    /// The audit chain's key file (HMAC-SHA256, 64 hex digits), kept out
    /// of the database; created with mode 0600 when missing and the
    /// database holds no chained rows, refused when missing otherwise.
    /// Default: `FILE.audit-key` beside a SQLite file;
    /// `host-example-audit/HOST-DATABASE.key` in the working folder for
    /// PostgreSQL. Every process writing one database must name the same key.
    #[arg(long, global = true, env = "HOST_AUDIT_KEY", value_name = "FILE")]
    audit_key: Option<std::path::PathBuf>,

    /// The file each audit chain's latest head is appended to after every
    /// commit, kept out of the database (`audit verify` catches a cut tail
    /// with it). Default: `KEY.heads` beside --audit-key when that is
    /// given, else `FILE.audit-heads` beside a SQLite file,
    /// `host-example-audit/HOST-DATABASE.heads` for PostgreSQL.
    #[arg(long, global = true, env = "HOST_AUDIT_HEADS", value_name = "FILE")]
    audit_heads: Option<std::path::PathBuf>,

    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List the tools this host links, as a table; with --offered, the
    /// tools --user is offered now.
    #[command(
        after_help = "Examples:\n  host-example tools\n  host-example --user petra tools --offered"
    )]
    Tools(tools::Command),
    /// Check, approve and list skill folders.
    #[command(subcommand)]
    Skills(skills::Command),
    /// Work with the database itself.
    #[command(subcommand)]
    Db(db::Command),
    /// Show or rebuild the public search index of the `rag` tools.
    #[command(subcommand)]
    Index(index::Command),
    /// Add and list host users, and make bearer tokens.
    #[command(subcommand)]
    Users(users::Command),
    /// Show and change the host's settings.
    #[command(subcommand)]
    Settings(settings::Command),
    /// Read, export and verify the audit trail.
    #[command(subcommand)]
    Audit(audit::Command),
    /// Signed webhooks: set, list and remove them, deliver what is due,
    /// and see and retry the dead-letter list.
    #[command(subcommand)]
    Webhooks(webhooks::Command),
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

/// A command's failure: one line for the user (none for a closed pipe),
/// and the exit code.
#[derive(Debug)]
pub struct Failure {
    message: Option<String>,
    code: u8,
}

impl Failure {
    /// A refusal or failure: exit code 1.
    pub fn new(message: impl Into<String>) -> Self {
        Failure {
            message: Some(message.into()),
            code: 1,
        }
    }

    /// The reader of stdout went away: not an error for a command-line
    /// tool (`runs show ID | head -1`), so nothing is said and the exit
    /// code is 0, as ripgrep does.
    pub fn closed_pipe() -> Self {
        Failure {
            message: None,
            code: 0,
        }
    }
}

/// `text` as a terminal may show it without being steered by it: every
/// control character but newline and tab (ESC, BEL, CR, backspace, DEL,
/// the C1 controls) and the bidirectional overrides that reorder what is
/// shown are written as escapes (`\x1b`, `\r`, `\u{202e}`). A title, a
/// model's answer or any other value a person or a model wrote can then
/// not redraw the line an approver reads. Every line the command line
/// prints goes through it: stdout, errors and live progress.
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    let steers = |c: char| {
        (c.is_control() && c != '\n' && c != '\t')
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    if !text.chars().any(steers) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\r' => out.push_str("\\r"),
            c if steers(c) && u32::from(c) < 0x80 => {
                out.push_str(&format!("\\x{:02x}", u32::from(c)));
            }
            c if steers(c) => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Writes `args` to stdout at once, its control characters escaped
/// ([`escape_controls`]).
pub fn write_stdout(args: fmt::Arguments<'_>) -> Result<(), Failure> {
    let text = args.to_string();
    let text = escape_controls(&text);
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => Ok(()),
        Err(error) if error.kind() == ErrorKind::BrokenPipe => Err(Failure::closed_pipe()),
        Err(error) => Err(Failure::new(format!("cannot write to stdout: {error}"))),
    }
}

/// The app layer's error with what to type next, where a command helps.
impl From<HostError> for Failure {
    fn from(error: HostError) -> Self {
        let hint = match &error {
            HostError::NoModel => {
                r#": set one with `host-example --user admin settings set model '{"base_url": "http://localhost:11434/v1", "model": "qwen3:8b"}'`"#
            }
            HostError::UnknownModel(_) => "; see `host-example settings show`",
            HostError::UnknownRun(_) => "; see `host-example runs list`",
            HostError::UnknownProposal(_) => "; see `host-example approvals list`",
            HostError::ReasonRequired => " (pass --reason)",
            HostError::Skills(SkillsError::Unknown { .. }) => {
                "; see `host-example settings show` (skills_folders)"
            }
            HostError::Skills(SkillsError::Invalid { .. }) | HostError::Approve(_) => {
                "; see `host-example skills check DIR`"
            }
            _ if error.unknown_user().is_some() => "; see `host-example users list`",
            _ => "",
        };
        Failure::new(format!("{error}{hint}"))
    }
}

/// What every subcommand gets: the global options.
pub struct Context {
    database: String,
    user: Option<String>,
    search_backend: SearchBackend,
    index_dir: Option<std::path::PathBuf>,
    audit: AuditFiles,
}

impl Context {
    /// The app layer over the database (created, migrated and seeded on
    /// first use).
    pub async fn host(&self) -> Result<Host, Failure> {
        let location = match &self.index_dir {
            Some(dir) => IndexLocation::Folder(dir.clone()),
            None => IndexLocation::for_database(&self.database),
        };
        Host::open_with(&self.database, self.search_backend, location, &self.audit)
            .await
            .map_err(|error| {
                let hint = if error.is_unreachable() {
                    "; check --database or HOST_DATABASE_URL"
                } else {
                    ""
                };
                Failure::new(format!("{error}{hint}"))
            })
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
    let audit = match (cli.audit_key, cli.audit_heads) {
        (Some(key), heads) => AuditFiles::at(key, heads),
        (None, heads) => match (AuditFiles::for_database(&cli.database), heads) {
            (AuditFiles::Files { key, .. }, Some(heads)) => AuditFiles::at(key, Some(heads)),
            (files, _) => files,
        },
    };
    let context = Context {
        audit,
        database: cli.database,
        user: cli.user,
        // clap admits only the backends' names.
        search_backend: SearchBackend::parse(&cli.search_backend).unwrap_or_default(),
        index_dir: cli.index_dir,
    };
    let mut exit = ExitCode::SUCCESS;
    let result = match cli.command {
        Command::Tools(command) => tools::run(&context, command),
        Command::Skills(command) => skills::run(&context, command).map(|code| {
            exit = code;
        }),
        Command::Db(command) => block_on(db::run(&context, command)),
        Command::Index(command) => block_on(index::run(&context, command)),
        Command::Users(command) => block_on(users::run(&context, command)),
        Command::Settings(command) => block_on(settings::run(&context, command)),
        Command::Audit(command) => block_on(audit::run(&context, command)),
        Command::Webhooks(command) => block_on(webhooks::run(&context, command)),
        Command::Mcp => block_on(mcp::run(&context)),
        Command::Serve(command) => serve::run(&context, command),
        Command::Run(command) => block_on(run::run(&context, command)),
        Command::Runs(command) => block_on(runs::run(&context, command)),
        Command::Approvals(command) => block_on(approvals::run(&context, command)),
    };
    match result {
        Ok(()) => exit,
        Err(failure) => {
            if let Some(message) = &failure.message {
                eprintln!("error: {}", escape_controls(&message.replace('\n', " ")));
            }
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
