//! What a call returns: a [`ToolOutput`], a [`Proposal`] waiting for
//! approval, or a [`ToolError`] with one text for the model and the detail
//! for the host.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::content::ContentItem;

/// A tool's result: text, JSON, or both, and any content items (images,
/// audio, resources: [`ContentItem`]) beside them.
///
/// ```
/// use tool_core::{ContentItem, ToolOutput};
///
/// let png = [0x89, b'P', b'N', b'G'];
/// let output = ToolOutput::text("The page's preview:").with(ContentItem::image(&png, "image/png"));
/// assert_eq!(output.content().len(), 1);
/// assert_eq!(output.to_model_text(), "The page's preview:\n[image: image/png, 4 bytes]");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolOutput {
    text: Option<String>,
    json: Option<Value>,
    /// Absent in results stored before content items existed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    content: Vec<ContentItem>,
    /// Whether it carries text a person wrote: the call read an
    /// [`Authored`](crate::Authored) value, or the tool said so.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    authored: bool,
}

impl ToolOutput {
    /// A text result.
    pub fn text(text: impl Into<String>) -> Self {
        ToolOutput {
            text: Some(text.into()),
            json: None,
            content: Vec::new(),
            authored: false,
        }
    }

    /// A structured result.
    pub fn json(json: Value) -> Self {
        ToolOutput {
            text: None,
            json: Some(json),
            content: Vec::new(),
            authored: false,
        }
    }

    /// A result of content items only, no text.
    pub fn items(items: impl IntoIterator<Item = ContentItem>) -> Self {
        ToolOutput {
            text: None,
            json: None,
            content: items.into_iter().collect(),
            authored: false,
        }
    }

    /// This result with `item` added after its other items.
    pub fn with(mut self, item: ContentItem) -> Self {
        self.content.push(item);
        self
    }

    /// A structured result of the type the tool declares
    /// (`#[tool(output = Type)]`): its schema is the tool's MCP
    /// `outputSchema`, and the value is checked against it before it leaves
    /// the call ([`RegistryBuilder::validate_outputs`](crate::RegistryBuilder::validate_outputs)).
    /// Fails only when `value` cannot be JSON (a map with non-string keys).
    pub fn structured<T: Serialize + schemars::JsonSchema>(value: T) -> Result<Self, ToolError> {
        serde_json::to_value(value)
            .map(ToolOutput::json)
            .map_err(|error| ToolError::failed(format!("the result could not be encoded: {error}")))
    }

    /// Both a text (for models that read text) and the structured value.
    pub fn both(text: impl Into<String>, json: Value) -> Self {
        ToolOutput {
            text: Some(text.into()),
            json: Some(json),
            content: Vec::new(),
            authored: false,
        }
    }

    /// The text part, if any.
    pub fn as_text(&self) -> Option<&str> {
        self.text.as_deref()
    }

    /// The structured part, if any.
    pub fn as_json(&self) -> Option<&Value> {
        self.json.as_ref()
    }

    /// The content items, in order.
    pub fn content(&self) -> &[ContentItem] {
        &self.content
    }

    /// Whether this result carries text a person wrote: the call read an
    /// [`Authored`](crate::Authored) value, or the tool marked it
    /// ([`with_authored`](Self::with_authored)). Such a result raises a
    /// run's exposure to untrusted content whatever the tool declared.
    pub fn carries_authored(&self) -> bool {
        self.authored
    }

    /// This result, marked as carrying text a person wrote: for a tool
    /// whose text comes from outside an [`Authored`](crate::Authored) value
    /// (a run-time tool relaying another server's answer).
    #[must_use]
    pub fn with_authored(mut self) -> Self {
        self.authored = true;
        self
    }

    /// The text, else the JSON as text; none when the result is content
    /// items only.
    pub fn main_text(&self) -> Option<String> {
        match (&self.text, &self.json) {
            (Some(text), _) => Some(text.clone()),
            (None, Some(json)) => Some(json.to_string()),
            (None, None) => None,
        }
    }

    /// What to put in a tool message that carries text only (a model's):
    /// [`main_text`](Self::main_text), then each content item described
    /// on a line of its own ([`ContentItem::describe`]).
    pub fn to_model_text(&self) -> String {
        let mut text = self.main_text().unwrap_or_default();
        for item in &self.content {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&item.describe());
        }
        text
    }

    /// Why this result may not leave its call, if it may not: its content
    /// items are larger than [`MAX_CONTENT_BYTES`](crate::MAX_CONTENT_BYTES)
    /// together, or one is malformed.
    pub fn content_problem(&self) -> Option<String> {
        let size: usize = self.content.iter().map(ContentItem::size).sum();
        if size > crate::content::MAX_CONTENT_BYTES {
            return Some(format!(
                "the result's content is {size} bytes, more than the {} one result may carry",
                crate::content::MAX_CONTENT_BYTES
            ));
        }
        self.content.iter().find_map(ContentItem::problem)
    }
}

