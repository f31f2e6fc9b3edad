//! A built registry: its tools, checked and in name order, each with its
//! declaration, site and cached schemas, and the lookups every caller
//! shares.

use std::fmt;
use std::sync::{Arc, OnceLock};

use rustc_hash::FxHashMap;
use serde_json::Value;

use super::groups::Groups;
use crate::calls::{CallLimits, DefinitionHash, RetryPolicy, Timer, definition_hash};
use crate::export::{ExportIssue, Exports, Provider};
use crate::registration::{CheckFn, DynTool, Handler};
use crate::skills::KnownTool;
use crate::validation::ArgumentValidator;
use crate::{Declaration, DefinitionSite};

/// How a tool runs: a linked tool's handler, or a run-time tool.
pub(super) enum Kind {
    /// With its generated checks.
    Linked(Handler, Checks),
    /// With its arguments' validator, compiled at build: its schema comes
    /// from outside (an MCP server, say), so a bad one is a build problem.
    Dynamic(Arc<dyn DynTool>, ArgumentValidator),
}

/// A linked tool's generated checks: of its arguments, and of its
/// declared output (`#[tool(output = Type)]`), if any.
#[derive(Clone, Copy)]
pub(super) struct Checks {
    pub(super) arguments: CheckFn,
    /// serde's acceptance of the arguments implies the schema's: the call
    /// checks their size, and deserializing decides the rest.
    pub(super) serde_decides: bool,
    pub(super) output: Option<CheckFn>,
}

/// A tool in a built registry: its declaration, site and cached schema.
pub struct RegisteredTool {
    /// The name again, shared: grants and the index hold it without
    /// copying.
    pub(super) name: Arc<str>,
    pub(super) declaration: Declaration,
    pub(super) site: DefinitionSite,
    pub(super) schema: Value,
    pub(super) exports: Exports,
    /// The declared output's schema, and (a run-time tool's) its
    /// validator, compiled on the first result checked.
    pub(super) output_schema: Option<Value>,
    pub(super) output_validator: OnceLock<Result<ArgumentValidator, String>>,
    /// Computed on first use: building a large registry stays cheap.
    pub(super) definition: OnceLock<DefinitionHash>,
    pub(super) kind: Kind,
}

impl RegisteredTool {
    /// The declaration.
    pub fn declaration(&self) -> &Declaration {
        &self.declaration
    }

    /// The name (shorthand for `declaration().name`).
    pub fn name(&self) -> &str {
        &self.name
    }

    pub(crate) fn shared_name(&self) -> &Arc<str> {
        &self.name
    }

    /// Where it was declared.
    pub fn site(&self) -> DefinitionSite {
        self.site
    }

    /// The arguments schema the model is shown (JSON Schema 2020-12).
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// The tool's definition in `provider`'s form, built on first use
    /// (whether it can be was checked at build).
    pub fn export(&self, provider: Provider) -> &Value {
        self.exports.get(
            provider,
            &self.declaration,
            &self.schema,
            self.output_schema.as_ref(),
        )
    }

    /// The schema of its structured result, when it declares one
    /// (`#[tool(output = Type)]`, [`DynTool::output_schema`]).
    pub fn output_schema(&self) -> Option<&Value> {
        self.output_schema.as_ref()
    }

    /// The stable hash of its definition (name, declaration, input and
    /// output schemas), which ties a decision record, or a grant a host
    /// stores, to the exact definition it was made for.
    pub fn definition_hash(&self) -> DefinitionHash {
        *self.definition.get_or_init(|| {
            let declaration = serde_json::to_value(&self.declaration).unwrap_or(Value::Null);
            definition_hash(&declaration, &self.schema, self.output_schema.as_ref())
        })
    }

    /// Whether it was added at run time rather than linked.
    pub fn is_dynamic(&self) -> bool {
        matches!(self.kind, Kind::Dynamic(..))
    }
}

impl fmt::Debug for RegisteredTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RegisteredTool")
            .field("declaration", &self.declaration)
            .field("site", &self.site)
            .finish_non_exhaustive()
    }
}

/// Every tool of the program, checked, in name order.
pub struct Registry {
    /// Unique among the registries this process built: what a grant's
    /// index by registry position is keyed by (an address could be reused).
    pub(super) id: u64,
    pub(super) tools: Vec<RegisteredTool>,
    /// FxHash: keys are the registry's own names, so a model's lookups
    /// cannot flood it; SipHash cost a third of the call-time check.
    pub(super) index: FxHashMap<Arc<str>, usize>,
    /// Which group each tool is in, for the gates.
    pub(super) groups: Groups,
    pub(super) export_issues: Vec<ExportIssue>,
    pub(super) max_argument_bytes: usize,
    pub(super) timer: Option<Arc<dyn Timer>>,
    pub(super) limits: CallLimits,
    pub(super) retry: RetryPolicy,
    pub(super) validate_outputs: bool,
}

impl Registry {
    /// Every tool, sorted by name.
    pub fn tools(&self) -> &[RegisteredTool] {
        &self.tools
    }

    /// One tool by exact name.
    pub fn get(&self, name: &str) -> Option<&RegisteredTool> {
        self.index.get(name).map(|&i| &self.tools[i])
    }

    /// The tools one provider cannot take as intended, and what is sent
    /// instead (see [`export`](crate::export)). Each is also a `tracing`
    /// warning at build.
    pub fn export_issues(&self) -> &[ExportIssue] {
        &self.export_issues
    }

    /// The registered tools as `allowed-tools` sees them: each name and the
    /// kind of its scope argument, in name order. What gate 6 resolves
    /// skills against, and what [`check_skill_tools`](crate::skills::check_skill_tools)
    /// checks a skill against.
    pub fn known_tools(&self) -> Vec<KnownTool<'_>> {
        self.tools
            .iter()
            .map(|tool| KnownTool {
                name: tool.name(),
                scope: tool.declaration().scope.as_ref().map(|scope| scope.kind),
            })
            .collect()
    }

    /// How many tools.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The largest arguments, in bytes of JSON, a call may carry. A model
    /// client that receives arguments as text can refuse longer text before
    /// parsing it.
    pub fn max_argument_bytes(&self) -> usize {
        self.max_argument_bytes
    }

    pub(crate) fn index_of(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }

    /// This registry's number, unique in the process.
    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    /// Which group each tool is in.
    pub(crate) fn groups(&self) -> &Groups {
        &self.groups
    }
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.tools.iter().map(RegisteredTool::name))
            .finish()
    }
}
