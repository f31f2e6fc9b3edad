//! `host-example webhooks set|list|remove|deliver|dead|retry`.

use std::io::BufRead;

use clap::Subcommand;

use super::{Context, Failure};

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Add a webhook or change one (needs --user naming an administrator):
    /// its URL and the events it is sent (proposal.created,
    /// proposal.decided, proposal.expired, run.failed). A new webhook gets
    /// a secret the host makes, printed this once; a changed one keeps its
    /// own unless --secret-stdin gives another.
    #[command(after_help = "Examples:
  host-example --user admin webhooks set team https://hooks.example/host --events proposal.created,proposal.decided
  printf '%s\\n' \"$SECRET\" | host-example --user admin webhooks set team https://hooks.example/host --events run.failed --secret-stdin")]
    Set {
        /// Its name: letters, digits, `-` or `_`.
        name: String,
        /// Where deliveries are posted (http or https).
        url: String,
        /// The events it is sent, separated by commas.
        #[arg(long, value_delimiter = ',', required = true)]
        events: Vec<String>,
        /// Read the secret (16 characters or more) from the first line of
        /// standard input.
        #[arg(long)]
        secret_stdin: bool,
        /// The most sensitive class of a proposal's values its payloads
        /// carry (public, internal, confidential, personal); values above
        /// it are left out. Kept when not given; `internal` for a new one.
        #[arg(long)]
        data_class: Option<tool_core::DataClass>,
    },
    /// List the webhooks (the secrets' last four characters only).
    #[command(after_help = "Example: host-example --user admin webhooks list")]
    List,
    /// Remove a webhook and its deliveries.
    #[command(after_help = "Example: host-example --user admin webhooks remove team")]
    Remove {
        /// Its name.
        name: String,
    },
    /// Try every delivery that is due, once, and say what came of it.
    #[command(after_help = "Example: host-example webhooks deliver")]
    Deliver,
    /// List the dead-letter list: deliveries whose last attempt failed.
    #[command(after_help = "Example: host-example --user admin webhooks dead")]
    Dead {
        /// At most this many, newest first.
        #[arg(long, default_value_t = 50)]
        limit: usize,
    },
    /// Put a dead delivery back in the queue, its attempts counted afresh.
    #[command(after_help = "Example: host-example --user admin webhooks retry 3f9a0c12d4e5…")]
    Retry {
        /// The delivery's id, as `webhooks dead` lists it.
        id: String,
    },
}

pub async fn run(context: &Context, command: Command) -> Result<(), Failure> {
    let host = context.host().await?;
    match command {
        Command::Set {
            name,
            url,
            events,
            secret_stdin,
            data_class,
        } => {
            let user = context.user("webhooks set")?;
            let secret = if secret_stdin {
                let mut line = String::new();
                std::io::stdin()
                    .lock()
                    .read_line(&mut line)
                    .map_err(|error| Failure::new(format!("cannot read the secret: {error}")))?;
                Some(line.trim_end_matches(['\r', '\n']).to_owned())
            } else {
                None
            };
            let saved = host
                .jobs()
                .put_webhook(user, &name, &url, &events, secret.as_deref(), data_class)
                .await?;
            outln!(
                "webhook {} = {} for {} (secret {})",
                saved.view.name,
                saved.view.url,
                saved.view.events.join(", "),
                saved.view.secret_hint
            );
            if let Some(secret) = saved.new_secret {
                outln!("secret (shown this once): {secret}");
            }
        }
        Command::List => {
            for webhook in host.jobs().webhooks(context.user("webhooks list")?).await? {
                outln!(
                    "{}\t{}\t{}\tsecret {}",
                    webhook.name,
                    webhook.url,
                    webhook.events.join(","),
                    webhook.secret_hint
                );
            }
        }
        Command::Remove { name } => {
            host.jobs()
                .remove_webhook(context.user("webhooks remove")?, &name)
                .await?;
            outln!("webhook {name} removed");
        }
        Command::Deliver => {
            let pass = host.jobs().deliver_webhooks().await?;
            outln!(
                "delivered {}, to retry {}, dead {}",
                pass.delivered,
                pass.retrying,
                pass.dead
            );
        }
        Command::Dead { limit } => {
            for dead in host
                .jobs()
                .dead_deliveries(context.user("webhooks dead")?, limit)
                .await?
            {
                outln!(
                    "{}\t{}\t{}\tattempts {}\t{}",
                    dead.id,
                    dead.webhook,
                    dead.event,
                    dead.attempts,
                    dead.last_error.unwrap_or_default()
                );
            }
        }
        Command::Retry { id } => {
            host.jobs()
                .retry_delivery(context.user("webhooks retry")?, &id)
                .await?;
            outln!("delivery {id} queued again");
        }
    }
    Ok(())
}