/// One field a [`Write`](crate::Write) tool would change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Change {
    /// The field's name in the record.
    pub field: String,
    /// The value it would get.
    pub new: Value,
    /// The value it has now; applying refuses if it no longer has it.
    pub replaces: Value,
}

/// What a write tool would do, shown to a person before anything is written.
///
/// A tool builds it with [`Proposal::new`] (the record, the changes, one
/// sentence); the registry then fills in the tool's name, the validated
/// arguments the proposal was made from, a fresh [`ProposalId`] and the
/// time it was made ([`Proposal::created_at`]). A tool
/// cannot set those, so it cannot propose in another tool's name, and
/// approving re-runs the tool on exactly those arguments
/// ([`approval`](crate::approval)).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Proposal {
    id: ProposalId,
    tool: String,
    arguments: Value,
    /// Absent in proposals stored before it existed: such a proposal reads
    /// as made at the epoch, so it has expired (fails closed).
    #[serde(default)]
    created_at: u64,
    /// The record it would change (an id a person can look up).
    pub record: String,
    /// The fields it would change, with the values they replace.
    pub changes: Vec<Change>,
    /// One human sentence: what approving does.
    pub summary: String,
    /// Set by the gated call path when the run had read untrusted content
    /// before it proposed (gate 9): the call that brought it in. Such a
    /// proposal needs an approver other than the person whose run asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    exposure_hold: Option<crate::exposure::RaisedBy>,
    /// The most sensitive class its values may carry, stamped by the
    /// registry: the tool's declared class, or what the run had read when
    /// it proposed (gate 9), whichever is higher. Absent in proposals
    /// stored before it existed: read as the strictest (fails closed).
    #[serde(default)]
    data: crate::DataClass,
}

impl Proposal {
    /// A proposal of `changes` to `record`, described by `summary`.
    pub fn new(
        record: impl Into<String>,
        changes: Vec<Change>,
        summary: impl Into<String>,
    ) -> Self {
        Proposal {
            id: ProposalId(String::new()),
            tool: String::new(),
            arguments: Value::Null,
            created_at: 0,
            record: record.into(),
            changes,
            summary: summary.into(),
            exposure_hold: None,
            data: crate::DataClass::default(),
        }
    }

