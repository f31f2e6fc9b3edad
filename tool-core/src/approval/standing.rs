//! Standing approvals: an approver's "and the rest of this run" for one
//! tool, limited to what they state (the same record, the same fields, or
//! records of the same kind). A deliberate exception to "approval stays
//! per call", kept narrow:
//!
//! - it covers later proposals of the same agent run only (a host ends it
//!   with the run, and the approver may revoke it at any time);
//! - it covers a proposal only if the tool, and what the approver stated,
//!   match ([`StandingApproval::covers`]), and never one made after
//!   untrusted content entered the run ([`Proposal::exposure_hold`]):
//!   that one needs a person each time;
//! - a tool whose policy requires two approvers never allows one
//!   ([`ApprovalPolicy::allows_standing`](super::ApprovalPolicy::allows_standing));
//! - every proposal it covers still goes through [`Approval`](super::Approval)
//!   as its approver, with every check, and gets its own decision.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::{Actor, Proposal};

/// What a standing approval is limited to, as the approver stated it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StandingLimit {
    /// Changes to this record only.
    Record(String),
    /// Changes to these fields only, of any record.
    Fields(BTreeSet<String>),
    /// Changes to records of this kind ([`record_kind`]).
    Kind(String),
}

impl StandingLimit {
    /// The limit `scope` (`record`, `field` or `kind`) states, read off
    /// the proposal being approved; `None` for another word.
    pub fn of(scope: &str, proposal: &Proposal) -> Option<StandingLimit> {
        match scope {
            "record" => Some(StandingLimit::Record(proposal.record.clone())),
            "field" => Some(StandingLimit::Fields(
                proposal.changes.iter().map(|c| c.field.clone()).collect(),
            )),
            "kind" => Some(StandingLimit::Kind(
                record_kind(&proposal.record).to_owned(),
            )),
            _ => None,
        }
    }
}

impl std::fmt::Display for StandingLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StandingLimit::Record(record) => write!(f, "record {record}"),
            StandingLimit::Fields(fields) => {
                let fields: Vec<&str> = fields.iter().map(String::as_str).collect();
                write!(f, "fields {}", fields.join(", "))
            }
            StandingLimit::Kind(kind) => write!(f, "records of kind {kind}"),
        }
    }
}

/// An approver's approval of the rest of a run's proposals of one tool,
/// within a limit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StandingApproval {
    /// The host's id for it.
    pub id: String,
    /// The tool it is for.
    pub tool: String,
    /// Who gave it; the proposals it covers are approved as them.
    pub approver: Actor,
    /// What it is limited to.
    pub limit: StandingLimit,
}

impl StandingApproval {
    /// Whether `proposal` is one this approval covers.
    pub fn covers(&self, proposal: &Proposal) -> bool {
        if proposal.tool() != self.tool || proposal.exposure_hold().is_some() {
            return false;
        }
        match &self.limit {
            StandingLimit::Record(record) => proposal.record == *record,
            StandingLimit::Fields(fields) => {
                !proposal.changes.is_empty()
                    && proposal.changes.iter().all(|c| fields.contains(&c.field))
            }
            StandingLimit::Kind(kind) => record_kind(&proposal.record) == kind,
        }
    }
}

/// The kind of a record, as a proposal names it: the words before its id
/// (`page` of `page 25 "Team" (/about/team)`, `content element` of
/// `content element 8 "Our bikes"`, `page` of `page:20`); the whole text
/// when it holds no id.
pub fn record_kind(record: &str) -> &str {
    let end = record
        .find(|c: char| c.is_ascii_digit() || c == ':')
        .unwrap_or(record.len());
    record[..end].trim_end()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn proposal(tool: &str, record: &str, fields: &[&str]) -> Proposal {
        let changes: Vec<_> = fields
            .iter()
            .map(|f| json!({"field": f, "new": "n", "replaces": "o"}))
            .collect();
        serde_json::from_value(json!({
            "id": "p", "tool": tool, "arguments": {}, "created_at": 1,
            "record": record, "changes": changes, "summary": "s",
        }))
        .unwrap()
    }

    fn standing(limit: StandingLimit) -> StandingApproval {
        StandingApproval {
            id: "s".into(),
            tool: "retitle".into(),
            approver: Actor {
                id: "ops".into(),
                admin: false,
            },
            limit,
        }
    }

    #[test]
    fn each_limit_covers_what_it_states_of_the_same_tool_only() {
        let first = proposal("retitle", "page:20", &["title"]);
        let record = standing(StandingLimit::of("record", &first).unwrap());
        let fields = standing(StandingLimit::of("field", &first).unwrap());
        let kind = standing(StandingLimit::of("kind", &first).unwrap());
        assert!(StandingLimit::of("all", &first).is_none());

        let same_record = proposal("retitle", "page:20", &["title"]);
        let other_page = proposal("retitle", "page:21", &["title"]);
        let other_field = proposal("retitle", "page:21", &["nav_title"]);
        let other_kind = proposal("retitle", "file:3", &["title"]);
        let other_tool = proposal("move", "page:20", &["title"]);

        assert!(record.covers(&same_record) && !record.covers(&other_page));
        assert!(fields.covers(&other_page) && !fields.covers(&other_field));
        assert!(fields.covers(&other_kind));
        assert!(kind.covers(&other_page) && kind.covers(&other_field));
        assert!(!kind.covers(&other_kind));
        for limit in [&record, &fields, &kind] {
            assert!(!limit.covers(&other_tool));
        }
    }

    #[test]
    fn a_records_kind_is_the_words_before_its_id() {
        assert_eq!(record_kind("page 25 \"Team\" (/about/team)"), "page");
        assert_eq!(
            record_kind("content element 8 \"Our bikes\""),
            "content element"
        );
        assert_eq!(record_kind("file 3 (fileadmin/a.jpg)"), "file");
        assert_eq!(record_kind("page:20"), "page");
        assert_eq!(record_kind("settings"), "settings");
    }
}
