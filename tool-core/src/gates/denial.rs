//! Why a tool is not offered or a call refused, and the gate that said so.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::exposure::RaisedBy;
use crate::{DataClass, Egress};

use super::ExposureRule;

/// Why a tool is not offered, or a call refused: the first gate that said
/// no. For the host's logs and an administrator's view only; the model is
/// told "not available", the same as for a tool that does not exist.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, thiserror::Error)]
#[serde(tag = "gate", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Denial {
    /// Gate 1: no tool has this name.
    #[error("no tool with this name is registered")]
    NotRegistered,
    /// Gate 2: the tool's group is disabled; no per-tool override undoes it.
    #[error("its group `{group}` is disabled")]
    GroupDisabled {
        /// The group.
        group: Cow<'static, str>,
    },
    /// Gate 2: the tool is disabled (shipped so, or by an administrator).
    #[error("the tool is disabled")]
    ToolDisabled,
    /// Gate 3: the tool requires an administrator.
    #[error("the tool is for administrators and the actor is not one")]
    AdminOnly,
    /// Gate 4: the tool needs more network reach than its group is granted.
    #[error("the tool needs egress `{declared}` but its group is granted `{granted}`")]
    Egress {
        /// What the tool declares.
        declared: Egress,
        /// What its group is granted.
        granted: Egress,
    },
    /// Gate 5: the run's configuration does not include the tool's group.
    #[error("the run's configuration does not include group `{group}`")]
    GroupNotConfigured {
        /// The group.
        group: Cow<'static, str>,
    },
    /// Gate 5: the run's configuration is read-only and the tool writes.
    #[error("the run's configuration is read-only")]
    ReadOnlyRun,
    /// Gate 6: effective skills declare `allowed-tools` and none allows it.
    #[error("no effective skill's `allowed-tools` allows it")]
    NotAllowedBySkills,
    /// Gate 7: the run's selection leaves it out.
    #[error("the run's selection leaves it out")]
    NotSelected,
    /// Gate 8: the tool returns data of a class above the run's trust-zone
    /// ceiling.
    #[error("the tool returns {data} data, above the run's trust-zone ceiling `{ceiling}`")]
    TrustZone {
        /// What the tool declares (or `personal` when it declares none).
        data: DataClass,
        /// The run's ceiling.
        ceiling: DataClass,
    },
    /// Gate 9: what the run has read takes the tool away (a tool with
    /// egress after personal data or untrusted content, by default).
    #[error("what the run has read takes it away ({rule}; raised by {raised_by})")]
    Exposure {
        /// The policy's rule.
        #[serde(flatten)]
        rule: ExposureRule,
        /// The call whose result raised the exposure the rule looks at.
        /// Boxed, as the rest of a denial is a few bytes: a call's
        /// `Result` carries it, and a larger one costs every call.
        raised_by: Box<RaisedBy>,
    },
    /// Gate 9, at approval: the proposal was made after untrusted content
    /// entered the run, and the person whose run asked tries to approve it.
    #[error(
        "the change needs an approver other than the person who asked for it: their run read untrusted content (from {raised_by}) before proposing it"
    )]
    OwnProposal {
        /// The call that brought the untrusted content in.
        raised_by: Box<RaisedBy>,
    },
    /// At call time: the run's grant (resolved when it started) does not
    /// hold the tool.
    #[error("the run's grant does not hold it")]
    NotInGrant,
    /// At call time: the tool is granted only for some values of its scope
    /// argument, and this call's value is not one of them.
    #[error("the call's scope argument is outside every scope granted for it")]
    OutOfScope,
    /// At call time: the call's context acts for someone other than the
    /// actor the gates were built for, so the gates' verdicts are not about
    /// this caller. A context without an actor is accepted: no actor is
    /// never an administrator, so it can only narrow what a tool does.
    #[error("the call's context acts for another actor than the run")]
    OtherActor,
}

/// The gate a [`Denial`] comes from. Its `Display` and serialized form are
/// one word each (`registered`, `enabled`, `admin`, `egress`,
/// `configuration`, `skills`, `selection`, `trust_zone`, `exposure`,
/// `grant`, `scope`, `actor`),
/// stable, for logs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Gate {
    /// Gate 1: a tool has the name.
    Registered,
    /// Gate 2: the group and the tool are enabled.
    Enabled,
    /// Gate 3: the tool is not for administrators only, or the actor is one.
    Admin,
    /// Gate 4: the tool's network reach is within its group's.
    Egress,
    /// Gate 5: the run's configuration (groups, effects).
    Configuration,
    /// Gate 6: the effective skills' `allowed-tools`.
    Skills,
    /// Gate 7: the run's selection.
    Selection,
    /// Gate 8: the data class against the run's trust-zone ceiling.
    TrustZone,
    /// Gate 9: what the run has read against the host's exposure policy.
    Exposure,
    /// At call time: the run's grant holds the tool.
    Grant,
    /// At call time: the call's scope argument is within what is granted.
    Scope,
    /// At call time: the call's context acts for the run's actor.
    Actor,
}

impl fmt::Display for Gate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Gate::Registered => "registered",
            Gate::Enabled => "enabled",
            Gate::Admin => "admin",
            Gate::Egress => "egress",
            Gate::Configuration => "configuration",
            Gate::Skills => "skills",
            Gate::Selection => "selection",
            Gate::TrustZone => "trust_zone",
            Gate::Exposure => "exposure",
            Gate::Grant => "grant",
            Gate::Scope => "scope",
            Gate::Actor => "actor",
        })
    }
}

impl Denial {
    /// The gate that said no.
    pub fn gate(&self) -> Gate {
        match self {
            Denial::NotRegistered => Gate::Registered,
            Denial::GroupDisabled { .. } | Denial::ToolDisabled => Gate::Enabled,
            Denial::AdminOnly => Gate::Admin,
            Denial::Egress { .. } => Gate::Egress,
            Denial::GroupNotConfigured { .. } | Denial::ReadOnlyRun => Gate::Configuration,
            Denial::NotAllowedBySkills => Gate::Skills,
            Denial::NotSelected => Gate::Selection,
            Denial::TrustZone { .. } => Gate::TrustZone,
            Denial::Exposure { .. } | Denial::OwnProposal { .. } => Gate::Exposure,
            Denial::NotInGrant => Gate::Grant,
            Denial::OutOfScope => Gate::Scope,
            Denial::OtherActor => Gate::Actor,
        }
    }
}
