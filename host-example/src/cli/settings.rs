//! `host-example settings show|set`.

use clap::Subcommand;
use host_example::store::{AuditEntry, AuditKind};

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
    /// skills_folders, model, models (further model configurations by name),
    /// unapproved_skills, oauth.
    #[command(after_help = "Examples:
  host-example --user admin settings set trust_zone '\"confidential\"'
  host-example --user admin settings set unapproved_skills '\"allow\"'
  host-example --user admin settings set groups '{\"system\": {\"state\": \"disabled\"}}'
  host-example --user admin settings set model '{\"base_url\": \"http://localhost:11434/v1\", \"model\": \"qwen3:8b\"}'
  host-example --user admin settings set oauth '{\"issuer\": \"https://auth.example\", \"resource\": \"https://host.example/mcp\", \"jwks_uri\": \"https://auth.example/jwks\"}'")]
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
            let store = context.store().await?;
            for setting in store.settings().await? {
                let default = if setting.is_default { " (default)" } else { "" };
                println!("{} = {}{default}", setting.key.name(), setting.value);
            }
            Ok(())
        }
        Command::Set { key, value } => {
            let actor = context.user("settings set")?;
            let store = context.store().await?;
            store.require_admin(actor, "settings set").await?;
            let stored = store.set_setting(&key, &value).await?;
            let mut entry = AuditEntry::new(AuditKind::Write, actor, "ok");
            entry.tool = Some("settings set".into());
            entry.detail = Some(format!("{key} = {stored}"));
            store.audit(&entry).await?;
            println!("{key} = {stored}");
            Ok(())
        }
    }
}
