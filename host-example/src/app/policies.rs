//! Approval policies on the administrator's tools page: what applies to a
//! tool and where each part comes from (the tool's own setting, its
//! group's, or the default), and setting a tool's or a group's, checked and
//! audited like every setting.

use tool_core::gates::{Approvers, HostSettings, Required};

use crate::app::{Approvals, HostError};
use crate::store::SettingKey;

/// Where one part of a tool's approval policy comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PolicySource {
    /// The tool's own setting.
    Tool,
    /// Its group's setting.
    Group,
    /// Neither is set: the default (`anyone`, `1`).
    Default,
}

impl PolicySource {
    /// `tool`, `group` or `default`.
    pub fn as_str(self) -> &'static str {
        match self {
            PolicySource::Tool => "tool",
            PolicySource::Group => "group",
            PolicySource::Default => "default",
        }
    }
}

/// The approval policy of one tool, as the tools page shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyView {
    /// Who may approve.
    pub approvers: Approvers,
    /// Where that comes from.
    pub approvers_from: PolicySource,
    /// How many different people must approve.
    pub required: Required,
    /// Where that comes from.
    pub required_from: PolicySource,
    /// The tool's own settings (`None`: unset), for its form.
    pub own: (Option<Approvers>, Option<Required>),
}

/// Whose policy is set: a tool's or a group's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PolicyOf {
    /// One tool's (wins over its group's, part by part).
    Tool,
    /// A group's.
    Group,
}

/// The policy of `tool` of `group` under `settings`, part by part: the
/// tool's own, else its group's, else the default (as
/// [`tool_core::approval::ApprovalPolicy::of`] applies it).
pub fn policy_view(settings: &HostSettings, tool: &str, group: &str) -> PolicyView {
    let own = settings.tools.get(tool);
    let shared = settings.groups.get(group);
    let (approvers, approvers_from) = pick(
        own.and_then(|t| t.approvers),
        shared.and_then(|g| g.approvers),
    );
    let (required, required_from) = pick(
        own.and_then(|t| t.required),
        shared.and_then(|g| g.required),
    );
    PolicyView {
        approvers: approvers.unwrap_or_default(),
        approvers_from,
        required: required.unwrap_or_default(),
        required_from,
        own: (own.and_then(|t| t.approvers), own.and_then(|t| t.required)),
    }
}

/// A tool's own part, else its group's, else none; with where it came from.
fn pick<T>(mine: Option<T>, theirs: Option<T>) -> (Option<T>, PolicySource) {
    match (mine, theirs) {
        (Some(value), _) => (Some(value), PolicySource::Tool),
        (None, Some(value)) => (Some(value), PolicySource::Group),
        (None, None) => (None, PolicySource::Default),
    }
}

impl Approvals<'_> {
    /// Sets the approval policy of the tool or group `name` as `user`, an
    /// administrator: `None` unsets a part (a tool then takes its group's,
    /// a group the default). Stored as the `tools` or `groups` setting
    /// beside `state`, and audited.
    pub async fn set_approval_policy(
        &self,
        user: &str,
        of: PolicyOf,
        name: &str,
        approvers: Option<Approvers>,
        required: Option<Required>,
    ) -> Result<(), HostError> {
        self.access.administrator(user, "settings").await?;
        let settings = self.host.store().config().host_settings().await?;
        match of {
            PolicyOf::Tool => {
                if self.host.registry().get(name).is_none() {
                    return Err(HostError::Invalid(format!("there is no tool `{name}`")));
                }
                let mut tools = settings.tools;
                let entry = tools.entry(name.to_owned()).or_default();
                entry.approvers = approvers;
                entry.required = required;
                self.admin
                    .save_setting(user, SettingKey::Tools, &tools)
                    .await
            }
            PolicyOf::Group => {
                if !self
                    .host
                    .registry()
                    .tools()
                    .iter()
                    .any(|t| t.declaration().group == name)
                {
                    return Err(HostError::Invalid(format!("there is no group `{name}`")));
                }
                let mut groups = settings.groups;
                let entry = groups.entry(name.to_owned()).or_default();
                entry.approvers = approvers;
                entry.required = required;
                self.admin
                    .save_setting(user, SettingKey::Groups, &groups)
                    .await
            }
        }
    }
}
