//! What deciding a proposal came to when it is not an error, in one type
//! and one set of words every door shows (the command line, the browser,
//! MCP's tasks): a decision recorded and what applying it came to, or the
//! first of two approvals recorded. "Approved but nothing written" is
//! never told as a success: it is [`Applied::NotApplied`], worded
//! [`NOT_APPLIED`] first.

use tool_core::approval::Decision;

use crate::app::runs::RunReport;

/// The words an outcome that wrote nothing begins with, at every door.
pub const NOT_APPLIED: &str = "Not applied";

/// Why an approval of an expired proposal wrote nothing.
pub const EXPIRED_BEFORE_APPROVAL: &str =
    "the proposal expired before it was approved (nobody decided in time); nothing was written";

/// What deciding recorded.
#[derive(Debug, Clone, PartialEq)]
#[expect(
    clippy::large_enum_variant,
    reason = "made once per decision and matched at once; boxing would cost every door a deref for nothing"
)]
pub enum Recorded {
    /// The decision is recorded; what it came to.
    Decided(Decided),
    /// The first approval of two is recorded: the proposal waits for a
    /// second approver. What the policy still needs, in words (`1 of 2
    /// approvals: approved by ops; waiting for another person`).
    Waiting(String),
}

impl Recorded {
    /// The decision, when one was recorded.
    pub fn decided(self) -> Option<Decided> {
        match self {
            Recorded::Decided(decided) => Some(decided),
            Recorded::Waiting(_) => None,
        }
    }
}

/// A decision recorded, and what it came to.
#[derive(Debug, Clone, PartialEq)]
pub struct Decided {
    /// The decision recorded. An approval of a proposal found expired is
    /// recorded as the expiry it is ([`Decision::Expired`]).
    pub decision: Decision,
    /// For an approval: what applying it came to.
    pub applied: Option<Applied>,
    /// The resumed run and how it ended this time; `None` for a proposal
    /// made by one call outside any agent run (an MCP client's), whose
    /// run of one step answers its caller instead.
    pub report: Option<RunReport>,
}

/// What applying an approval came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Applied {
    /// Written: the tool's output as the model reads it.
    Written(String),
    /// Nothing was written, and why: the record changed since it was
    /// proposed, the tool refused it, or it expired before the approval.
    NotApplied {
        /// Why, as the tool or the host said it.
        why: String,
    },
}

impl Applied {
    /// `Not applied: WHY`, the same at every door; `None` when written.
    pub fn not_applied(&self) -> Option<String> {
        match self {
            Applied::Written(_) => None,
            Applied::NotApplied { why } => Some(format!("{NOT_APPLIED}: {why}")),
        }
    }
}
