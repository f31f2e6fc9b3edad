//! Gate 9: what a run has read ([`Exposure`]) decides what it may still
//! do, under the host's [`ExposurePolicy`] (docs/exposure.md).
//!
//! The gate looks at two things of a tool only: whether it reaches the
//! network (a way out for what was read) and whether it writes (a way to
//! publish it, or to change what others read). A tool with egress is taken
//! away; a write is still proposed, but its proposal needs an approver
//! other than the person whose run asked ([`Proposal::exposure_hold`]).
//!
//! [`Proposal::exposure_hold`]: crate::Proposal::exposure_hold

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::exposure::{Exposure, RaisedBy};
use crate::{DataClass, Effect, Egress, Registry};

use super::{Denial, HostSettings};

/// Who may approve a proposal besides passing the gates for its tool: in
/// gate 9's policy, and in a tool's or group's approval policy.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Approvers {
    /// Anyone who passes the gates for the tool, the requester included.
    #[default]
    Anyone,
    /// Anyone who passes the gates for the tool except the person whose
    /// run (or call) asked for the change.
    Others,
    /// Administrators who pass the gates for the tool.
    Admins,
}

impl fmt::Display for Approvers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Approvers::Anyone => "anyone",
            Approvers::Others => "others",
            Approvers::Admins => "admins",
        })
    }
}

/// What a raised exposure takes away: the host's policy for gate 9. The
/// defaults are the safe ones; a host loosens them knowingly.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ExposurePolicy {
    /// Gate 9 at all. Off only where the host accepts prompt injection's
    /// risk (the injection suite switches it off to show it is what stops
    /// each scenario).
    pub enabled: bool,
    /// From this class of data read on, no tool with egress; `None`: the
    /// data read never takes egress away. Default: `confidential`.
    pub egress_after_data: Option<DataClass>,
    /// After untrusted content entered, no tool with egress. Default: on.
    pub egress_after_untrusted: bool,
    /// After untrusted content entered, who may approve a write the run
    /// proposes. Default: [`Approvers::Others`].
    pub writes_after_untrusted: Approvers,
}

impl Default for ExposurePolicy {
    fn default() -> Self {
        ExposurePolicy {
            enabled: true,
            egress_after_data: Some(DataClass::Confidential),
            egress_after_untrusted: true,
            writes_after_untrusted: Approvers::Others,
        }
    }
}

/// A group's standing under gate 9: an administrator may exempt a group
/// whose tools they trust with what runs have read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GroupExposure {
    /// The host's policy applies to the group's tools.
    #[default]
    Enforced,
    /// Gate 9 takes none of the group's tools away and holds none of their
    /// proposals.
    Exempt,
}

/// Which of the policy's rules took a tool away.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ExposureRule {
    /// The run read data of `class`, at or above `from`, and the tool
    /// reaches the network.
    EgressAfterData {
        /// The class read.
        class: DataClass,
        /// The policy's threshold.
        from: DataClass,
    },
    /// Untrusted content entered the run, and the tool reaches the network.
    EgressAfterUntrusted,
}

impl fmt::Display for ExposureRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExposureRule::EgressAfterData { class, .. } => {
                write!(f, "no tool with egress after {class} data was read")
            }
            ExposureRule::EgressAfterUntrusted => {
                f.write_str("no tool with egress after untrusted content was read")
            }
        }
    }
}

/// Gate 9 as the gates of one run hold it: the policy, and which groups
/// are exempt, by the registry's group numbers.
#[derive(Debug, Clone)]
pub(super) struct ExposureGate {
    policy: ExposurePolicy,
    exempt: Vec<bool>,
}

impl ExposureGate {
    pub(super) fn new(registry: &Registry, settings: &HostSettings) -> Self {
        let tools = registry.tools();
        let exempt = registry
            .groups()
            .first_tools()
            .iter()
            .map(|&first| {
                let group = tools[first].declaration().group.as_ref();
                settings
                    .groups
                    .get(group)
                    .is_some_and(|g| g.exposure == GroupExposure::Exempt)
            })
            .collect();
        ExposureGate {
            policy: settings.exposure.clone(),
            exempt,
        }
    }

    /// Whether the gate applies to a tool of `group` for a run exposed to
    /// `exposure`: the policy is on, something was read, the group is not
    /// exempt.
    #[inline]
    fn applies(&self, group: usize, exposure: &Exposure) -> bool {
        self.policy.enabled
            && !exposure.is_empty()
            && !self.exempt.get(group).copied().unwrap_or(false)
    }

    /// Why a run exposed to `exposure` may not call the tool at `index`
    /// (of group `group`) now, if it may not.
    pub(super) fn denial(
        &self,
        egress: Egress,
        group: usize,
        exposure: &Exposure,
    ) -> Option<Denial> {
        if egress == Egress::None || !self.applies(group, exposure) {
            return None;
        }
        if let (Some(from), Some(read)) = (self.policy.egress_after_data, &exposure.data)
            && read.class >= from
        {
            return Some(Denial::Exposure {
                rule: ExposureRule::EgressAfterData {
                    class: read.class,
                    from,
                },
                raised_by: Box::new(read.by.clone()),
            });
        }
        match &exposure.untrusted {
            Some(by) if self.policy.egress_after_untrusted => Some(Denial::Exposure {
                rule: ExposureRule::EgressAfterUntrusted,
                raised_by: Box::new(by.clone()),
            }),
            _ => None,
        }
    }

    /// The call that makes a write's proposal need another approver, if
    /// the run's exposure does.
    pub(super) fn hold(
        &self,
        effect: Effect,
        group: usize,
        exposure: &Exposure,
    ) -> Option<RaisedBy> {
        if effect != Effect::Write
            || self.policy.writes_after_untrusted == Approvers::Anyone
            || !self.applies(group, exposure)
        {
            return None;
        }
        exposure.untrusted.clone()
    }
}
