//! Tools and helpers shared by the gate and loop tests.
#![allow(dead_code, reason = "each test binary uses a different part")]

use std::borrow::Cow;
use std::sync::{Arc, Mutex};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tool_core::skills::{AllowedTools, SkillRef, TrustLevel, tokenize};
use tool_core::{
    Actor, BoxFuture, Change, Declaration, DefinitionSite, DynTool, Effect, Egress, Execute,
    Outcome, Proposal, Registry, RunId, Shipped, Tool, ToolContext, ToolError, ToolOutput, Write,
};

macro_rules! read_tool {
    ($(#[$meta:meta])* $name:ident) => {
        /// A test tool.
        #[derive(Tool, Deserialize, JsonSchema)]
        $(#[$meta])*
        pub struct $name {}

        impl Execute for $name {
            async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
                Ok(ToolOutput::text(stringify!($name)))
            }
        }
    };
}

read_tool!(
    #[tool(
        data = "public",
        content = "trusted",
        name = "a_read",
        group = "alpha",
        effect = "read"
    )]
    ARead
);
read_tool!(
    #[tool(
        content = "trusted",
        data = "public",
        name = "a_off",
        group = "alpha",
        effect = "read",
        disabled
    )]
    AOff
);
read_tool!(
    #[tool(
        content = "trusted",
        data = "public",
        name = "a_admin",
        group = "alpha",
        effect = "read",
        requires_admin
    )]
    AAdmin
);
read_tool!(
    #[tool(
        data = "public",
        content = "trusted",
        name = "b_read",
        group = "beta",
        effect = "read"
    )]
    BRead
);
read_tool!(
    #[tool(
        content = "trusted",
        data = "public",
        name = "b_admin_net",
        group = "beta",
        effect = "read",
        requires_admin,
        egress = "own_site"
    )]
    BAdminNet
);
read_tool!(
    #[tool(
        data = "public",
        content = "trusted",
        name = "g_read",
        group = "gamma",
        effect = "read"
    )]
    GRead
);

/// Reads a file below the workspace.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    content = "trusted",
    data = "public",
    name = "a_scoped",
    group = "alpha",
    effect = "read",
    scope(path = "path")
)]
pub struct AScoped {
    /// The file.
    path: Option<String>,
}

impl Execute for AScoped {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(self.path.unwrap_or_default()))
    }
}

/// Fetches a page of the host's own site.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    content = "trusted",
    data = "public",
    name = "a_net",
    group = "alpha",
    effect = "read",
    egress = "own_site"
)]
pub struct ANet {
    /// The address.
    url: String,
}

impl Execute for ANet {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(match cx.egress().check(&self.url) {
            Ok(url) => format!("ok {url}"),
            Err(denied) => format!("refused: {denied}"),
        }))
    }
}

/// The store the write tools change: a record id to a value.
#[derive(Default)]
pub struct Store(pub Mutex<Map<String, Value>>);

/// Sets a record's value.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    content = "trusted",
    data = "public",
    name = "b_write",
    group = "beta",
    effect = "write",
    requires_admin
)]
pub struct BWrite {
    /// The record.
    record: String,
    /// Its new value.
    value: String,
}

impl Write for BWrite {
    async fn propose(self, cx: &ToolContext) -> Result<Proposal, ToolError> {
        let store = cx.service::<Arc<Store>>()?;
        let current = store.0.lock().unwrap().get(&self.record).cloned();
        Ok(Proposal::new(
            self.record.clone(),
            vec![Change {
                field: "value".into(),
                new: json!(self.value),
                replaces: current.unwrap_or(Value::Null),
            }],
            format!("set {} to {}", self.record, self.value),
        ))
    }

    async fn apply(proposal: &Proposal, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let store = cx.service::<Arc<Store>>()?;
        let mut records = store.0.lock().unwrap();
        let change = &proposal.changes[0];
        let current = records
            .get(&proposal.record)
            .cloned()
            .unwrap_or(Value::Null);
        if current != change.replaces {
            return Err(ToolError::failed("the record changed since the proposal"));
        }
        records.insert(proposal.record.clone(), change.new.clone());
        Ok(ToolOutput::text(format!(
            "{} = {}",
            proposal.record, change.new
        )))
    }
}

/// A run-time tool of its own group, to show settings for groups that did
/// not exist when they were written.
pub struct Late {
    name: &'static str,
    group: &'static str,
}

