//! `list_users` and `list_users_raw`.

use std::fmt::Write as _;

use schemars::JsonSchema;
use serde::Deserialize;
use site_model::{Group, User};
use tool_core::{Execute, Tool, ToolContext, ToolError, ToolOutput};

use super::{DEFAULT_ENTRIES, MAX_ENTRIES, summary};
use crate::access::{limit, not_found, shown_of, viewer};

/// List the site's user accounts by id: login name, real name, whether an
/// administrator, whether disabled, the groups they belong to, and the last
/// login (UTC). Then the total.
///
/// 50 users unless `limit` says otherwise, never more than 200. Never shows
/// a credential (password hash, second-factor secret) nor e-mail addresses.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "accounts",
    effect = "read",
    data = "personal",
    requires_admin,
    content = "untrusted"
)]
#[serde(deny_unknown_fields)]
pub struct ListUsers {
    /// How many users, by id. Default 50, at most 200.
    limit: Option<u32>,
}

impl Execute for ListUsers {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        list(cx, self.limit, Detail::Plain).await
    }
}

/// List the site's user accounts with more detail than `list_users`: also
/// each user's e-mail address and their own grants (pages seen and edited,
/// tables read and edited, storages), besides those of their groups.
///
/// 50 users unless `limit` says otherwise, never more than 200. Never shows
/// a credential (password hash, second-factor secret). Ships disabled.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "accounts",
    effect = "read",
    data = "personal",
    requires_admin,
    disabled,
    content = "untrusted"
)]
#[serde(deny_unknown_fields)]
pub struct ListUsersRaw {
    /// How many users, by id. Default 50, at most 200.
    limit: Option<u32>,
}

impl Execute for ListUsersRaw {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        list(cx, self.limit, Detail::Raw).await
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Detail {
    Plain,
    Raw,
}

async fn list(
    cx: &ToolContext,
    requested: Option<u32>,
    detail: Detail,
) -> Result<ToolOutput, ToolError> {
    let viewer = viewer(cx).await?;
    if !viewer.is_admin() {
        return Err(not_found());
    }
    let unreadable = |_| ToolError::failed("the accounts could not be read");
    let users = viewer.site.users().await.map_err(unreadable)?;
    let groups = viewer.site.groups().await.map_err(unreadable)?;
    let shown = limit(requested, DEFAULT_ENTRIES, MAX_ENTRIES).min(users.len());
    let mut text = String::new();
    for user in &users[..shown] {
        let _ = writeln!(text, "{}", line(user, &groups, detail, cx));
    }
    text.push_str(&shown_of(shown, users.len()));
    Ok(ToolOutput::text(text))
}

/// One user, field by field: the credentials are never read, so a new
/// field on [`User`] stays out until someone adds it here.
fn line(user: &User, groups: &[Group], detail: Detail, cx: &ToolContext) -> String {
    let real_name = user.real_name.read(cx);
    let mut line = format!("#{} {} ({real_name})", user.id, user.name.read(cx));
    if detail == Detail::Raw {
        let _ = write!(line, " <{}>", user.email.read(cx));
    }
    line.push_str(if user.admin {
        ", administrator"
    } else {
        ", editor"
    });
    line.push_str(if user.disabled {
        ", disabled"
    } else {
        ", enabled"
    });
    let names: Vec<String> = user
        .groups
        .iter()
        .map(|id| match groups.iter().find(|group| group.id == *id) {
            Some(group) => format!("{} (#{id})", group.name),
            None => format!("#{id}"),
        })
        .collect();
    if names.is_empty() {
        line.push_str("; no groups");
    } else {
        let _ = write!(line, "; groups: {}", names.join(", "));
    }
    if detail == Detail::Raw {
        let _ = write!(line, "; own grants: {}", summary(&user.grants));
    }
    match user.last_login {
        Some(at) => {
            let _ = write!(line, "; last login {at}");
        }
        None => line.push_str("; never logged in"),
    }
    line
}
