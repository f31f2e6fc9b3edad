//! The registry: every linked tool plus tools added at run time, checked
//! once, sorted by name, and the checked call path.

mod groups;
mod guard;
pub(crate) mod size;

use std::fmt;
use std::future::{Future, ready};
use std::panic::catch_unwind;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use rustc_hash::FxHashMap;
use serde_json::Value;

use crate::approval::ApprovalError;
use crate::calls::{
    Bounded, Bounds, CallLimits, CancelToken, DefinitionHash, MAX_TOOL_TIMEOUT, ProgressSignal,
    RetryPolicy, Timer, definition_hash,
};
use crate::context::EgressSlot;
use crate::either::{Either, race};
use crate::export::{ExportIssue, Exports, Provider};
use crate::registration::{DynTool, Handler, Registration};
use crate::skills::KnownTool;
use crate::validation::{Admission, ArgumentValidator};
use crate::{
    ArgumentProblem, Declaration, DefinitionSite, Effect, Outcome, Proposal, ProposalId,
    ToolContext, ToolError, ToolOutput, is_valid_group_name, is_valid_tool_name,
};
pub(crate) use groups::Groups;
use guard::{Guarded, guarded, panic_message};
use size::{exact_fits, fits};

use tool_rules::DESCRIPTION_MAX;

/// Collects the tools of a registry; [`build`](Self::build) checks them all.
#[must_use = "a builder does nothing until `build` is called"]
pub struct RegistryBuilder {
    linked: Vec<&'static Registration>,
    dynamic: Vec<Arc<dyn DynTool>>,
    max_argument_bytes: usize,
    timer: Option<Arc<dyn Timer>>,
    limits: CallLimits,
    retry: RetryPolicy,
    validate_outputs: bool,
}

impl Default for RegistryBuilder {
    fn default() -> Self {
        RegistryBuilder {
            linked: Vec::new(),
            dynamic: Vec::new(),
            max_argument_bytes: DEFAULT_MAX_ARGUMENT_BYTES,
            timer: None,
            limits: CallLimits::default(),
            retry: RetryPolicy::default(),
            validate_outputs: cfg!(debug_assertions),
        }
    }
}

/// The largest arguments a call may carry unless the host sets another
/// limit: 1 MiB of JSON.
pub const DEFAULT_MAX_ARGUMENT_BYTES: usize = 1 << 20;

