//! Who must approve a tool's proposals besides passing the gates for it:
//! the approval policy an administrator sets per tool or per group
//! ([`ToolSettings`](crate::gates::ToolSettings) and
//! [`GroupSettings`](crate::gates::GroupSettings), `approvers` and
//! `required`).
//!
//! - `approvers`: `anyone` who passes the gates (the default), `others`
//!   (never the person whose run or call asked), `admins`;
//! - `required`: `1` (the default) or `2` different people (four eyes).
//!   The first approval of two is recorded ([`ApprovalStore::second`]) and
//!   nothing is applied until a second, different person approves.
//!
//! A tool's own setting wins over its group's, field by field. A policy
//! governs approvals only: anyone who may decide a proposal may reject
//! it, which writes nothing.
//!
//! [`ApprovalStore::second`]: super::ApprovalStore::second

use crate::Actor;
use crate::gates::{Approvers, HostSettings, Required};

/// The approval policy that applies to one tool.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ApprovalPolicy {
    /// Who may approve.
    pub approvers: Approvers,
    /// How many different people must approve.
    pub required: Required,
}

impl ApprovalPolicy {
    /// The policy of `tool` of `group` under `settings`: the tool's own
    /// fields, else its group's, else the defaults.
    pub fn of(settings: &HostSettings, tool: &str, group: &str) -> ApprovalPolicy {
        let tool = settings.tools.get(tool);
        let group = settings.groups.get(group);
        ApprovalPolicy {
            approvers: tool
                .and_then(|t| t.approvers)
                .or_else(|| group.and_then(|g| g.approvers))
                .unwrap_or_default(),
            required: tool
                .and_then(|t| t.required)
                .or_else(|| group.and_then(|g| g.required))
                .unwrap_or_default(),
        }
    }

    /// Whether `approver` may approve a proposal `requester` asked for
    /// (`None`: nobody known, so nobody is excluded as the requester).
    pub fn admits(&self, approver: &Actor, requester: Option<&Actor>) -> Result<(), PolicyRefusal> {
        match self.approvers {
            Approvers::Others if requester.is_some_and(|r| r.id == approver.id) => {
                Err(PolicyRefusal::Others)
            }
            Approvers::Admins if !approver.admin => Err(PolicyRefusal::Admins),
            _ => Ok(()),
        }
    }

    /// Whether a standing approval may be given: never when two people
    /// must approve, since one person's "the rest of this run" would
    /// stand in for the second pair of eyes.
    pub fn allows_standing(&self) -> bool {
        self.required == Required::One
    }

    /// Who the next approval must come from, in words: `another person`,
    /// `another administrator`.
    pub fn next_approver(&self) -> &'static str {
        match self.approvers {
            Approvers::Admins => "another administrator",
            _ => "another person",
        }
    }
}

/// An approval a policy refused. The words are the same at every door.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PolicyRefusal {
    /// The approver asked for the change, and the policy needs another.
    #[error("this tool's changes need an approver other than the person who asked for them")]
    Others,
    /// The approver is not an administrator, and the policy needs one.
    #[error("this tool's changes need an administrator's approval")]
    Admins,
    /// Two approvers are required, and an edit would have the second
    /// approve something the first never saw.
    #[error(
        "this tool's changes need two approvers, so a proposal cannot be edited while approving; reject it with a reason instead"
    )]
    NoEditWithTwo,
    /// Two approvers are required, so nobody may approve the rest of a
    /// run at once.
    #[error("this tool's changes need two approvers, so no standing approval can be given")]
    NoStandingWithTwo,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gates::{GroupSettings, ToolSettings};

    fn actor(id: &str, admin: bool) -> Actor {
        Actor {
            id: id.into(),
            admin,
        }
    }

    #[test]
    fn a_tools_own_field_wins_over_its_groups_field_by_field() {
        let mut settings = HostSettings::default();
        settings.groups.insert(
            "content".into(),
            GroupSettings {
                approvers: Some(Approvers::Admins),
                required: Some(Required::Two),
                ..GroupSettings::default()
            },
        );
        settings.tools.insert(
            "rename".into(),
            ToolSettings {
                approvers: Some(Approvers::Others),
                ..ToolSettings::default()
            },
        );
        let policy = ApprovalPolicy::of(&settings, "rename", "content");
        assert_eq!(policy.approvers, Approvers::Others);
        assert_eq!(policy.required, Required::Two);
        assert_eq!(
            ApprovalPolicy::of(&settings, "other", "system"),
            ApprovalPolicy::default()
        );
    }

    #[test]
    fn others_refuses_the_requester_and_admins_refuses_editors() {
        let petra = actor("petra", false);
        let ops = actor("ops", false);
        let admin = actor("admin", true);
        let others = ApprovalPolicy {
            approvers: Approvers::Others,
            ..ApprovalPolicy::default()
        };
        assert_eq!(
            others.admits(&petra, Some(&petra)),
            Err(PolicyRefusal::Others)
        );
        assert_eq!(others.admits(&ops, Some(&petra)), Ok(()));
        let admins = ApprovalPolicy {
            approvers: Approvers::Admins,
            ..ApprovalPolicy::default()
        };
        assert_eq!(
            admins.admits(&ops, Some(&petra)),
            Err(PolicyRefusal::Admins)
        );
        assert_eq!(admins.admits(&admin, Some(&admin)), Ok(()));
    }
}
