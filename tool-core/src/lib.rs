//! Declare, register, gate and run the tools an LLM agent may call.
//!
//! An extension author declares a tool as a Rust type with
//! `#[derive(Tool)]`; linking the crate registers it. A host builds one
//! [`Registry`] of everything linked, and calls tools through it: every call
//! is checked against the schema the model was shown before the tool runs.
//!
//! # Declaring a tool
//!
//! The arguments are a struct with named fields deriving `Deserialize` and
//! `JsonSchema`; its doc comment is the description the model reads, and
//! field docs describe the properties. A `read` tool implements [`Execute`]:
//!
//! ```
//! use schemars::JsonSchema;
//! use serde::Deserialize;
//! use tool_core::{Execute, Tool, ToolContext, ToolError, ToolOutput};
//!
//! /// Add two numbers.
//! #[derive(Tool, Deserialize, JsonSchema)]
//! #[tool(group = "math", effect = "read")]
//! struct AddNumbers {
//!     /// The first number.
//!     a: i64,
//!     /// The second number.
//!     b: i64,
//! }
//!
//! impl Execute for AddNumbers {
//!     async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
//!         Ok(ToolOutput::text((self.a + self.b).to_string()))
//!     }
//! }
//!
//! // A host (feature `host`) builds the registry and calls the tool.
//! # #[cfg(feature = "host")]
//! # futures_executor::block_on(async {
//! use tool_core::{Outcome, Registry, RunId};
//!
//! let registry = Registry::linked().expect("no duplicate or invalid tools");
//! let tool = registry.get("add_numbers").expect("registered by linking");
//! assert_eq!(tool.declaration().description, "Add two numbers.");
//!
//! let cx = ToolContext::new(RunId("run-1".into()));
//! let outcome = registry.call_ungated("add_numbers", serde_json::json!({"a": 2, "b": 3}), &cx).await;
//! assert_eq!(outcome, Ok(Outcome::Done(ToolOutput::text("5"))));
//!
//! // Bad arguments are refused before the tool runs, by the checks the
//! // derive generated beside the schema; the refusal names the path.
//! let error = registry.call_ungated("add_numbers", serde_json::json!({"a": "two", "b": 3}), &cx).await.unwrap_err();
//! assert!(error.model_text().contains("/a"));
//! # });
//! ```
//!
//! # The keys of `#[tool(...)]`
//!
//! | key | meaning | when absent |
//! | --- | --- | --- |
//! | `name = "…"` | the wire name, `^[A-Za-z0-9_-]{1,64}$` | the type's name in snake_case |
//! | `group = "…"` | the family switched on and off together, `^[a-z][a-z0-9_-]{0,63}$` | compile error |
//! | `requires_admin` | offered to administrators only | offered to every actor |
//! | `egress = "none" \| "own_site"` | the network reach the tool needs | `none` |
//! | `effect = "read" \| "write"` | whether it changes anything | compile error |
//! | `disabled` | ships disabled | ships enabled (a `write` tool always ships disabled) |
//! | `scope = "field"` | the string argument scoped grants are matched against | scoped grants grant nothing |
//! | `title = "…"` | a display title for people | none |
//! | `timeout = "30s"` | how long a call may run without progress (`ms`, `s`, `m`, `h`; more than zero, at most `1h`); see [`calls`] | the host's default |
//! | `idempotent = true \| false` | whether a call may be repeated, so a [transient](ToolError::Transient) failure is retried ([`calls`]) | `true` for `read`, `false` for `write` |
//! | `task = "forbidden" \| "optional" \| "required"` | whether a call may run as a task the client polls (MCP's tasks extension; [`TaskSupport`]) | `forbidden` |
//! | `output = Type` | the type of the structured result ([`ToolOutput::structured`]), deriving `Serialize`, `JsonSchema` and [`Arguments`]: its schema is MCP's `outputSchema` and every result is checked against it by the generated checks ([`RegistryBuilder::validate_outputs`]) | no contract |
//! | `crate = path` | where `tool_core` is, for crates that re-export it | `::tool_core` |
//!
//! Supported shapes: a non-generic struct with named fields (`struct Status {}`
//! for a tool without arguments). Enums, unions, tuple and unit structs and
//! generic types are compile errors: the arguments must be one JSON object
//! and a registered tool one concrete type.
//!
//! A `write` tool implements [`Write`] instead: `propose` returns a
//! [`Proposal`] and writes nothing; `apply` runs after a person approved.
//!
//! ```
//! use schemars::JsonSchema;
//! use serde::Deserialize;
//! use tool_core::{Change, Proposal, Tool, ToolContext, ToolError, ToolOutput, Write, Shipped};
//!
//! /// Rename a page.
//! #[derive(Tool, Deserialize, JsonSchema)]
//! #[tool(group = "pages", effect = "write", scope(text = "page"))]
//! struct RenamePage {
//!     /// The page's path.
//!     page: String,
//!     /// Its new title.
//!     title: String,
//! }
//!
//! impl Write for RenamePage {
//!     async fn propose(self, _cx: &ToolContext) -> Result<Proposal, ToolError> {
//!         Ok(Proposal::new(
//!             self.page.clone(),
//!             vec![Change { field: "title".into(), new: self.title.into(), replaces: "Old".into() }],
//!             format!("rename {}", self.page),
//!         ))
//!     }
//!     async fn apply(_proposal: &Proposal, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
//!         Ok(ToolOutput::text("renamed"))
//!     }
//! }
//!
//! // Write tools always ship disabled: an administrator opts in.
//! assert_eq!(RenamePage::DECLARATION.shipped, Shipped::Disabled);
//! ```
//!
//! Mistakes are compile errors at the offending token, all in one compile.
//! A `read` tool without `Execute`, for instance:
//!
//! ```compile_fail
//! use schemars::JsonSchema;
//! use serde::Deserialize;
//! use tool_core::Tool;
//!
//! /// Forgot the impl.
//! #[derive(Tool, Deserialize, JsonSchema)]
//! #[tool(group = "math", effect = "read")]
//! struct NoImpl {}
//! ```
//!
//! # Keeping a tool crate linked
//!
//! A host that depends on a tool crate but never names an item of it has
//! the crate, and its registrations, dropped by the linker. A tool crate
//! writes [`linkable!()`](linkable) once at its root, which generates its
//! `pub fn link()`; a host calls it once (`tools_builtin::link();`) before
//! building the registry, and turns on rustc's `unused_crate_dependencies`
//! lint, which names a tool crate whose `link()` it forgot.
//!
//! # Feature flags
//!
//! All five are on by default, so a host that writes `tool-core = "…"`
//! gets everything. Each one only adds: declaring tools (the derive,
//! [`Tool`], [`Execute`], [`Write`], [`ToolContext`], [`ToolOutput`],
//! [`ToolError`], [`redact`], cancellation) builds with none of them.
//!
//! | feature | gives | pulls in |
//! | --- | --- | --- |
//! | `host` | what a host builds on: the registry (`Registry`, `RegistryBuilder`, the checked call), the gates (module `gates`), provider export (`export`), approvals (`approval`), the `allowed-tools` tokenizer and the gates' skill check (`skills`), timers and decision records (`calls`); `ToolError::Refused`, `ToolContext::with_decision_sink`. `validate`, `skills` and `agent` imply it | about half of tool-core's own build, `rustc-hash`, `shlex` |
//! | `validate` (not a default) | run-time JSON Schema validation with `jsonschema`: a `DynTool`'s arguments and declared output. A derived tool's arguments are checked without it, by the [`Arguments`] checks `#[derive(Tool)]` generates beside its schema; see docs/validation.md | `jsonschema` (most of a cold build's cost) |
//! | `skills` | reading `SKILL.md` files: `skills::read_skill`, `SkillRef::read`, the call examples (`check_examples`) and `check_skill_tools` | `saphyr-parser` |
//! | `agent` | the agent loop (module `agent`) | the loop's own code and `futures-util` |
//! | `egress` | the egress guard: module `egress` (`EgressGuard`, `Site`), [`ToolContext::egress`] and `HostSettings::sites`, so a host configures its sites and a tool of an `own_site` group checks its URLs; without it no guard exists, so nothing in the build can reach a site through one | `url` and its IDNA stack |
//!
//! Without `skills` a host still has the `allowed-tools` tokenizer
//! (`skills::tokenize`), `SkillRef` built by hand, `EffectiveSkills` and
//! the gates' skill check. An extension author (a crate that only declares
//! tools) depends with `default-features = false`, adding `egress` only
//! when a tool calls `ToolContext::egress`, and tests its tools with the
//! registry through a dev-dependency with `host`; Cargo unifies features per
//! build, so the host's choice decides what the tools run with. Without
//! `egress` a group granted `own_site` still passes the egress gate, as it
//! does when a host configured no site, and stored settings that name
//! sites are refused as an unknown field rather than read without them.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

