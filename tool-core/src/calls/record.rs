//! One structured record per gated call: who asked for what, which gate
//! decided by which rule, and how the call ended. For audit logs, so that
//! a decision can be traced to the exact tool definition it was made for.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::approval::ApprovalError;
use crate::gates::{Denial, Gate};
use crate::{Outcome, RunId, ToolContext, ToolError, ToolOutput};

/// A stable hash of a tool's definition (name, declaration, input and
/// output schemas): FNV-1a 64 over their canonical JSON (keys sorted, no
/// spaces). Two builds with the same definition agree on it; any change a
/// model or an approver could notice changes it. Not a cryptographic hash:
/// it ties a record or a grant to a definition, it does not authenticate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DefinitionHash(pub u64);

impl fmt::Display for DefinitionHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

impl Serialize for DefinitionHash {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for DefinitionHash {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        u64::from_str_radix(&text, 16)
            .map(DefinitionHash)
            .map_err(serde::de::Error::custom)
    }
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

struct Fnv(u64);

impl Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 ^= u64::from(byte);
            self.0 = self.0.wrapping_mul(FNV_PRIME);
        }
    }

    /// Canonical JSON: object keys sorted whatever the map's order (serde_json's
    /// `preserve_order` may be on in the build), scalars as serde_json writes them.
    fn json(&mut self, value: &Value) {
        match value {
            Value::Object(map) => {
                let mut entries: Vec<_> = map.iter().collect();
                entries.sort_by(|a, b| a.0.cmp(b.0));
                self.write(b"{");
                for (i, (key, value)) in entries.into_iter().enumerate() {
                    if i > 0 {
                        self.write(b",");
                    }
                    self.json(&Value::String(key.clone()));
                    self.write(b":");
                    self.json(value);
                }
                self.write(b"}");
            }
            Value::Array(items) => {
                self.write(b"[");
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.write(b",");
                    }
                    self.json(item);
                }
                self.write(b"]");
            }
            scalar => self.write(scalar.to_string().as_bytes()),
        }
    }
}

/// The hash of one definition; see [`DefinitionHash`].
pub(crate) fn definition_hash(
    declaration: &Value,
    input: &Value,
    output: Option<&Value>,
) -> DefinitionHash {
    let mut fnv = Fnv(FNV_OFFSET);
    fnv.json(&serde_json::json!({
        "declaration": declaration,
        "input": input,
        "output": output,
    }));
    DefinitionHash(fnv.0)
}

/// What the gates decided about a call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum GateDecision {
    /// Every gate let it through.
    Allowed {
        /// Whether the tool is granted for some values of its scope
        /// argument only, and this call's value is one of them.
        scoped: bool,
    },
    /// A gate refused it.
    Refused {
        /// The gate.
        gate: Gate,
        /// The rule, with what it found (the group, the classes, …).
        rule: Denial,
    },
}

/// How a call ended, in one word for logs and queries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum OutcomeKind {
    /// A read tool returned its result.
    Done,
    /// A write tool proposed a change.
    Proposed,
    /// A gate refused the call.
    Refused,
    /// No such tool.
    NotAvailable,
    /// The arguments broke the schema or the size limit.
    InvalidArguments,
    /// The host lacks a service the tool needs.
    MissingService,
    /// The tool reported a failure.
    Failed,
    /// The tool failed transiently, after any retries.
    Transient,
    /// A bound ran out.
    TimedOut,
    /// The host cancelled it.
    Cancelled,
    /// The result broke the declared output schema.
    OutputMismatch,
    /// The tool panicked.
    Panicked,
    /// An approved proposal was applied.
    Applied,
    /// The proposal was decided before (or the approval was a replay).
    AlreadyDecided,
    /// The proposal expired before it was decided.
    Expired,
    /// The record changed since the proposal was made.
    Stale,
    /// The stored proposal is not its call's, or an edit changes another
    /// record.
    Mismatch,
    /// The approvals store failed; nothing was decided.
    StoreFailed,
    /// The first approval of two was recorded; nothing was applied yet.
    Waiting,
}

impl OutcomeKind {
    pub(crate) fn of(outcome: &Result<Outcome, ToolError>) -> Self {
        match outcome {
            Ok(Outcome::Done(_)) => OutcomeKind::Done,
            Ok(Outcome::Proposed(_)) => OutcomeKind::Proposed,
            Err(error) => match error {
                ToolError::Refused { .. } => OutcomeKind::Refused,
                ToolError::NotAvailable { .. } => OutcomeKind::NotAvailable,
                ToolError::InvalidArguments { .. } | ToolError::ArgumentsTooLarge { .. } => {
                    OutcomeKind::InvalidArguments
                }
                ToolError::MissingService { .. } => OutcomeKind::MissingService,
                ToolError::Transient { .. } => OutcomeKind::Transient,
                ToolError::TimedOut { .. } => OutcomeKind::TimedOut,
                ToolError::Cancelled { .. } => OutcomeKind::Cancelled,
                ToolError::OutputMismatch { .. } => OutcomeKind::OutputMismatch,
                ToolError::Panicked { .. } => OutcomeKind::Panicked,
                ToolError::Failed { .. } => OutcomeKind::Failed,
            },
        }
    }