impl RegistryBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Refuses calls whose arguments, as JSON, are longer than `bytes`
    /// (default [`DEFAULT_MAX_ARGUMENT_BYTES`]), before they are validated
    /// or parsed into the tool's type.
    pub fn max_argument_bytes(mut self, bytes: usize) -> Self {
        self.max_argument_bytes = bytes;
        self
    }

    /// Sets the timer every bound of a call waits on (timeouts, the
    /// ceiling, retry backoff). Without one no call times out
    /// ([`calls`](crate::calls)).
    pub fn timer(mut self, timer: impl Timer) -> Self {
        self.timer = Some(Arc::new(timer));
        self
    }

    /// The timeout of a tool that declares none. Restarted by each
    /// progress report, never past the [ceiling](Self::timeout_ceiling).
    pub fn default_timeout(mut self, timeout: Duration) -> Self {
        self.limits.default_timeout = Some(timeout);
        self
    }

    /// The hard bound on any call, counted from its start whatever the
    /// tool declares or reports.
    pub fn timeout_ceiling(mut self, ceiling: Duration) -> Self {
        self.limits.ceiling = Some(ceiling);
        self
    }

    /// How transient failures of idempotent tools are retried (default
    /// [`RetryPolicy::default`]; [`RetryPolicy::NONE`] turns retries off).
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// Checks each result of a tool that declares its output's schema
    /// against it; a result that breaks it fails the call
    /// ([`ToolError::OutputMismatch`]). Always on in debug builds (tests
    /// among them), where `false` is ignored; in release builds off unless
    /// the host turns it on, since it costs a schema check per result.
    pub fn validate_outputs(mut self, on: bool) -> Self {
        self.validate_outputs = on || cfg!(debug_assertions);
        self
    }

    /// Adds every tool linked into the program (`#[derive(Tool)]`): for a
    /// host that adds run-time tools ([`add`](Self::add)) as well. A host
    /// with only linked tools calls [`Registry::linked`].
    pub fn linked(mut self) -> Self {
        self.linked.extend(Registration::linked());
        self
    }

    /// Adds a tool whose schema is known only at run time.
    #[expect(
        clippy::should_implement_trait,
        reason = "a builder step, not arithmetic: `Add` on a builder would surprise"
    )]
    pub fn add(mut self, tool: impl DynTool) -> Self {
        self.dynamic.push(Arc::new(tool));
        self
    }

    /// Checks every tool and builds the registry, or reports **every**
    /// problem at once.
    pub fn build(self) -> Result<Registry, RegistryError> {
        let mut found = Found::default();
        let mut tools = Vec::with_capacity(self.linked.len() + self.dynamic.len());
        for registration in self.linked {
            let declaration = &registration.declaration;
            let schema = catch_unwind(registration.schema).map_err(|payload| {
                format!(
                    "generating the schema panicked: {}",
                    panic_message(&*payload)
                )
            });
            let output = registration.output_schema.map(|schema| {
                catch_unwind(schema).map_err(|payload| {
                    format!(
                        "generating the output's schema panicked: {}",
                        panic_message(&*payload)
                    )
                })
            });
            if let Some(tool) = found.check_tool(
                declaration.clone(),
                registration.site,
                schema,
                output.transpose(),
                Kind::Linked(registration.handler),
            ) {
                tools.push(tool);
            }
        }
        for tool in self.dynamic {
            let declaration = tool.declaration();
            let schema = Ok(tool.input_schema());
            let output = Ok(tool.output_schema());
            let site = tool.site();
            if declaration.effect == Effect::Write {
                found.problems.push(BuildProblem::UnsupportedDynamicWrite {
                    name: declaration.name.to_string(),
                    site,
                });
                continue;
            }
            if let Some(tool) =
                found.check_tool(declaration, site, schema, output, Kind::Dynamic(tool))
            {
                tools.push(tool);
            }
        }

        // Sorting by site as well makes "first" and "second" of a duplicate,
        // and so the error text, independent of link order.
        tools.sort_by(|a, b| {
            (a.declaration.name.as_ref(), a.site).cmp(&(b.declaration.name.as_ref(), b.site))
        });
        let Found {
            mut problems,
            mut export_issues,
        } = found;
        for pair in tools.windows(2) {
            if pair[0].declaration.name == pair[1].declaration.name {
                problems.push(BuildProblem::DuplicateName {
                    name: pair[0].declaration.name.to_string(),
                    first: pair[0].site,
                    second: pair[1].site,
                });
            }
        }
        if !problems.is_empty() {
            problems.sort();
            return Err(RegistryError { problems });
        }
        let index = tools
            .iter()
            .enumerate()
            .map(|(i, tool)| (Arc::clone(&tool.name), i))
            .collect();
        export_issues.sort_by(|a, b| (&a.tool, a.provider as u8).cmp(&(&b.tool, b.provider as u8)));
        let bounded = self.limits.default_timeout.is_some()
            || self.limits.ceiling.is_some()
            || tools.iter().any(|t| t.declaration.timeout.is_some());
        if bounded && self.timer.is_none() {
            tracing::warn!(
                target: "tool_core::registry",
                "calls have timeouts but the registry has no timer: no call will time out",
            );
        }
        let groups = Groups::new(&tools);
        Ok(Registry {
            tools,
            index,
            groups,
            export_issues,
            max_argument_bytes: self.max_argument_bytes,
            timer: self.timer,
            limits: self.limits,
            retry: self.retry,
            validate_outputs: self.validate_outputs,
        })
    }
}

/// What checking the tools found besides the tools themselves: the
/// problems that refuse the registry, and the export issues that only warn.
#[derive(Default)]
struct Found {
    problems: Vec<BuildProblem>,
    export_issues: Vec<ExportIssue>,
}