// The derive names `::tool_core`; the crate's own tests use it too.
#[cfg(test)]
extern crate self as tool_core;

#[cfg(feature = "agent")]
pub mod agent;
mod applying;
#[cfg(feature = "host")]
pub mod approval;
pub mod authored;
pub mod calls;
mod checks;
pub mod client;
mod content;
mod context;
mod declaration;
#[cfg(feature = "egress")]
pub mod egress;
#[cfg(feature = "host")]
mod either;
#[cfg(feature = "host")]
pub mod export;
pub mod exposure;
#[cfg(feature = "host")]
pub mod gates;
mod link;
mod output;
pub mod redact;
mod registration;
#[cfg(feature = "host")]
mod registry;
#[cfg(feature = "host")]
mod run;
#[cfg(feature = "host")]
pub mod skills;
#[cfg(feature = "host")]
mod stored_format;
mod tool;
#[cfg(feature = "host")]
mod validation;

pub use applying::{Approver, EditedFrom};
pub use authored::Authored;
pub use checks::{Arguments, check_arguments};
pub use content::{ContentItem, MAX_CONTENT_BYTES, ResourceBody};
pub use context::{Actor, RunId, ToolContext};
pub use declaration::{
    Content, DataClass, Declaration, DefinitionSite, Effect, Egress, Scope, ScopeKind, Shipped,
    TaskSupport, is_valid_group_name, is_valid_tool_name,
};
pub use output::{ArgumentProblem, Change, Outcome, Proposal, ProposalId, ToolError, ToolOutput};
pub use registration::{BoxFuture, DynTool, Registration};
#[cfg(feature = "host")]
pub use registry::{
    BuildProblem, DEFAULT_MAX_ARGUMENT_BYTES, RegisteredTool, Registry, RegistryBuilder,
    RegistryError,
};
#[cfg(feature = "host")]
pub use run::{HostRun, RunBuilder};
pub use tool::{Execute, Tool, Write};
pub use tool_derive::{Arguments, Tool};