    /// What a model may be shown of it: the values it would write, field
    /// by field (`title → "Repairs"; slug → "repairs"`). Its other words
    /// (`record`, `summary`, each change's `replaces`) quote what people
    /// wrote (titles, the values replaced) for the person who approves;
    /// a door that answers a model shows this instead.
    pub fn to_model_text(&self) -> String {
        self.changes
            .iter()
            .map(|change| format!("{} → {}", change.field, change.new))
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// Whether a value it would write holds text its caller did not send:
    /// a string in a change's `new` value that is none of the strings of
    /// its arguments, so copied from somewhere else (the site). Such text
    /// counts as written by others: a door that shows the changes to a
    /// model raises its exposure, and so does the result of applying it.
    ///
    /// Derived from the proposal's own data, not declared: the caller's
    /// own words are what it sent; anything else may be anybody's. (Its
    /// other words, `record`, `summary` and each change's `replaces`, are
    /// for the person who approves; a door does not show them to a model.)
    pub fn carries_text_not_sent(&self) -> bool {
        let mut sent = std::collections::HashSet::new();
        strings(&self.arguments, &mut |text| {
            sent.insert(text);
        });
        let mut foreign = false;
        for change in &self.changes {
            strings(&change.new, &mut |text| foreign |= !sent.contains(text));
        }
        foreign
    }

    /// The most sensitive class of data its values may carry: the
    /// proposing tool's declared class, or the class of what its run had
    /// read when it proposed, whichever is higher. A host that shows or
    /// sends its values somewhere with a lower ceiling leaves them out.
    pub fn data_class(&self) -> crate::DataClass {
        self.data
    }

    /// The call whose untrusted content makes this proposal need an
    /// approver other than its requester (gate 9), if any.
    pub fn exposure_hold(&self) -> Option<&crate::exposure::RaisedBy> {
        self.exposure_hold.as_ref()
    }

    /// Marks it as made after untrusted content `by` entered the run.
    #[cfg(feature = "host")]
    pub(crate) fn held_by_exposure(mut self, by: crate::exposure::RaisedBy) -> Self {
        self.exposure_hold = Some(by);
        self
    }

    /// Its id, unique per proposal; each is decided once.
    pub fn id(&self) -> &ProposalId {
        &self.id
    }

    /// The tool that proposed it, as the registry recorded it.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The validated arguments it was made from.
    pub fn arguments(&self) -> &Value {
        &self.arguments
    }

    /// When the registry stamped it, in seconds since the Unix epoch: the
    /// start of the time it may wait for a decision
    /// ([`ProposalLifetime`](crate::approval::ProposalLifetime)).
    pub fn created_at(&self) -> u64 {
        self.created_at
    }

    /// Stamps what only the registry may say about a proposal.
    #[cfg(feature = "host")]
    pub(crate) fn stamped(
        mut self,
        id: ProposalId,
        tool: &str,
        arguments: Value,
        data: crate::DataClass,
    ) -> Self {
        self.id = id;
        self.tool = tool.to_owned();
        self.arguments = arguments;
        self.created_at = unix_now();
        self.data = data;
        self
    }

    /// Whether `fresh` (proposed again now) would write exactly what this
    /// one says: the same record, changes and summary.
    #[cfg(feature = "host")]
    pub(crate) fn same_change(&self, fresh: &Proposal) -> bool {
        self.record == fresh.record
            && self.changes == fresh.changes
            && self.summary == fresh.summary
    }
}

/// Calls `found` with every string in `value` (object keys aside).
fn strings<'v>(value: &'v Value, found: &mut impl FnMut(&'v str)) {
    match value {
        Value::String(text) => found(text),
        Value::Array(items) => items.iter().for_each(|item| strings(item, found)),
        Value::Object(map) => map.values().for_each(|item| strings(item, found)),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// Seconds since the Unix epoch; 0 for a clock set before it.
#[cfg(feature = "host")]
pub(crate) fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The id of one [`Proposal`]: 128 random bits in hex.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ProposalId(String);

impl ProposalId {
    /// A fresh id. Random (the standard library's per-process hash keys
    /// over a counter and the clock), so ids of two host processes sharing
    /// one database do not collide.
    #[cfg(feature = "host")]
    pub(crate) fn fresh() -> Self {
        use std::hash::{BuildHasher, Hasher};
        use std::sync::atomic::{AtomicU64, Ordering};
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let count = COUNTER.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let half = |salt: u64| {
            let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
            hasher.write_u64(salt);
            hasher.write_u64(count);
            hasher.write_u128(nanos);
            hasher.write_u32(std::process::id());
            hasher.finish()
        };
        ProposalId(format!("{:016x}{:016x}", half(1), half(2)))
    }

    /// An id as stored by a host.
    pub fn new(id: impl Into<String>) -> Self {
        ProposalId(id.into())
    }

    /// The id's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for ProposalId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The result of a checked call.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// A read tool ran.
    Done(ToolOutput),
    /// A write tool proposed a change; nothing is written until approved.
    /// Boxed: a proposal is more than twice a result's size, and every
    /// call moves its outcome through each layer of the call path.
    Proposed(Box<Proposal>),
}

/// One way the arguments failed the schema.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArgumentProblem {
    /// JSON Pointer to the failing value; empty for the whole object.
    pub path: String,
    /// Why it failed.
    pub message: String,
}

/// Why a call failed. [`ToolError::model_text`] is what the model may see;
/// `Display` is the detail for the host's logs.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// The tool does not exist, or this run may not call it. The model
    /// cannot tell the two apart.
    #[error("tool `{tool}` is not available")]
    NotAvailable {
        /// The name the caller asked for.
        tool: String,
    },
    /// A gate refused the call. The model is told exactly what it is told
    /// for a tool that does not exist; the [`Denial`](crate::gates::Denial)
    /// is for the host. (Feature `host`: only the gates refuse.)
    #[cfg(feature = "host")]
    #[error("tool `{tool}` refused: {denial} (gate: {})", denial.gate())]
    Refused {
        /// The name the caller asked for.
        tool: String,
        /// The first gate that said no.
        denial: crate::gates::Denial,
    },
    /// The arguments do not match the tool's schema.
    #[error("invalid arguments for `{tool}`: {}", describe(problems))]
    InvalidArguments {
        /// The tool called.
        tool: String,
        /// Every failing path, in document order.
        problems: Vec<ArgumentProblem>,
    },
    /// The arguments are longer than the host's limit; they were neither
    /// validated nor parsed.
    #[error("the arguments for `{tool}` are larger than the limit of {limit} bytes")]
    ArgumentsTooLarge {
        /// The tool called.
        tool: String,
        /// The limit, in bytes of JSON.
        limit: usize,
    },
    /// The tool needs a service the host did not put in the context.
    #[error("the host provides no `{service}`, which this tool needs")]
    MissingService {
        /// The service's type name.
        service: &'static str,
    },
    /// The tool ran and reports a failure the model may read.
    #[error("{message}")]
    Failed {
        /// Model-facing text; never secrets, never paths of the host.
        message: String,
        /// Whether the call read an [`Authored`](crate::Authored) value
        /// before failing, so that the text may quote what a person wrote
        /// (stamped by the registry; [`ToolError::carries_authored`]).
        authored: bool,
    },
    /// The call ran out of time; its future was dropped.
    #[error(
        "tool `{tool}` timed out after {} ({limit})",
        crate::calls::seconds(after)
    )]
    TimedOut {
        /// The tool called.
        tool: String,
        /// The bound that ran out.
        after: std::time::Duration,
        /// Which bound it was.
        limit: crate::calls::TimeLimit,
    },
    /// The host cancelled the call (or its run); its future was dropped.
    #[error("the call to `{tool}` was cancelled")]
    Cancelled {
        /// The tool called.
        tool: String,
    },
    /// The tool failed in a way that may pass (a busy service, a lost
    /// connection): an idempotent tool's call is retried
    /// ([`calls`](crate::calls)). Shown to the model as is once retries
    /// are spent.
    #[error("{message}")]
    Transient {
        /// Model-facing text; never secrets, never paths of the host.
        message: String,
        /// As for [`ToolError::Failed`].
        authored: bool,
    },
    /// The tool declared its output's schema and returned something else.
    /// A fault of the tool, not of the model's call.
    #[error(
        "the output of `{tool}` breaks its declared schema: {}",
        describe(problems)
    )]
    OutputMismatch {
        /// The tool called.
        tool: String,
        /// Every failing path of the output.
        problems: Vec<ArgumentProblem>,
    },
    /// The tool panicked. The panic message stays host-side: it may hold
    /// anything.
    #[error("tool `{tool}` panicked: {message}")]
    Panicked {
        /// The tool called.
        tool: String,
        /// The panic payload, when it was a string.
        message: String,
    },
}

