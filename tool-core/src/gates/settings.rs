//! What the gates read: the host's settings and a run's inputs.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

#[cfg(feature = "egress")]
use crate::egress::Site;
use crate::skills::{SkillRef, TrustLevel};
use crate::{Actor, DataClass, Egress};

use super::{Approvers, ExposurePolicy, GroupExposure};

/// An administrator's switch for a group or a tool. `Unset` keeps the
/// default (a group: enabled; a tool: its shipped state).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Toggle {
    /// Not touched: the default applies.
    #[default]
    Unset,
    /// Switched on.
    Enabled,
    /// Switched off.
    Disabled,
}

/// A host's settings for one group.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GroupSettings {
    /// On or off; a group never toggled is enabled.
    pub state: Toggle,
    /// The network reach granted to the group's tools; `none` unless granted.
    pub egress: Egress,
    /// Whether gate 9 applies to the group's tools; enforced unless an
    /// administrator exempts the group.
    pub exposure: GroupExposure,
    /// Who may approve the group's write tools; a tool's own setting wins.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approvers: Option<Approvers>,
    /// How many different people must approve; a tool's own setting wins.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub required: Option<Required>,
}

/// A host's settings for one tool.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ToolSettings {
    /// On or off; unset keeps the tool's shipped state. Cannot re-enable a
    /// tool of a disabled group.
    pub state: Toggle,
    /// Who may approve its proposals; unset takes the group's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approvers: Option<Approvers>,
    /// How many different people must approve; unset takes the group's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub required: Option<Required>,
}

/// How many different people must approve a proposal: one, or two (four
/// eyes). Written as the number, `1` or `2`; any other is refused.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Required {
    /// One approver.
    #[default]
    One,
    /// Two different approvers.
    Two,
}

impl Required {
    /// The number of approvers.
    pub fn count(self) -> usize {
        match self {
            Required::One => 1,
            Required::Two => 2,
        }
    }
}

impl Serialize for Required {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u8(match self {
            Required::One => 1,
            Required::Two => 2,
        })
    }
}

impl<'de> Deserialize<'de> for Required {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match u64::deserialize(deserializer)? {
            1 => Ok(Required::One),
            2 => Ok(Required::Two),
            other => Err(serde::de::Error::custom(format!(
                "`required` is 1 or 2, not {other}"
            ))),
        }
    }
}

/// What a host configured, filled from its own storage.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HostSettings {
    /// Per-group settings, by group name.
    pub groups: BTreeMap<String, GroupSettings>,
    /// Per-tool settings, by tool name.
    pub tools: BTreeMap<String, ToolSettings>,
    /// The host's own sites; the first is the base for URLs starting with `/`.
    /// (Feature `egress`: without it the field does not exist, so stored
    /// settings that name sites are refused as an unknown field rather than
    /// read without them.)
    #[cfg(feature = "egress")]
    pub sites: Vec<Site>,
    /// Skills trusted less than this are not effective.
    pub skill_trust_floor: TrustLevel,
    /// What a run's exposure takes away (gate 9).
    pub exposure: ExposurePolicy,
}

/// Which effects a run's configuration allows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AllowedEffects {
    /// Read and write tools.
    #[default]
    ReadWrite,
    /// Read tools only: no `write` tool is offered.
    ReadOnly,
}

/// A run's configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RunConfig {
    /// The groups the run may use: empty = all; a group that is not
    /// registered yields no tools.
    pub groups: BTreeSet<String>,
    /// The effects the run may use.
    pub effects: AllowedEffects,
    /// The trust-zone ceiling of the run's model provider (gate 8): the
    /// most sensitive class of data the model may be shown. `internal`
    /// unless the host raises it (a local model may see more than a hosted
    /// one), so an unclassified tool, which counts as `personal`, is not
    /// offered by default.
    pub trust_zone: DataClass,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            groups: BTreeSet::new(),
            effects: AllowedEffects::default(),
            trust_zone: DataClass::Internal,
        }
    }
}

/// The run's pick of tools.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Selection {
    /// None given: every tool that passed the other gates.
    #[default]
    All,
    /// Only these names; an empty set offers no tools.
    Only(BTreeSet<String>),
}

/// Everything the gates look at for one run.
#[derive(Debug, Clone, Copy)]
pub struct RunInputs<'a> {
    /// The host's settings.
    pub settings: &'a HostSettings,
    /// Who the run acts for; `None` is never an administrator.
    pub actor: Option<&'a Actor>,
    /// The run's configuration.
    pub config: &'a RunConfig,
    /// The run's skills: the configuration's plus those forced onto the run.
    pub skills: &'a [SkillRef],
    /// The run's selection.
    pub selection: &'a Selection,
}