/// Not public API; used by generated code.
#[doc(hidden)]
pub mod __private {
    pub use std::borrow::Cow;

    pub use inventory;

    pub use crate::checks::generated as checks;
    pub use crate::registration::Registration;
    use crate::{Content, DataClass, Declaration, Effect, Egress, Shipped};

    /// Not public API; used by generated code. Stands in for the
    /// declaration of a type whose derive failed, so the user sees only the
    /// derive's errors.
    pub const STUB_DECLARATION: Declaration = Declaration {
        name: Cow::Borrowed(""),
        group: Cow::Borrowed(""),
        description: Cow::Borrowed(""),
        title: None,
        requires_admin: true,
        egress: Egress::None,
        effect: Effect::Read,
        shipped: Shipped::Disabled,
        scope: None,
        data: DataClass::Personal,
        content: Content::Untrusted,
        timeout: None,
        idempotent: false,
        task: crate::TaskSupport::Forbidden,
    };

    /// Not public API; used by generated code. `Tool`'s supertraits as one
    /// bound, for the impl emitted beside the errors of a failed derive.
    /// (Re-exporting the traits themselves would make rustc name them by
    /// their path in this module in every error about them.)
    pub trait ToolBounds:
        serde::de::DeserializeOwned + schemars::JsonSchema + crate::Arguments + Send + 'static
    {
    }
    impl<T: serde::de::DeserializeOwned + schemars::JsonSchema + crate::Arguments + Send + 'static>
        ToolBounds for T
    {
    }

    /// Not public API; used by generated code.
    #[diagnostic::on_unimplemented(
        message = "`scope` must name a string field, but this field is `{Self}`",
        label = "not a string",
        note = "scoped grants such as `tool(src/**)` match a string argument: use `String` or `Option<String>`"
    )]
    pub trait ScopeArgument {}
    impl ScopeArgument for String {}
    impl ScopeArgument for Option<String> {}
    impl ScopeArgument for Box<str> {}
    impl ScopeArgument for Cow<'static, str> {}

    /// Not public API; used by generated code.
    #[diagnostic::on_unimplemented(
        message = "`output` must name a type that serializes, has a schema and its checks, but `{Self}` does not",
        label = "needs `Serialize`, `JsonSchema` and `tool_core::Arguments`",
        note = "derive all three: `#[derive(Serialize, JsonSchema, tool_core::Arguments)]`"
    )]
    pub trait OutputType {}
    impl<T: serde::Serialize + schemars::JsonSchema + crate::Arguments> OutputType for T {}

    /// Not public API; used by generated code.
    pub const fn assert_output<T: OutputType + ?Sized>() {}

    /// Not public API; used by generated code.
    pub const fn assert_scope_argument<T: ScopeArgument + ?Sized>() {}
}

/// The examples in `docs/` are compiled and run as doc tests, so they
/// cannot rot.
#[cfg(doctest)]
mod docs {
    #[doc = include_str!("../../docs/scopes.md")]
    struct Scopes;
    #[cfg(feature = "host")]
    #[doc = include_str!("../../docs/approvals.md")]
    struct Approvals;
}
