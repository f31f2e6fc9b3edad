//! Administration, whichever door asks: settings, users and tokens, each
//! change checked for an administrator, written, and audited here once (a
//! refusal too, in the same words at every door); and what a user is
//! offered, from the gates' own resolution.

use std::collections::BTreeMap;

use serde_json::Value;
use tool_core::gates::{HostSettings, Toggle};
use tool_core::{Actor, Egress};

use crate::app::{Admin, HostError};
use crate::store::{
    AuditEntry, AuditKind, DatabaseCheck, HostUser, SettingKey, SettingValue, TokenInfo,
};

/// What the gates offer one user now, outside any skill: every tool they
/// may be offered, by group.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Offer {
    /// Group name → tool names, both in order.
    pub by_group: BTreeMap<String, Vec<String>>,
}

impl Offer {
    /// Every offered tool's name, in group order.
    pub fn tools(&self) -> impl Iterator<Item = &str> {
        self.by_group.values().flatten().map(String::as_str)
    }
}

impl Admin<'_> {
    pub(in crate::app) async fn audit_change(
        &self,
        user: &str,
        doing: &str,
        detail: String,
    ) -> Result<(), HostError> {
        let mut entry = AuditEntry::new(AuditKind::Write, user, "ok");
        entry.tool = Some(doing.to_owned());
        entry.detail = Some(detail);
        Ok(self.host.store().audit_log().audit(&entry).await?)
    }

    /// The gates' settings as they are now, for `viewer`, an administrator.
    pub async fn host_settings(&self, viewer: &str) -> Result<HostSettings, HostError> {
        self.access.require_admin(viewer, "the settings").await?;
        Ok(self.host.store().config().host_settings().await?)
    }

    /// Every setting with the value in effect, for `viewer`, an
    /// administrator.
    pub async fn settings(&self, viewer: &str) -> Result<Vec<SettingValue>, HostError> {
        self.access.require_admin(viewer, "the settings").await?;
        Ok(self.host.store().config().settings().await?)
    }

    /// Sets `key` to `json` (JSON text) as `user`, an administrator: the
    /// value is checked against the setting's type first, nothing is
    /// stored if it does not fit, and open MCP sessions hear of it.
    /// Returns the value stored.
    pub async fn set_setting(&self, user: &str, key: &str, json: &str) -> Result<Value, HostError> {
        self.access.administrator(user, "settings").await?;
        self.store_setting(user, key, json).await
    }

    /// Stores, audits and reads back a setting for `user`, whom the caller
    /// checked is an administrator.
    /// Stores `value` as the setting `key` for `user` (checked already), audited.
    pub(in crate::app) async fn save_setting(
        &self,
        user: &str,
        key: SettingKey,
        value: &impl serde::Serialize,
    ) -> Result<(), HostError> {
        self.store_setting(user, key.name(), &json(value))
            .await
            .map(drop)
    }

    async fn store_setting(&self, user: &str, key: &str, json: &str) -> Result<Value, HostError> {
        let stored = self.host.store().config().set_setting(key, json).await?;
        self.audit_change(user, "settings", format!("{key} = {stored}"))
            .await?;
        // Read back at once (not at the next poll): open MCP sessions hear
        // of the change now.
        self.access.call_settings().await?;
        Ok(stored)
    }

    /// Switches the tool group `group` on or off, with its egress, as
    /// `user`, an administrator.
    pub async fn switch_group(
        &self,
        user: &str,
        group: &str,
        state: Toggle,
        egress: Egress,
    ) -> Result<(), HostError> {
        self.access.administrator(user, "settings").await?;
        if !self
            .host
            .registry()
            .tools()
            .iter()
            .any(|t| t.declaration().group == group)
        {
            return Err(HostError::Invalid(format!("there is no group `{group}`")));
        }
        let mut groups = self.host.store().config().host_settings().await?.groups;
        let entry = groups.entry(group.to_owned()).or_default();
        entry.state = state;
        entry.egress = egress;
        self.store_setting(user, SettingKey::Groups.name(), &json(&groups))
            .await
            .map(drop)
    }

    /// Switches the tool `tool` on or off as `user`, an administrator.
    pub async fn switch_tool(
        &self,
        user: &str,
        tool: &str,
        state: Toggle,
    ) -> Result<(), HostError> {
        self.access.administrator(user, "settings").await?;
        if self.host.registry().get(tool).is_none() {
            return Err(HostError::Invalid(format!("there is no tool `{tool}`")));
        }
        let mut tools = self.host.store().config().host_settings().await?.tools;
        tools.entry(tool.to_owned()).or_default().state = state;
        self.store_setting(user, SettingKey::Tools.name(), &json(&tools))
            .await
            .map(drop)
    }

    /// Adds a host user as `user`, an administrator.
    pub async fn add_user(
        &self,
        user: &str,
        name: &str,
        admin: bool,
        password: Option<&str>,
    ) -> Result<HostUser, HostError> {
        self.access.administrator(user, "adding a user").await?;
        let added = self
            .host
            .store()
            .people()
            .add_user(name, admin, password)
            .await?;
        self.audit_change(
            user,
            "users add",
            format!("user {} (admin: {})", added.name, added.admin),
        )
        .await?;
        Ok(added)
    }

    /// Every host user, for `viewer`, an administrator.
    pub async fn users(&self, viewer: &str) -> Result<Vec<HostUser>, HostError> {
        self.access.require_admin(viewer, "the user list").await?;
        Ok(self.host.store().people().users().await?)
    }

    /// A new bearer token for `name`, made by `user`: their own, or anyone's
    /// when they are an administrator. Shown this once; only its hash is
    /// kept.
    pub async fn new_token(&self, user: &str, name: &str) -> Result<String, HostError> {
        self.own_or_admin(user, name, "a token for another user")
            .await?;
        let token = self.host.store().people().new_token(name).await?;
        self.audit_change(user, "users token", format!("token for {name}"))
            .await?;
        Ok(token)
    }

    /// Sets a new password for `name` as `user`, an administrator, and
    /// ends every browser session of `name`'s (in the same transaction):
    /// whoever signed in with the old password must sign in again. An
    /// empty password is refused: a user without one signs in by token
    /// only, which `users add` without a password gives.
    pub async fn reset_password(
        &self,
        user: &str,
        name: &str,
        password: &str,
    ) -> Result<(), HostError> {
        self.access
            .administrator(user, "resetting a password")
            .await?;
        if password.is_empty() {
            return Err(HostError::Invalid("the new password is empty".to_owned()));
        }
        self.host
            .store()
            .people()
            .set_password(name, Some(password))
            .await?;
        self.audit_change(user, "users password", format!("password of {name} reset"))
            .await
    }

    /// Makes `name` an administrator (`admin`) or not, as `user`, an
    /// administrator; never the last administrator.
    pub async fn set_admin(&self, user: &str, name: &str, admin: bool) -> Result<(), HostError> {
        self.access
            .administrator(user, "making or unmaking an administrator")
            .await?;
        self.host.store().people().set_admin(name, admin).await?;
        self.audit_change(user, "users admin", format!("user {name} (admin: {admin})"))
            .await
    }

    /// `name`'s bearer tokens (never the tokens: their ids), for `user`:
    /// their own, or anyone's when they are an administrator.
    pub async fn tokens(&self, user: &str, name: &str) -> Result<Vec<TokenInfo>, HostError> {
        self.own_or_admin(user, name, "see another user's tokens")
            .await?;
        Ok(self.host.store().people().tokens(name).await?)
    }

    /// Revokes `name`'s token `id` (as [`Admin::tokens`](crate::app::Admin::tokens) names it), for
    /// `user`: their own, or anyone's when they are an administrator. From
    /// now on the token is refused at `/mcp`.
    pub async fn revoke_token(&self, user: &str, name: &str, id: &str) -> Result<(), HostError> {
        self.own_or_admin(user, name, "revoking another user's token")
            .await?;
        if !self.host.store().people().revoke_token(name, id).await? {
            return Err(HostError::Invalid(format!(
                "`{name}` has no token `{id}` (see `users tokens {name}`)"
            )));
        }
        self.audit_change(user, "users revoke", format!("token {id} of {name}"))
            .await
    }

    /// Passes for `user` acting on themselves (who must exist) or as an
    /// administrator (the refusal audited).
    async fn own_or_admin(&self, user: &str, name: &str, doing: &str) -> Result<(), HostError> {
        if user == name {
            self.host.actor(user).await.map(drop)
        } else {
            self.access.administrator(user, doing).await
        }
    }

    /// The newest `n` entries of the audit trail, oldest first, for
    /// `viewer`, an administrator.
    pub async fn audit_tail(&self, viewer: &str, n: usize) -> Result<Vec<AuditEntry>, HostError> {
        self.access.require_admin(viewer, "the audit trail").await?;
        Ok(self.host.store().audit_log().audit_tail(n).await?)
    }

    /// The database's schema version.
    pub async fn schema_version(&self) -> Result<i64, HostError> {
        Ok(self.host.store().audit_log().schema_version().await?)
    }

    /// A consistent copy of the database in `file` (SQLite; PostgreSQL is
    /// refused with what to run instead). Like every command-line
    /// maintenance, it is open to whoever can reach the database.
    pub async fn backup_database(&self, file: &std::path::Path) -> Result<(), HostError> {
        Ok(self.host.store().audit_log().backup(file).await?)
    }

    /// The database's integrity, schema version and row counts.
    pub async fn check_database(&self) -> Result<DatabaseCheck, HostError> {
        Ok(self.host.store().audit_log().check().await?)
    }

    /// What the gates offer `actor` now (the settings, the trust zone and
    /// their administrator flag as they are now, no skill): the tools a run
    /// of theirs, started from any door, may be offered, and the ones an
    /// MCP client of theirs lists.
    pub async fn offer(&self, actor: &Actor) -> Result<Offer, HostError> {
        // The grant a single call of theirs gets: the same resolution,
        // cached per settings generation.
        let grant = self.access.grant(actor).await?;
        let mut offer = Offer::default();
        for name in grant.tool_names() {
            if let Some(tool) = self.host.registry().get(name) {
                let group = tool.declaration().group.to_string();
                offer
                    .by_group
                    .entry(group)
                    .or_default()
                    .push(name.to_owned());
            }
        }
        Ok(offer)
    }
}

fn json(value: &impl serde::Serialize) -> String {
    // Settings maps of plain strings and enums always serialize.
    serde_json::to_string(value).unwrap_or_default()
}
