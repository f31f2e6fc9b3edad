//! The `'static` record `#[derive(Tool)]` submits to `inventory`, and the
//! run-time counterpart for tools whose schema is known only at run time.

use std::future::Future;
use std::pin::Pin;

use schemars::JsonSchema;
#[cfg(feature = "host")]
use schemars::generate::SchemaSettings;
use serde_json::Value;

use crate::{Declaration, DefinitionSite, Execute, ToolContext, ToolError, ToolOutput, Write};
#[cfg(feature = "host")]
use crate::{Proposal, Tool};

/// A boxed, `Send` future: what type-erased calls return.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

#[cfg(feature = "host")]
// The arguments are borrowed: they are parsed before the future starts, and
// a retried call parses them again without a copy.
type ExecuteFn =
    for<'a> fn(&Value, &'a ToolContext) -> BoxFuture<'a, Result<ToolOutput, ToolError>>;
#[cfg(feature = "host")]
type ProposeFn = for<'a> fn(&Value, &'a ToolContext) -> BoxFuture<'a, Result<Proposal, ToolError>>;
#[cfg(feature = "host")]
type ApplyFn =
    for<'a> fn(&'a Proposal, &'a ToolContext) -> BoxFuture<'a, Result<ToolOutput, ToolError>>;

/// A linked tool's generated checks (of its arguments or its output).
#[cfg(feature = "host")]
pub(crate) type CheckFn = for<'v> fn(&'v Value, &mut crate::checks::Walk<'v>) -> bool;

/// How a registered tool runs; the variant follows its `effect`.
#[cfg(feature = "host")]
#[derive(Clone, Copy)]
pub(crate) enum Handler {
    Read { execute: ExecuteFn },
    Write { propose: ProposeFn, apply: ApplyFn },
}

/// One tool linked into the program, as collected by `inventory`.
///
/// Const-constructible and `'static`: fn pointers for the schema and the
/// handler, and the definition site.
pub struct Registration {
    pub(crate) declaration: Declaration,
    pub(crate) site: DefinitionSite,
    // What the registry runs (feature `host`); without it a build has no
    // registry to read them.
    #[cfg(feature = "host")]
    pub(crate) schema: fn() -> Value,
    #[cfg(feature = "host")]
    pub(crate) handler: Handler,
    #[cfg(feature = "host")]
    pub(crate) check: CheckFn,
    /// Whether serde's acceptance of the arguments implies the schema's
    /// (derived from the type: [`crate::checks::serde_decides`]).
    #[cfg(feature = "host")]
    pub(crate) serde_decides: fn() -> bool,
    /// The declared output's schema (`#[tool(output = Type)]`), and the
    /// checks generated from the same type.
    #[cfg(feature = "host")]
    pub(crate) output_schema: Option<(fn() -> Value, CheckFn)>,
}

inventory::collect!(Registration);

impl Registration {
    /// Not public API; used by generated code.
    #[doc(hidden)]
    pub const fn read<T: Execute>(site: DefinitionSite) -> Self {
        Registration {
            declaration: T::DECLARATION,
            site,
            #[cfg(feature = "host")]
            schema: schema_of::<T>,
            #[cfg(feature = "host")]
            handler: Handler::Read {
                execute: execute::<T>,
            },
            #[cfg(feature = "host")]
            check: crate::checks::check_of::<T>,
            #[cfg(feature = "host")]
            serde_decides: crate::checks::serde_decides::<T>,
            #[cfg(feature = "host")]
            output_schema: None,
        }
    }

    /// Not public API; used by generated code.
    #[doc(hidden)]
    pub const fn write<T: Write>(site: DefinitionSite) -> Self {
        Registration {
            declaration: T::DECLARATION,
            site,
            #[cfg(feature = "host")]
            schema: schema_of::<T>,
            #[cfg(feature = "host")]
            handler: Handler::Write {
                propose: propose::<T>,
                apply: apply::<T>,
            },
            #[cfg(feature = "host")]
            check: crate::checks::check_of::<T>,
            #[cfg(feature = "host")]
            serde_decides: crate::checks::serde_decides::<T>,
            #[cfg(feature = "host")]
            output_schema: None,
        }
    }