impl Found {
    /// Checks one tool, recording what is wrong with it; the tool, when
    /// nothing is.
    fn check_tool(
        &mut self,
        declaration: Declaration,
        site: DefinitionSite,
        schema: Result<Value, String>,
        output: Result<Option<Value>, String>,
        kind: Kind,
    ) -> Option<RegisteredTool> {
        let Found {
            problems,
            export_issues,
        } = self;
        let before = problems.len();
        let name = declaration.name.to_string();
        if !is_valid_tool_name(&name) {
            problems.push(BuildProblem::InvalidName {
                name: name.clone(),
                site,
            });
        }
        if !is_valid_group_name(&declaration.group) {
            problems.push(BuildProblem::InvalidGroup {
                name: name.clone(),
                group: declaration.group.to_string(),
                site,
            });
        }
        if let Some(timeout) = declaration.timeout
            && (timeout.is_zero() || timeout > MAX_TOOL_TIMEOUT)
        {
            problems.push(BuildProblem::InvalidTimeout {
                name: name.clone(),
                timeout,
                site,
            });
        }
        let length = declaration.description.chars().count();
        if length == 0 || length > DESCRIPTION_MAX {
            problems.push(BuildProblem::InvalidDescription {
                name: name.clone(),
                length,
                site,
            });
        }
        let schema = match schema {
            Ok(schema) => schema,
            Err(reason) => {
                problems.push(BuildProblem::InvalidSchema { name, site, reason });
                return None;
            }
        };
        if schema.get("type").and_then(Value::as_str) != Some("object") {
            problems.push(BuildProblem::SchemaNotObject {
                name: name.clone(),
                site,
                found: schema
                    .get("type")
                    .map_or_else(|| "no `type`".to_owned(), Value::to_string),
            });
        }
        if let Some(scope) = &declaration.scope {
            let property = schema
                .get("properties")
                .and_then(|p| p.get(scope.property.as_ref()));
            if property.is_none() {
                problems.push(BuildProblem::ScopeNotInSchema {
                    name: name.clone(),
                    scope: scope.property.to_string(),
                    site,
                });
            }
        }
        let output = match output {
            Ok(output) => output,
            Err(reason) => {
                problems.push(BuildProblem::InvalidSchema { name, site, reason });
                return None;
            }
        };
        match crate::export::check(&declaration, &schema, output.as_ref()) {
            Ok(issues) => {
                for issue in &issues {
                    tracing::warn!(target: "tool_core::registry", %issue, "export falls back");
                }
                export_issues.extend(issues);
            }
            Err(reason) => problems.push(BuildProblem::Unexportable {
                name: name.clone(),
                site,
                reason,
            }),
        }
        // A run-time tool's schema comes from outside (an MCP server, say), so
        // it is compiled now and a bad one is a build problem. A derived tool's
        // schema is schemars' own output; compiling it on first call keeps the
        // build of a large registry cheap (it was 38% of building 10,000 tools).
        let validator = if matches!(kind, Kind::Dynamic(_)) {
            match ArgumentValidator::compile(&schema) {
                Ok(validator) => Some(OnceLock::from(Ok(validator))),
                Err(reason) => {
                    problems.push(BuildProblem::InvalidSchema { name, site, reason });
                    None
                }
            }
        } else {
            Some(OnceLock::new())
        };
        match validator {
            Some(validator) if problems.len() == before => Some(RegisteredTool {
                name: Arc::from(declaration.name.as_ref()),
                declaration,
                site,
                schema,
                exports: Exports::default(),
                validator,
                output_schema: output,
                output_validator: OnceLock::new(),
                definition: OnceLock::new(),
                kind,
            }),
            _ => None,
        }
    }
}

/// Everything a registry build found wrong, all at once.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct RegistryError {
    /// Every problem, sorted by tool name.
    pub problems: Vec<BuildProblem>,
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the tool registry has {} problem(s):",
            self.problems.len()
        )?;
        for problem in &self.problems {
            write!(f, "\n  - {problem}")?;
        }
        Ok(())
    }
}

