//! `host-example users add|list|token|tokens|revoke|password|admin|unlock`.

use std::io::BufRead;

use clap::Subcommand;
use comfy_table::Table;
use site_model::Timestamp;

use host_example::{plain_table, render_table};

use super::{Context, Failure};

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Add a host user (needs --user naming an administrator).
    #[command(
        after_help = "Example: echo 's3cret' | host-example --user admin users add maria --admin --password-stdin"
    )]
    Add {
        /// The login name: letters, digits, `.`, `_` or `-`.
        name: String,
        /// Make them an administrator.
        #[arg(long)]
        admin: bool,
        /// Read their password from the first line of standard input;
        /// without it they have none and log in by token only.
        #[arg(long)]
        password_stdin: bool,
    },
    /// List the host users.
    #[command(after_help = "Example: host-example users list")]
    List,
    /// Make a bearer token for a user and print it; only its hash is
    /// stored, so it is shown this once. An administrator may make one for
    /// anyone, a user for themself.
    #[command(after_help = "Example: host-example --user admin users token maria")]
    Token {
        /// The user the token acts as.
        name: String,
    },
    /// List a user's bearer tokens by id (never the tokens themselves).
    /// An administrator may list anyone's, a user their own.
    #[command(after_help = "Example: host-example --user admin users tokens maria")]
    Tokens {
        /// Whose tokens.
        name: String,
    },
    /// Revoke a bearer token by its id (from `users tokens`): MCP refuses
    /// it from then on. An administrator may revoke anyone's, a user their
    /// own.
    #[command(after_help = "Example: host-example --user admin users revoke maria 3f9a0c12d4e5")]
    Revoke {
        /// Whose token.
        name: String,
        /// Its id, as `users tokens` lists it.
        id: String,
    },
    /// Set a new password for a user from the first line of standard input
    /// (needs --user naming an administrator).
    #[command(
        after_help = "Example: echo 'n3w s3cret' | host-example --user admin users password maria"
    )]
    Password {
        /// Whose password.
        name: String,
    },
    /// Make a user an administrator, or (with --off) no longer one; the
    /// last administrator stays one (needs --user naming an administrator).
    #[command(after_help = "Example: host-example --user admin users admin maria --off")]
    Admin {
        /// Who.
        name: String,
        /// Take the administrator's rights away instead.
        #[arg(long)]
        off: bool,
    },
    /// Lift the sign-in lock (and any wait) that failed browser sign-ins
    /// put on a name (needs --user naming an administrator; the lock never
    /// holds back the command line).
    #[command(after_help = "Example: host-example --user admin users unlock maria")]
    Unlock {
        /// The name signed in with.
        name: String,
    },
}

pub async fn run(context: &Context, command: Command) -> Result<(), Failure> {
    match command {
        Command::Add {
            name,
            admin,
            password_stdin,
        } => {
            let actor = context.user("users add")?;
            let password = if password_stdin {
                Some(read_password()?)
            } else {
                None
            };
            let user = context
                .host()
                .await?
                .admin()
                .add_user(actor, &name, admin, password.as_deref())
                .await?;
            outln!(
                "added user {}{}",
                user.name,
                if user.admin { " (admin)" } else { "" }
            );
            Ok(())
        }
        Command::List => {
            let host = context.host().await?;
            let mut table: Table = plain_table(["NAME", "ADMIN", "PASSWORD", "CREATED"]);
            for user in host.admin().users(context.user("users list")?).await? {
                table.add_row([
                    user.name,
                    yes_no(user.admin),
                    yes_no(user.has_password),
                    Timestamp(user.created_at).to_string(),
                ]);
            }
            outln!("{}", render_table(&table).trim_end());
            Ok(())
        }
        Command::Token { name } => {
            let actor = context.user("users token")?;
            let token = context
                .host()
                .await?
                .admin()
                .new_token(actor, &name)
                .await?;
            outln!("{token}");
            eprintln!("note: this token is shown once; only its hash is stored");
            Ok(())
        }
        Command::Tokens { name } => {
            let actor = context.user("users tokens")?;
            let tokens = context.host().await?.admin().tokens(actor, &name).await?;
            let mut table: Table = plain_table(["ID", "CREATED"]);
            for token in tokens {
                table.add_row([token.id, Timestamp(token.created_at).to_string()]);
            }
            outln!("{}", render_table(&table).trim_end());
            Ok(())
        }
        Command::Revoke { name, id } => {
            let actor = context.user("users revoke")?;
            context
                .host()
                .await?
                .admin()
                .revoke_token(actor, &name, &id)
                .await?;
            outln!("token {id} of {name} revoked");
            Ok(())
        }
        Command::Password { name } => {
            let actor = context.user("users password")?;
            let password = read_password()?;
            context
                .host()
                .await?
                .admin()
                .reset_password(actor, &name, &password)
                .await?;
            outln!("password of {name} set");
            Ok(())
        }
        Command::Admin { name, off } => {
            let actor = context.user("users admin")?;
            context
                .host()
                .await?
                .admin()
                .set_admin(actor, &name, !off)
                .await?;
            outln!(
                "{name} is {}an administrator",
                if off { "no longer " } else { "" }
            );
            Ok(())
        }
        Command::Unlock { name } => {
            let actor = context.user("users unlock")?;
            let lifted = context
                .host()
                .await?
                .sessions()
                .unlock(actor, &name)
                .await?;
            if lifted {
                outln!("sign-in of {name} unlocked");
            } else {
                outln!("sign-in of {name} was not held back");
            }
            Ok(())
        }
    }
}

fn yes_no(value: bool) -> String {
    if value { "yes" } else { "no" }.to_owned()
}

fn read_password() -> Result<String, Failure> {
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|error| Failure::new(format!("cannot read the password from stdin: {error}")))?;
    let password = line.trim_end_matches(['\n', '\r']);
    if password.is_empty() {
        return Err(Failure::new(
            "read an empty password from stdin: pipe one line holding it",
        ));
    }
    Ok(password.to_owned())
}
