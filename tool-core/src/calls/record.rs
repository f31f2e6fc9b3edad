//! One structured record per gated call: who asked for what, which gate
//! decided by which rule, and how the call ended. For audit logs, so that
//! a decision can be traced to the exact tool definition it was made for.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::gates::{Denial, Gate};
use crate::{Outcome, RunId, ToolError};

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
}

/// One gated call, decided and run: what a host stores to answer "who
/// called what, why was it allowed, and what came of it".
///
/// Arguments are stored with [`redact_json`](crate::redact::redact_json)
/// applied: a secret-looking value never appears in clear.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DecisionRecord {
    /// The run.
    pub run: RunId,
    /// The acting user's id, if any.
    pub actor: Option<String>,
    /// The tool the call named.
    pub tool: String,
    /// The definition it was decided for; `None` for a name no tool has.
    pub definition: Option<DefinitionHash>,
    /// The call's arguments, redacted.
    pub arguments: Value,
    /// The gates' decision, with the gate and rule that refused.
    #[serde(flatten)]
    pub decision: GateDecision,
    /// The effective skills whose `allowed-tools` gate 6 consulted (empty
    /// when none declares the field).
    pub skills: Vec<String>,
    /// From the gate check to the end of the call.
    pub duration: Duration,
    /// How the call ended.
    pub outcome: OutcomeKind,
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