    /// Not public API; used by generated code.
    #[doc(hidden)]
    #[must_use]
    #[cfg(feature = "host")]
    pub const fn output<O: JsonSchema + crate::Arguments>(mut self) -> Self {
        self.output_schema = Some((schema_of::<O>, crate::checks::check_of::<O>));
        self
    }

    /// Not public API; used by generated code.
    #[doc(hidden)]
    #[must_use]
    #[cfg(not(feature = "host"))]
    pub const fn output<O: JsonSchema + crate::Arguments>(self) -> Self {
        self
    }

    /// Every registration linked into this program, in link order (the
    /// registry sorts them). Hosts reach them through
    /// [`Registry::linked`](crate::Registry::linked).
    #[cfg(feature = "host")]
    pub(crate) fn linked() -> impl Iterator<Item = &'static Registration> {
        inventory::iter::<Registration>.into_iter()
    }

    /// The declaration.
    pub fn declaration(&self) -> &Declaration {
        &self.declaration
    }

    /// Where it was declared.
    pub fn site(&self) -> DefinitionSite {
        self.site
    }
}

/// The arguments schema, JSON Schema 2020-12, with the root's `title` and
/// `description` removed: the type's name is not the model's business and
/// the description is sent beside the schema already.
#[cfg(feature = "host")]
pub(crate) fn schema_of<T: JsonSchema>() -> Value {
    let schema = SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<T>();
    let mut value = schema.to_value();
    if let Some(root) = value.as_object_mut() {
        root.remove("title");
        root.remove("description");
    }
    value
}

/// `T` from the call's arguments. Refused arguments are named by the
/// generated checks, as the schema would name them; only what the checks
/// admit and serde still refuses gets serde's words. (Where serde decides,
/// the call path checked nothing but their size before this.)
#[cfg(feature = "host")]
fn deserialize<T: Tool>(arguments: &Value) -> Result<T, ToolError> {
    T::deserialize(arguments).map_err(|error| {
        let problems = match crate::checks::problems_of(crate::checks::check_of::<T>, arguments) {
            problems if problems.is_empty() => vec![crate::ArgumentProblem {
                path: String::new(),
                message: error.to_string(),
            }],
            problems => problems,
        };
        ToolError::InvalidArguments {
            tool: T::DECLARATION.name.into_owned(),
            problems,
        }
    })
}

#[cfg(feature = "host")]
fn execute<'a, T: Execute>(
    arguments: &Value,
    cx: &'a ToolContext,
) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
    match deserialize::<T>(arguments) {
        Ok(tool) => Box::pin(tool.execute(cx)),
        Err(error) => Box::pin(std::future::ready(Err(error))),
    }
}

#[cfg(feature = "host")]
fn propose<'a, T: Write>(
    arguments: &Value,
    cx: &'a ToolContext,
) -> BoxFuture<'a, Result<Proposal, ToolError>> {
    match deserialize::<T>(arguments) {
        Ok(tool) => Box::pin(tool.propose(cx)),
        Err(error) => Box::pin(std::future::ready(Err(error))),
    }
}

#[cfg(feature = "host")]
fn apply<'a, T: Write>(
    proposal: &'a Proposal,
    cx: &'a ToolContext,
) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
    Box::pin(T::apply(proposal, cx))
}

/// A tool whose schema is known only at run time, such as one proxied from
/// an MCP server. Added with [`RegistryBuilder::add`](crate::RegistryBuilder::add).
///
/// Run-time tools are `read` tools for now: the registry refuses one that
/// declares `effect = write`, since it could not be made to wait for
/// approval.
pub trait DynTool: Send + Sync + 'static {
    /// The declaration; validated at registry build like a derived one.
    fn declaration(&self) -> Declaration;
    /// Where it comes from, for duplicate reports.
    fn site(&self) -> DefinitionSite;
    /// The arguments schema; its root must be an object.
    fn input_schema(&self) -> Value;
    /// The schema of its structured result, exported as MCP's
    /// `outputSchema` and checked against every result; its root must be
    /// an object. `None` (the default): no contract.
    fn output_schema(&self) -> Option<Value> {
        None
    }
    /// Runs a call whose arguments already passed the schema.
    fn execute<'a>(
        &'a self,
        arguments: Value,
        cx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>>;
}