    /// How an approval ended: applied, refused (by the run's gates or the
    /// approver's), or why it was not applied.
    pub(crate) fn of_approval(result: &Result<ToolOutput, ApprovalError>) -> Self {
        match result {
            Ok(_) => OutcomeKind::Applied,
            Err(error) => match error {
                ApprovalError::RunRefused { .. }
                | ApprovalError::ApproverRefused { .. }
                | ApprovalError::Policy(_) => OutcomeKind::Refused,
                ApprovalError::Waiting { .. } => OutcomeKind::Waiting,
                ApprovalError::AlreadyDecided(_) => OutcomeKind::AlreadyDecided,
                ApprovalError::Store(_) => OutcomeKind::StoreFailed,
                ApprovalError::Stale => OutcomeKind::Stale,
                ApprovalError::Expired => OutcomeKind::Expired,
                ApprovalError::Mismatch => OutcomeKind::Mismatch,
                ApprovalError::Tool(error) => OutcomeKind::of(&Err(error.clone())),
            },
        }
    }
}

/// One gated call, decided and run, or one approval of a proposal: what a
/// host stores to answer "who called what, why was it allowed, and what
/// came of it".
///
/// Arguments are stored with [`redact_json`](crate::redact::redact_json)
/// applied: a secret-looking value never appears in clear.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DecisionRecord {
    /// The run.
    pub run: RunId,
    /// The acting user's id, if any: for an approval, the run's user.
    pub actor: Option<String>,
    /// For a record of [`Approval`](crate::approval::Approval), who
    /// approved; `None` for a call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approver: Option<String>,
    /// The tool the call named.
    pub tool: String,
    /// The definition it was decided for; `None` for a name no tool has.
    pub definition: Option<DefinitionHash>,
    /// The call's arguments, redacted.
    pub arguments: Value,
    /// The gates' decision, with the gate and rule that refused (for an
    /// approval: the run's gates, then the approver's).
    #[serde(flatten)]
    pub decision: GateDecision,
    /// The effective skills whose `allowed-tools` gate 6 consulted (empty
    /// when none declares the field).
    pub skills: Vec<String>,
    /// From the gate check to the end of the call.
    pub duration: Duration,
    /// How the call ended.
    pub outcome: OutcomeKind,
    /// The result carries text a person wrote (it read an
    /// [`Authored`](crate::Authored) value): it counts as untrusted
    /// content whatever the tool declared.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub carries_authored: bool,
}

impl DecisionRecord {
    /// Whether a record made in `cx` goes anywhere: to its sink, or to
    /// the `tool_core::decision` target. When not, none is built.
    pub(crate) fn wanted(cx: &ToolContext) -> bool {
        cx.decision_sink().is_some()
            || tracing::enabled!(target: "tool_core::decision", tracing::Level::INFO)
    }

    /// Sends the record to the `tool_core::decision` target and to `cx`'s
    /// sink.
    pub(crate) fn emit(&self, cx: &ToolContext) {
        if tracing::enabled!(target: "tool_core::decision", tracing::Level::INFO) {
            let (gate, rule) = match &self.decision {
                GateDecision::Allowed { .. } => (None, None),
                GateDecision::Refused { gate, rule } => {
                    (Some(gate.to_string()), Some(rule.to_string()))
                }
            };
            tracing::info!(
                target: "tool_core::decision",
                run = %self.run,
                actor = self.actor.as_deref(),
                approver = self.approver.as_deref(),
                tool = self.tool.as_str(),
                definition = self.definition.map(|d| d.to_string()),
                arguments = %self.arguments,
                decision = if gate.is_some() { "deny" } else { "allow" },
                gate,
                rule,
                skills = ?self.skills,
                duration_us = u64::try_from(self.duration.as_micros()).unwrap_or(u64::MAX),
                outcome = ?self.outcome,
            );
        }
        if let Some(sink) = cx.decision_sink() {
            sink.record(self);
        }
    }
}

/// Where a host's [`DecisionRecord`]s go: put one in the run's context
/// ([`ToolContext::with_decision_sink`](crate::ToolContext::with_decision_sink)).
/// Implemented for closures `Fn(&DecisionRecord)`.
pub trait DecisionSink: Send + Sync + 'static {
    /// Receives one record, when the call has ended.
    fn record(&self, record: &DecisionRecord);
}

impl<F: Fn(&DecisionRecord) + Send + Sync + 'static> DecisionSink for F {
    fn record(&self, record: &DecisionRecord) {
        self(record);
    }
}

impl<T: DecisionSink + ?Sized> DecisionSink for Arc<T> {
    fn record(&self, record: &DecisionRecord) {
        (**self).record(record);
    }
}