impl ToolError {
    /// A failure reported by the tool itself, shown to the model as is.
    pub fn failed(message: impl Into<String>) -> Self {
        ToolError::Failed {
            message: message.into(),
            authored: false,
        }
    }

    /// A failure that may pass if the call is tried again; retried for
    /// idempotent tools ([`calls`](crate::calls)).
    pub fn transient(message: impl Into<String>) -> Self {
        ToolError::Transient {
            message: message.into(),
            authored: false,
        }
    }

    /// Whether the tool wrote this failure after reading text a person
    /// wrote (an [`Authored`](crate::Authored) value): its words may quote
    /// it, so it raises a run's exposure whatever the tool declared.
    pub fn carries_authored(&self) -> bool {
        matches!(
            self,
            ToolError::Failed { authored: true, .. } | ToolError::Transient { authored: true, .. }
        )
    }

    /// This failure, marked as written after reading a person's text; an
    /// error the host wrote (a refusal, a timeout) stays as it is.
    #[must_use]
    pub fn with_authored(mut self) -> Self {
        if let ToolError::Failed { authored, .. } | ToolError::Transient { authored, .. } =
            &mut self
        {
            *authored = true;
        }
        self
    }

    /// The text the model is given for this error.
    ///
    /// Refusals read exactly like unknown tools, byte for byte, so that a
    /// refusal never confirms that a tool exists.
    pub fn model_text(&self) -> String {
        match self {
            #[cfg(feature = "host")]
            ToolError::Refused { tool, .. } => {
                ToolError::NotAvailable { tool: tool.clone() }.to_string()
            }
            ToolError::Panicked { tool, .. } | ToolError::OutputMismatch { tool, .. } => {
                format!("tool `{tool}` failed")
            }
            ToolError::TimedOut {
                tool,
                after,
                limit: crate::calls::TimeLimit::SinceProgress,
            } => format!(
                "tool `{tool}` timed out after {} without progress",
                crate::calls::seconds(after)
            ),
            ToolError::TimedOut { tool, after, .. } => {
                format!(
                    "tool `{tool}` timed out after {}",
                    crate::calls::seconds(after)
                )
            }
            ToolError::MissingService { .. } => "the tool is not available on this host".to_owned(),
            other => other.to_string(),
        }
    }
}

fn describe(problems: &[ArgumentProblem]) -> String {
    problems
        .iter()
        .map(|p| {
            let path = if p.path.is_empty() { "(root)" } else { &p.path };
            format!("at `{path}`: {}", p.message)
        })
        .collect::<Vec<_>>()
        .join("; ")
}