impl Late {
    pub fn new(name: &'static str) -> Self {
        Late {
            name,
            group: "late",
        }
    }

    pub fn in_group(name: &'static str, group: &'static str) -> Self {
        Late { name, group }
    }
}

impl DynTool for Late {
    fn declaration(&self) -> Declaration {
        Declaration {
            name: Cow::Borrowed(self.name),
            group: Cow::Borrowed(self.group),
            description: Cow::Borrowed("A tool installed later."),
            title: None,
            requires_admin: false,
            egress: Egress::None,
            effect: Effect::Read,
            shipped: Shipped::Enabled,
            scope: None,
            data: tool_core::DataClass::Public,
            content: tool_core::Content::Trusted,
            timeout: None,
            idempotent: true,
            task: tool_core::TaskSupport::Forbidden,
        }
    }

    fn site(&self) -> DefinitionSite {
        DefinitionSite {
            crate_name: "late",
            module_path: "late",
            file: "late.rs",
            line: 1,
        }
    }

    fn input_schema(&self) -> Value {
        json!({"type": "object"})
    }

    fn execute<'a>(
        &'a self,
        _arguments: Value,
        _cx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move { Ok(ToolOutput::text(self.name)) })
    }
}

pub fn registry() -> Registry {
    Registry::linked().expect("the test tools are valid")
}

pub fn store() -> Arc<Store> {
    Arc::new(Store::default())
}

pub fn cx() -> ToolContext {
    ToolContext::new(RunId("test-run".into())).with_service(store())
}

pub fn user() -> Actor {
    Actor {
        id: "ada".into(),
        admin: false,
    }
}

pub fn admin() -> Actor {
    Actor {
        id: "root".into(),
        admin: true,
    }
}

/// A skill declaring `allowed_tools` (white-space separated tokens).
pub fn skill(id: &str, allowed_tools: &str) -> SkillRef {
    let (patterns, _) = tokenize(allowed_tools);
    SkillRef {
        id: id.into(),
        enabled: true,
        orphaned: false,
        trust: TrustLevel(5),
        allowed_tools: AllowedTools::Declared(patterns),
        text: String::new(),
    }
}

/// The text of a call's outcome, or a panic naming what came instead.
pub fn text(outcome: Result<Outcome, ToolError>) -> String {
    match outcome {
        Ok(Outcome::Done(output)) => output.to_model_text(),
        other => panic!("expected a result, got {other:?}"),
    }
}

/// Runs `f` and returns the fields of every `tool_core::gate` event it
/// emitted.
pub fn capture_gate_events(f: impl FnOnce()) -> Vec<Map<String, Value>> {
    // One global subscriber for the whole test binary, routing to the
    // capturing thread: a scoped one races the global interest cache
    // (another test thread's callsite registered under no subscriber
    // reads as "never", and this thread's events went missing).
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        let _ = tracing::subscriber::set_global_default(Router);
    });
    CAPTURED.with(|captured| *captured.borrow_mut() = Some(Vec::new()));
    f();
    CAPTURED.with(|captured| captured.borrow_mut().take().unwrap_or_default())
}

thread_local! {
    /// The events of the capture running on this thread, if any.
    static CAPTURED: std::cell::RefCell<Option<Vec<Map<String, Value>>>> =
        const { std::cell::RefCell::new(None) };
}

struct Router;

impl tracing::Subscriber for Router {
    /// Asked at every event: whether a capture runs is per thread.
    fn register_callsite(
        &self,
        metadata: &'static tracing::Metadata<'static>,
    ) -> tracing::subscriber::Interest {
        if metadata.target() == "tool_core::gate" {
            tracing::subscriber::Interest::sometimes()
        } else {
            tracing::subscriber::Interest::never()
        }
    }
    fn enabled(&self, metadata: &tracing::Metadata<'_>) -> bool {
        metadata.target() == "tool_core::gate"
            && CAPTURED.with(|captured| captured.borrow().is_some())
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        let mut fields = Fields(Map::new());
        event.record(&mut fields);
        CAPTURED.with(|captured| {
            if let Some(events) = captured.borrow_mut().as_mut() {
                events.push(fields.0);
            }
        });
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

struct Fields(Map<String, Value>);

impl tracing::field::Visit for Fields {
    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        self.0.insert(field.name().into(), json!(value));
    }
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.0
            .insert(field.name().into(), json!(format!("{value:?}")));
    }
}
