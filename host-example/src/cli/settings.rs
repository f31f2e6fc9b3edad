//! `host-example settings show|set`.

use clap::Subcommand;

use super::{Context, Failure};

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print every setting and its value as JSON; `(default)` marks one
    /// never set.
    #[command(after_help = "Example: host-example settings show")]
    Show,
    /// Set a setting to a JSON value, checked against the setting's type
    /// before it is stored (needs --user naming an administrator).
    /// The settings: groups, tools, sites, skill_trust_floor, trust_zone,
    /// skills_folders, model, models (further model configurations by
    /// name), unapproved_skills, oauth, allowed_origins (browser origins
    /// besides the server's own that may use it over HTTP).
    #[command(after_help = "Examples:
  host-example --user admin settings set trust_zone '\"confidential\"'
  host-example --user admin settings set unapproved_skills '\"allow\"'
  host-example --user admin settings set groups '{\"system\": {\"state\": \"disabled\"}}'
  host-example --user admin settings set model '{\"base_url\": \"http://localhost:11434/v1\", \"model\": \"qwen3:8b\"}'
  host-example --user admin settings set oauth '{\"issuer\": \"https://auth.example\", \"resource\": \"https://host.example/mcp\", \"jwks_uri\": \"https://auth.example/jwks\"}'
  host-example --user admin settings set allowed_origins '[\"https://app.example.com\"]'")]
    Set {
        /// The setting.
        key: String,
        /// Its new value, as JSON (a string needs its quotes: '"internal"').
        value: String,
    },
}

pub async fn run(context: &Context, command: Command) -> Result<(), Failure> {
    match command {
        Command::Show => {
            let host = context.host().await?;
            for setting in host
                .admin()
                .settings(context.user("settings show")?)
                .await?
            {
                let default = if setting.is_default { " (default)" } else { "" };
                outln!("{} = {}{default}", setting.key.name(), setting.value);
            }
            Ok(())
        }
        Command::Set { key, value } => {
            let actor = context.user("settings set")?;
            let stored = context
                .host()
                .await?
                .admin()
                .set_setting(actor, &key, &value)
                .await?;
            outln!("{key} = {stored}");
            Ok(())
        }
    }
}