/// One problem found by [`RegistryBuilder::build`].
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, thiserror::Error)]
#[non_exhaustive]
pub enum BuildProblem {
    /// Two tools share a name; neither is kept.
    #[error("tool name `{name}` is declared twice: in {first} and in {second}")]
    DuplicateName {
        /// The shared name.
        name: String,
        /// One definition.
        first: DefinitionSite,
        /// The other definition.
        second: DefinitionSite,
    },
    /// The name breaks `^[A-Za-z0-9_-]{1,64}$`.
    #[error("tool name `{name}` (in {site}) breaks `^[A-Za-z0-9_-]{{1,64}}$`")]
    InvalidName {
        /// The name.
        name: String,
        /// Where it was declared.
        site: DefinitionSite,
    },
    /// The group breaks `^[a-z][a-z0-9_-]{0,63}$`.
    #[error(
        "tool `{name}` (in {site}) has group `{group}`, which breaks `^[a-z][a-z0-9_-]{{0,63}}$`"
    )]
    InvalidGroup {
        /// The tool.
        name: String,
        /// Its group.
        group: String,
        /// Where it was declared.
        site: DefinitionSite,
    },
    /// The description is empty or longer than 1,024 characters.
    #[error(
        "tool `{name}` (in {site}) has a description of {length} characters: 1 to 1024 are allowed"
    )]
    InvalidDescription {
        /// The tool.
        name: String,
        /// Its length in characters.
        length: usize,
        /// Where it was declared.
        site: DefinitionSite,
    },
    /// The arguments schema's root is not `type: object`.
    #[error(
        "tool `{name}` (in {site}) has an arguments schema whose root is {found}, not an object"
    )]
    SchemaNotObject {
        /// The tool.
        name: String,
        /// Where it was declared.
        site: DefinitionSite,
        /// The root's `type`.
        found: String,
    },
    /// The schema could not be generated or compiled.
    #[error("tool `{name}` (in {site}) has an unusable schema: {reason}")]
    InvalidSchema {
        /// The tool.
        name: String,
        /// Where it was declared.
        site: DefinitionSite,
        /// Why.
        reason: String,
    },
    /// `scope` names a property the schema does not have (for instance
    /// after a serde `rename_all`).
    #[error(
        "tool `{name}` (in {site}) declares the scope argument `{scope}`, but its schema has no such property"
    )]
    ScopeNotInSchema {
        /// The tool.
        name: String,
        /// The declared scope property.
        scope: String,
        /// Where it was declared.
        site: DefinitionSite,
    },
    /// A provider form could not be made from the schema.
    #[error("tool `{name}` (in {site}) has a schema no provider form can be made of: {reason}")]
    Unexportable {
        /// The tool.
        name: String,
        /// Where it was declared.
        site: DefinitionSite,
        /// Why.
        reason: String,
    },
    /// The declared timeout is zero or longer than
    /// [`MAX_TOOL_TIMEOUT`](crate::calls::MAX_TOOL_TIMEOUT).
    #[error(
        "tool `{name}` (in {site}) declares a timeout of {timeout:?}: give more than zero and at most one hour"
    )]
    InvalidTimeout {
        /// The tool.
        name: String,
        /// Its timeout.
        timeout: Duration,
        /// Where it was declared.
        site: DefinitionSite,
    },
    /// A run-time tool declared `effect = write`, which needs the two-phase
    /// `Write` path that only derived tools have.
    #[error(
        "run-time tool `{name}` (from {site}) declares effect `write`, which run-time tools cannot have yet"
    )]
    UnsupportedDynamicWrite {
        /// The tool.
        name: String,
        /// Where it came from.
        site: DefinitionSite,
    },
}

enum Kind {
    Linked(Handler),
    Dynamic(Arc<dyn DynTool>),
}

/// A tool in a built registry: its declaration, site and cached schema.
pub struct RegisteredTool {
    /// The name again, shared: grants and the index hold it without
    /// copying.
    name: Arc<str>,
    declaration: Declaration,
    site: DefinitionSite,
    schema: Value,
    exports: Exports,
    /// Compiled once: at build for run-time tools, on first call otherwise.
    validator: OnceLock<Result<ArgumentValidator, String>>,
    /// The declared output's schema, and its validator, compiled on the
    /// first result checked.
    output_schema: Option<Value>,
    output_validator: OnceLock<Result<ArgumentValidator, String>>,
    /// Computed on first use: building a large registry stays cheap.
    definition: OnceLock<DefinitionHash>,
    kind: Kind,
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
        matches!(self.kind, Kind::Dynamic(_))
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
    tools: Vec<RegisteredTool>,
    /// FxHash: keys are the registry's own names, so a model's lookups
    /// cannot flood it; SipHash cost a third of the call-time check.
    index: FxHashMap<Arc<str>, usize>,
    /// Which group each tool is in, for the gates.
    groups: Groups,
    export_issues: Vec<ExportIssue>,
    max_argument_bytes: usize,
    timer: Option<Arc<dyn Timer>>,
    limits: CallLimits,
    retry: RetryPolicy,
    validate_outputs: bool,
}

