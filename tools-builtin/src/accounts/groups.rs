//! `list_groups`.

use std::fmt::Write as _;

use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::{Execute, Tool, ToolContext, ToolError, ToolOutput};

use super::{DEFAULT_ENTRIES, MAX_ENTRIES, summary};
use crate::access::{limit, not_found, shown_of, viewer};

/// List the site's user groups by id: name, how many users belong to it,
/// and what it grants its members (page subtrees seen and edited by root
/// page id, tables read and edited, storages by id). Then the total.
///
/// 50 groups unless `limit` says otherwise, never more than 200. Never
/// names the members; `list_users` shows who is in which group.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "accounts",
    effect = "read",
    data = "confidential",
    requires_admin,
    content = "trusted"
)]
#[serde(deny_unknown_fields)]
pub struct ListGroups {
    /// How many groups, by id. Default 50, at most 200.
    limit: Option<u32>,
}

impl Execute for ListGroups {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let viewer = viewer(cx).await?;
        if !viewer.is_admin() {
            return Err(not_found());
        }
        let unreadable = |_| ToolError::failed("the accounts could not be read");
        let groups = viewer.site.groups().await.map_err(unreadable)?;
        let users = viewer.site.users().await.map_err(unreadable)?;
        let shown = limit(self.limit, DEFAULT_ENTRIES, MAX_ENTRIES).min(groups.len());
        let mut text = String::new();
        for group in &groups[..shown] {
            let members = users
                .iter()
                .filter(|user| user.groups.contains(&group.id))
                .count();
            let _ = writeln!(
                text,
                "#{} {}: {members} members; grants {}",
                group.id,
                group.name,
                summary(&group.grants)
            );
        }
        text.push_str(&shown_of(shown, groups.len()));
        Ok(ToolOutput::text(text))
    }
}
