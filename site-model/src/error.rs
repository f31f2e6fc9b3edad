//! The one error type every trait of this crate returns.

use serde_json::Value;
use thiserror::Error;

/// Why a read or a write of the site failed.
///
/// A host maps its own failures onto these variants; a tool matches on them.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum SiteError {
    /// The thing asked for does not exist. A tool reports this, and a thing
    /// the actor may not reach, with the same neutral words ("not found or
    /// not permitted"), so a refusal does not confirm that something exists.
    #[error("{what} not found")]
    NotFound {
        /// What was looked for, e.g. `page 12` or `record news:3`.
        what: String,
    },
    /// A compare-and-set failed: the stored value is not the one the change
    /// expected to replace. Nothing was written.
    #[error("{target}: field `{field}` changed: expected {expected}, found {actual}")]
    Conflict {
        /// The record, e.g. `pages:12`.
        target: String,
        /// The first field whose value differed.
        field: String,
        /// The value the change expected.
        expected: Value,
        /// The value stored now.
        actual: Value,
    },
    /// The request cannot be carried out as asked (an unknown field, a value
    /// of the wrong type, an insert over an existing id). Nothing was written.
    #[error("{target}: {reason}")]
    Invalid {
        /// The record or query at fault.
        target: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The backend failed (I/O, a lost connection, a corrupt file).
    #[error("storage failed: {0}")]
    Storage(String),
}

impl SiteError {
    /// A [`SiteError::NotFound`] for `what`.
    pub fn not_found(what: impl Into<String>) -> Self {
        SiteError::NotFound { what: what.into() }
    }

    /// A [`SiteError::Invalid`] for `target`.
    pub fn invalid(target: impl Into<String>, reason: impl Into<String>) -> Self {
        SiteError::Invalid {
            target: target.into(),
            reason: reason.into(),
        }
    }
}
