//! [`HostError`]: why the app layer did not do what it was asked, worded
//! for a person and naming no door's command or address (each door adds its
//! own hint: the command line a command, the browser a link, MCP a JSON-RPC
//! error).

use tool_core::RegistryError;
use tool_core::approval::Decision;
use tool_core::exposure::Exposure;

use crate::app::skills::SkillsError;
use crate::app::skills::approval::ApproveError;
use crate::model::ClientError;
use crate::store::StoreError;

/// Why a run or an approval could not be done. Each is one line a person
/// can act on.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HostError {
    /// The store failed or refused.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The linked tools do not form a registry.
    #[error(transparent)]
    Registry(#[from] RegistryError),
    /// A skill the run asked for could not be loaded.
    #[error(transparent)]
    Skills(#[from] SkillsError),
    /// Skills could not be approved; nothing was recorded.
    #[error(transparent)]
    Approve(#[from] ApproveError),
    /// No model is configured.
    #[error("no model is configured (setting `model`)")]
    NoModel,
    /// A run asked for with nothing to ask.
    #[error("write a prompt first: the run has nothing to ask")]
    EmptyPrompt,
    /// A run asked for with a rounds cap out of range.
    #[error("a run offers tools in 1 to {most} rounds, not {asked}")]
    Rounds {
        /// The cap asked for.
        asked: u32,
        /// The most there may be.
        most: u32,
    },
    /// No model configuration has this name.
    #[error("no model configuration `{0}` in the `models` setting")]
    UnknownModel(String),
    /// The configured model cannot be used.
    #[error("the model setting cannot be used: {0}")]
    Client(#[from] ClientError),
    /// A background job cannot be stored or shown.
    #[error("{0}")]
    Job(String),
    /// No run has this id.
    #[error("no run `{0}`")]
    UnknownRun(String),
    /// No proposal has this id.
    #[error("no proposal `{0}`")]
    UnknownProposal(String),
    /// The proposal was decided before.
    #[error("already decided ({})", describe(.0))]
    AlreadyDecided(Decision),
    /// The proposal's run is not waiting for it.
    #[error("run `{run}` is not waiting for this proposal (it is {status})")]
    NotWaiting {
        /// The run.
        run: String,
        /// Its status.
        status: String,
    },
    /// The approval was refused by the gates; nothing was decided or
    /// written, and the run still waits.
    #[error("the approval was refused: {0}; nothing was written and the proposal is still pending")]
    Refused(String),
    /// The approver may not decide this proposal: its tool does not pass
    /// their gates, or its record is not theirs to change. Nothing was
    /// decided.
    #[error(
        "you may not decide this proposal (its tool or its record is not yours to change); nothing was decided"
    )]
    MayNotDecide,
    /// An action on a record could not start: the record is missing or
    /// not the user's to change, or its tool is not offered to them.
    #[error("the run was not started: {0}")]
    NotStarted(String),
    /// The OAuth issuer's keys could not be had; the token was not
    /// judged.
    #[error("{0}")]
    OAuth(String),
    /// A rejection came without a reason: the person whose run asked is
    /// owed one. Nothing was decided.
    #[error("a rejection needs a reason; nothing was decided")]
    ReasonRequired,
    /// Only an administrator may do this; nothing was changed.
    #[error("{doing} needs an administrator, and `{user}` is not one; nothing was changed")]
    NotAdmin {
        /// What was asked, such as `changing a setting`.
        doing: String,
        /// Who asked.
        user: String,
    },
    /// What was asked names nothing this host has, or is malformed;
    /// nothing was changed.
    #[error("{0}; nothing was changed")]
    Invalid(String),
    /// No public search backend could answer.
    #[error(transparent)]
    Index(#[from] tools_builtin::rag::IndexError),
    /// A model configuration, tested, did not answer.
    #[error("the model did not answer: {0}")]
    ModelTest(String),
    /// The decision could not be recorded; nothing was decided or written.
    #[error("the decision could not be recorded: {0}")]
    Decision(String),
    /// A call's rows (its audit entry, the proposal it made) could not be
    /// committed: its result is withheld and its proposal was not kept.
    #[error("the call could not be recorded, so its result is withheld: {0}")]
    Unrecorded(String),
}

/// `approved by ops`, `rejected by ops`, `expired`.
pub fn describe(decision: &Decision) -> String {
    match decision {
        Decision::Approved { approver } => format!("approved by {}", approver.id),
        Decision::Rejected { approver, .. } => format!("rejected by {}", approver.id),
        _ => "expired".to_owned(),
    }
}

/// A rise of a run's exposure in words (gate 9): `read untrusted content
/// and internal data through get_page_content (call c1); no longer
/// offered: probe_url`.
pub fn describe_exposure(
    tool: &str,
    call_id: &str,
    exposure: &Exposure,
    withdrawn: &[String],
) -> String {
    let mut text = format!("exposure after {tool} (call {call_id}): {exposure}");
    if !withdrawn.is_empty() {
        text.push_str("; no longer offered: ");
        text.push_str(&withdrawn.join(", "));
    }
    text
}

impl HostError {
    /// The name asked for, when the error is that no such user exists: a
    /// door says so in its words without knowing the store's errors.
    pub fn unknown_user(&self) -> Option<&str> {
        match self {
            HostError::Store(StoreError::UnknownUser(name)) => Some(name),
            _ => None,
        }
    }

    /// Whether the database could not be reached at all (a wrong address,
    /// a server that is down), as opposed to refusing or failing a query.
    pub fn is_unreachable(&self) -> bool {
        matches!(self, HostError::Store(StoreError::Connect { .. }))
    }
}
