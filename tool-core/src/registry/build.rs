//! Building a registry: collecting the linked and run-time tools, checking
//! each once, sorting them by name and reporting every problem at once.

use std::panic::catch_unwind;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde_json::Value;
use tool_rules::DESCRIPTION_MAX;

use super::groups::Groups;
use super::guard::panic_message;
use super::problems::{BuildProblem, RegistryError};
use super::tools::{Checks, Kind, RegisteredTool, Registry};
use crate::calls::{CallLimits, MAX_TOOL_TIMEOUT, RetryPolicy, Timer};
use crate::export::{ExportIssue, Exports};
use crate::registration::{DynTool, Handler, Registration};
use crate::validation::ArgumentValidator;
use crate::{Declaration, DefinitionSite, Effect, is_valid_group_name, is_valid_tool_name};

impl Registry {
    /// A builder.
    pub fn builder() -> RegistryBuilder {
        RegistryBuilder::new()
    }

    /// The registry of every linked tool.
    pub fn linked() -> Result<Registry, RegistryError> {
        RegistryBuilder::new().linked().build()
    }
}

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
    /// ([`ToolError::OutputMismatch`](crate::ToolError::OutputMismatch)).
    /// Always on in debug builds (tests among them), where `false` is
    /// ignored; in release builds off unless the host turns it on, since it
    /// costs a schema check per result.
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
        // Sorted here, as references, rather than as checked tools below:
        // moving a tool costs a copy of hundreds of bytes, and sorting the
        // built tools was 15% of building 1,000 of them. With no run-time
        // tools the list comes out of the loop in order.
        let mut linked = self.linked;
        linked.sort_unstable_by(|a, b| order(&a.declaration, a.site, &b.declaration, b.site));
        for registration in linked {
            let declaration = &registration.declaration;
            let schema = catch_unwind(registration.schema).map_err(|payload| {
                format!(
                    "generating the schema panicked: {}",
                    panic_message(&*payload)
                )
            });
            let output = registration.output_schema.map(|(schema, _)| {
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
                Source::Linked(
                    registration.handler,
                    Checks {
                        arguments: registration.check,
                        serde_decides: (registration.serde_decides)(),
                        output: registration.output_schema.map(|(_, check)| check),
                    },
                ),
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
                found.check_tool(declaration, site, schema, output, Source::Dynamic(tool))
            {
                tools.push(tool);
            }
        }

        // Run-time tools come after the sorted linked ones: only then is
        // there anything to sort.
        let by_order = |a: &RegisteredTool, b: &RegisteredTool| {
            order(&a.declaration, a.site, &b.declaration, b.site)
        };
        if !tools.is_sorted_by(|a, b| by_order(a, b).is_le()) {
            tools.sort_by(by_order);
        }
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
        let groups = Groups::new(tools.iter().map(|tool| tool.declaration.group.as_ref()));
        static BUILT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        Ok(Registry {
            id: BUILT.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
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

/// The registry's order: by name, then by site, which makes "first" and
/// "second" of a duplicate, and so the error text, independent of link
/// order.
fn order(
    a: &Declaration,
    a_site: DefinitionSite,
    b: &Declaration,
    b_site: DefinitionSite,
) -> std::cmp::Ordering {
    a.name.cmp(&b.name).then_with(|| a_site.cmp(&b_site))
}

/// What checking the tools found besides the tools themselves: the
/// problems that refuse the registry, and the export issues that only warn.
#[derive(Default)]
struct Found {
    problems: Vec<BuildProblem>,
    export_issues: Vec<ExportIssue>,
}

/// What a tool to check comes from: a linked registration, or a run-time
/// tool (whose validator the check compiles).
enum Source {
    Linked(Handler, Checks),
    Dynamic(Arc<dyn DynTool>),
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
        source: Source,
    ) -> Option<RegisteredTool> {
        let Found {
            problems,
            export_issues,
        } = self;
        let before = problems.len();
        // Owned only for a problem's report: a valid tool allocates no
        // copy of its name.
        let name = || declaration.name.to_string();
        if !is_valid_tool_name(&declaration.name) {
            problems.push(BuildProblem::InvalidName { name: name(), site });
        }
        if !is_valid_group_name(&declaration.group) {
            problems.push(BuildProblem::InvalidGroup {
                name: name(),
                group: declaration.group.to_string(),
                site,
            });
        }
        if let Some(timeout) = declaration.timeout
            && (timeout.is_zero() || timeout > MAX_TOOL_TIMEOUT)
        {
            problems.push(BuildProblem::InvalidTimeout {
                name: name(),
                timeout,
                site,
            });
        }
        // A character is at least a byte: the characters are counted only
        // when the bytes are over the limit.
        let description = &declaration.description;
        if description.is_empty()
            || (description.len() > DESCRIPTION_MAX
                && description.chars().count() > DESCRIPTION_MAX)
        {
            problems.push(BuildProblem::InvalidDescription {
                name: name(),
                length: description.chars().count(),
                site,
            });
        }
        let schema = match schema {
            Ok(schema) => schema,
            Err(reason) => {
                problems.push(BuildProblem::InvalidSchema {
                    name: name(),
                    site,
                    reason,
                });
                return None;
            }
        };
        if schema.get("type").and_then(Value::as_str) != Some("object") {
            problems.push(BuildProblem::SchemaNotObject {
                name: name(),
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
                    name: name(),
                    scope: scope.property.to_string(),
                    site,
                });
            }
        }
        let output = match output {
            Ok(output) => output,
            Err(reason) => {
                problems.push(BuildProblem::InvalidSchema {
                    name: name(),
                    site,
                    reason,
                });
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
                name: name(),
                site,
                reason,
            }),
        }
        // A derived tool's checks were generated with its schema. A run-time
        // tool's schema comes from outside (an MCP server, say), so its
        // validator is compiled now and a bad schema is a build problem.
        let kind = match source {
            Source::Linked(handler, checks) => Some(Kind::Linked(handler, checks)),
            Source::Dynamic(tool) => match ArgumentValidator::compile(&schema) {
                Ok(validator) => Some(Kind::Dynamic(tool, validator)),
                Err(reason) => {
                    problems.push(BuildProblem::InvalidSchema {
                        name: name(),
                        site,
                        reason,
                    });
                    None
                }
            },
        };
        match kind {
            Some(kind) if problems.len() == before => Some(RegisteredTool {
                name: Arc::from(declaration.name.as_ref()),
                declaration,
                site,
                schema,
                exports: Exports::default(),
                output_schema: output,
                output_validator: OnceLock::new(),
                definition: OnceLock::new(),
                kind,
            }),
            _ => None,
        }
    }
}
