//! What a write tool's `apply` finds in its context: who approved, and the
//! proposal as made when the approver edited it. Here, not in `approval`
//! (a host's), so that a crate declaring write tools builds without the
//! `host` feature.

use crate::{Actor, Proposal};

/// Who approved the proposal being applied: a service in the context
/// the host's approval (`approval::Approval`) hands the tool (for its re-proposal and its `apply`).
///
/// A tool records it as the approver in the record's history, and may
/// refuse an approver without rights on the record (the tools of
/// `tools-editing` require the approver's own edit rights).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Approver(pub Actor);

/// The proposal as it was made, when the approver edited it before
/// approving (`approval::Approval::approve_edited`): a service in the context the
/// tool's `apply` gets, beside [`Approver`], so the history can keep the
/// proposed values next to the approved ones.
#[derive(Debug, Clone, PartialEq)]
pub struct EditedFrom(pub Proposal);