impl Registry {
    /// A builder.
    pub fn builder() -> RegistryBuilder {
        RegistryBuilder::new()
    }

    /// The registry of every linked tool.
    pub fn linked() -> Result<Registry, RegistryError> {
        RegistryBuilder::new().linked().build()
    }

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

    /// An **ungated** call: validates `arguments` against the schema the
    /// model was shown, deserializes them, and runs the tool, checking no
    /// gate and no grant.
    ///
    /// For tests and for hosts that gate elsewhere; a host offering tools to
    /// a model calls through [`Gates::call`](crate::gates::Gates::call).
    ///
    /// A read tool returns [`Outcome::Done`]; a write tool returns
    /// [`Outcome::Proposed`] and writes nothing. Never panics: a tool that
    /// panics fails this call with [`ToolError::Panicked`].
    pub fn call_ungated<'a>(
        &'a self,
        name: &str,
        arguments: Value,
        cx: &'a ToolContext,
    ) -> impl Future<Output = Result<Outcome, ToolError>> + Send + 'a {
        // A plain function around the call's future rather than an `async
        // fn`: one state machine less to build and move on every call.
        match self.get(name) {
            Some(tool) => Either::left(self.call_registered(tool, arguments, cx, None)),
            None => Either::right(ready(Err(ToolError::NotAvailable {
                tool: name.to_owned(),
            }))),
        }
    }

    pub(crate) fn index_of(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }

    /// Which group each tool is in.
    pub(crate) fn groups(&self) -> &Groups {
        &self.groups
    }

    /// The checked call of a tool already found (and, on the gated path,
    /// already admitted by the gates, with the egress guard of its group
    /// when it reaches only its own site).
    pub(crate) async fn call_registered(
        &self,
        tool: &RegisteredTool,
        arguments: Value,
        cx: &ToolContext,
        egress: Option<&EgressSlot>,
    ) -> Result<Outcome, ToolError> {
        self.admit(tool, &arguments)?;
        let name = tool.name();
        let retries = if tool.declaration.idempotent {
            self.retry.retries()
        } else {
            0
        };
        let plan = self.plan(tool);
        // One context for every attempt of the call: the egress guard, and
        // one progress signal for every attempt.
        let derived = cx.for_call(egress, plan.signal.as_ref());
        let call_cx = derived.as_ref().unwrap_or(cx);
        let mut arguments = arguments;
        let mut attempt = 0;
        loop {
            // Checked before the tool starts: a cancelled call runs nothing.
            if cx.cancel_token().is_some_and(CancelToken::is_cancelled) {
                return Err(ToolError::Cancelled {
                    tool: name.to_owned(),
                });
            }
            let last = attempt >= retries;
            let result = match &tool.kind {
                Kind::Linked(Handler::Read { execute }) => {
                    let call = guarded(name, || execute(&arguments, call_cx));
                    self.attempt(name, &plan, cx, call)
                        .await
                        .and_then(|output| self.check_output(tool, output))
                        .map(Outcome::Done)
                }
                Kind::Linked(Handler::Write { propose, .. }) => {
                    let call = guarded(name, || propose(&arguments, call_cx));
                    match self.attempt(name, &plan, cx, call).await {
                        Ok(proposal) => {
                            let stamped = proposal.stamped(ProposalId::fresh(), name, arguments);
                            return Ok(Outcome::Proposed(stamped));
                        }
                        Err(error) => Err(error),
                    }
                }
                Kind::Dynamic(dynamic) => {
                    // Copied only when another attempt may need them.
                    let owned = if last {
                        std::mem::take(&mut arguments)
                    } else {
                        arguments.clone()
                    };
                    let call = guarded(name, || dynamic.execute(owned, call_cx));
                    self.attempt(name, &plan, cx, call)
                        .await
                        .and_then(|output| self.check_output(tool, output))
                        .map(Outcome::Done)
                }
            };
            if last || !matches!(result, Err(ToolError::Transient { .. })) {
                return result;
            }
            // Not kept across the wait: the call's future stays small.
            drop(result);
            attempt += 1;
            tracing::info!(target: "tool_core::call", tool = name, attempt, "transient failure; retrying");
            // Boxed: only a retry pays for the wait's future.
            Box::pin(self.back_off(name, attempt, cx)).await?;
        }
    }

    /// Refuses arguments over the size limit or against the schema, before
    /// anything of the tool runs.
    fn admit(&self, tool: &RegisteredTool, arguments: &Value) -> Result<(), ToolError> {
        let validator = tool
            .validator
            .get_or_init(|| ArgumentValidator::compile(&tool.schema));
        let Ok(validator) = validator else {
            // Unreachable for schemars' output; refuse rather than run
            // unvalidated.
            tracing::error!(target: "tool_core::call", tool = tool.name(), "the tool's schema does not compile");
            return Err(ToolError::failed("the tool is not available on this host"));
        };
        let too_large = || ToolError::ArgumentsTooLarge {
            tool: tool.name().to_owned(),
            limit: self.max_argument_bytes,
        };
        // Valid arguments in the compiled subset are bounded by the same
        // walk that validates them; anything else is measured, then checked.
        match validator.admit(arguments, self.max_argument_bytes) {
            Admission::Admitted => return Ok(()),
            Admission::IfItFits if exact_fits(arguments, self.max_argument_bytes) => return Ok(()),
            Admission::IfItFits => return Err(too_large()),
            Admission::Undecided => {}
        }
        if !fits(arguments, self.max_argument_bytes) {
            return Err(too_large());
        }
        validator
            .check(arguments)
            .map_err(|problems| ToolError::InvalidArguments {
                tool: tool.name().to_owned(),
                problems,
            })
    }

    /// The wait before another attempt, cut short by the cancel token.
    async fn back_off(&self, tool: &str, attempt: u32, cx: &ToolContext) -> Result<(), ToolError> {
        let Some(timer) = &self.timer else {
            return Ok(());
        };
        let backoff = timer.sleep(self.retry.backoff(attempt));
        match cx.cancel_token() {
            Some(token) => match race(backoff, token.cancelled()).await {
                Ok(()) => Ok(()),
                Err(()) => Err(ToolError::Cancelled {
                    tool: tool.to_owned(),
                }),
            },
            None => {
                backoff.await;
                Ok(())
            }
        }
    }

    /// Checks a result against the tool's declared output schema, when it
    /// declares one and outputs are checked.
    #[inline]
    fn check_output(
        &self,
        tool: &RegisteredTool,
        output: ToolOutput,
    ) -> Result<ToolOutput, ToolError> {
        match &tool.output_schema {
            Some(schema) if self.validate_outputs => {
                self.check_declared_output(tool, schema, output)
            }
            _ => Ok(output),
        }
    }

    /// [`check_output`](Self::check_output) for a tool that declares its
    /// output's schema: out of line, as most tools declare none.
    #[inline(never)]
    fn check_declared_output(
        &self,
        tool: &RegisteredTool,
        schema: &Value,
        output: ToolOutput,
    ) -> Result<ToolOutput, ToolError> {
        let mismatch = |problems| ToolError::OutputMismatch {
            tool: tool.name().to_owned(),
            problems,
        };
        let Some(json) = output.as_json() else {
            return Err(mismatch(vec![ArgumentProblem {
                path: String::new(),
                message: "the tool declares a structured output but returned none".to_owned(),
            }]));
        };
        let validator = tool
            .output_validator
            .get_or_init(|| ArgumentValidator::compile(schema));
        match validator {
            Ok(validator) => validator.check(json).map_err(mismatch)?,
            Err(reason) => {
                return Err(mismatch(vec![ArgumentProblem {
                    path: String::new(),
                    message: format!("the declared output schema does not compile: {reason}"),
                }]));
            }
        }
        Ok(output)
    }

    /// The bounds of a call of `tool`: none without a timer, so a host
    /// that sets none pays nothing for them.
    fn plan(&self, tool: &RegisteredTool) -> CallPlan<'_> {
        if self.timer.is_none() {
            return CallPlan::UNBOUNDED;
        }
        let (timeout, ceiling) = self.limits.for_tool(tool.declaration.timeout);
        let timer = self
            .timer
            .as_deref()
            .filter(|_| timeout.is_some() || ceiling.is_some());
        CallPlan {
            timer,
            timeout,
            ceiling,
            signal: timeout
                .and(timer)
                .map(|_| Arc::new(ProgressSignal::default())),
        }
    }

    /// One attempt of a call, within its timeout, the ceiling and the
    /// cancel token; with none of them, the tool's future alone.
    ///
    /// A plain function: the unbounded call, which is every call of a host
    /// that sets no timeout, moves two words rather than the race.
    fn attempt<'a, T>(
        &'a self,
        name: &'a str,
        plan: &'a CallPlan<'_>,
        cx: &'a ToolContext,
        call: Guarded<'a, T>,
    ) -> Attempt<'a, T> {
        let cancel = cx.cancel_token();
        if plan.timer.is_none() && cancel.is_none() {
            return Either::left(call);
        }
        let bounds = Bounds {
            timer: plan.timer,
            timeout: plan.timeout,
            ceiling: plan.ceiling,
            cancel: cancel.map(CancelToken::cancelled),
            progress: plan.signal.as_deref(),
        };
        Either::right(Box::pin(Bounded::new(name, call, bounds)))
    }

    /// Applies an approved proposal with the tool that made it: proposes
    /// again on the proposal's arguments and refuses the proposal as stale
    /// unless the fresh one says the same. Only the approval path
    /// ([`Approval::approve`](crate::approval::Approval::approve)) reaches
    /// this, after its checks.
    pub(crate) async fn apply_approved(
        &self,
        tool: &RegisteredTool,
        proposal: &Proposal,
        cx: &ToolContext,
    ) -> Result<ToolOutput, ApprovalError> {
        let Kind::Linked(Handler::Write { apply, .. }) = &tool.kind else {
            return Err(ToolError::NotAvailable {
                tool: proposal.tool().to_owned(),
            }
            .into());
        };
        let fresh = match self
            .call_registered(tool, proposal.arguments().clone(), cx, None)
            .await?
        {
            Outcome::Proposed(fresh) if proposal.same_change(&fresh) => fresh,
            _ => return Err(ApprovalError::Stale),
        };
        // The fresh proposal carries the approved one's id: one decision.
        let fresh = fresh.stamped(
            proposal.id().clone(),
            tool.name(),
            proposal.arguments().clone(),
        );
        let output = guarded(tool.name(), || apply(&fresh, cx)).await?;
        // The change is written: failing the call now would tell the model
        // it was not, and invite it to write again. The host hears of it.
        if let Err(error) = self.check_output(tool, output.clone()) {
            tracing::error!(target: "tool_core::call", tool = tool.name(), %error, "an applied change's result breaks the declared output schema");
        }
        Ok(output)
    }
}

/// One attempt's future: the tool's call alone, or raced (boxed, as the
/// race is the rarer and larger one).
type Attempt<'a, T> = Either<Guarded<'a, T>, Pin<Box<Bounded<'a, Guarded<'a, T>>>>>;

/// What bounds the attempts of one call.
struct CallPlan<'r> {
    timer: Option<&'r dyn Timer>,
    timeout: Option<Duration>,
    ceiling: Option<Duration>,
    signal: Option<Arc<ProgressSignal>>,
}

impl CallPlan<'_> {
    /// No timer: nothing bounds the call but the cancel token.
    const UNBOUNDED: Self = CallPlan {
        timer: None,
        timeout: None,
        ceiling: None,
        signal: None,
    };
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.tools.iter().map(RegisteredTool::name))
            .finish()
    }
}
