//! Behaviour of the registry and the checked call path, on real types.

use std::borrow::Cow;
use std::sync::atomic::{AtomicUsize, Ordering};

use futures_executor::block_on;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tool_core::{
    BoxFuture, BuildProblem, Change, Declaration, DefinitionSite, DynTool, Effect, Egress, Execute,
    Outcome, Proposal, Registry, RunId, ScopeKind, Shipped, Tool, ToolContext, ToolError,
    ToolOutput, Write,
};

/// Greet someone by name.
///
/// A second paragraph the model also reads.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    data = "public",
    group = "greetings",
    effect = "read",
    title = "Greeter"
)]
struct GreetPerson {
    /// Who to greet.
    name: String,
    /// How many exclamation marks, at most 5.
    #[schemars(range(max = 5))]
    excitement: Option<u8>,
}

impl Execute for GreetPerson {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let marks = "!".repeat(usize::from(self.excitement.unwrap_or(1)));
        Ok(ToolOutput::text(format!("Hello, {}{marks}", self.name)))
    }
}

/// Always panics, to prove a panic fails only its own call.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    data = "public",
    name = "explode",
    group = "greetings",
    effect = "read"
)]
struct Explode {}

impl Execute for Explode {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        panic!("boom");
    }
}

/// Needs a service the host may not provide.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    data = "public",
    group = "greetings",
    effect = "read",
    requires_admin,
    egress = "own_site",
    disabled
)]
struct ReadGuestbook {}

struct Guestbook(Vec<&'static str>);

impl Execute for ReadGuestbook {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let book = cx.service::<Guestbook>()?;
        Ok(ToolOutput::json(json!(book.0)))
    }
}

/// Set a person's nickname.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    data = "public",
    group = "greetings",
    effect = "write",
    scope(text = "person")
)]
struct SetNickname {
    /// The person.
    person: String,
    /// The new nickname.
    nickname: String,
}

impl Write for SetNickname {
    async fn propose(self, _cx: &ToolContext) -> Result<Proposal, ToolError> {
        Ok(Proposal::new(
            self.person.clone(),
            vec![Change {
                field: "nickname".into(),
                new: json!(self.nickname),
                replaces: json!(null),
            }],
            format!("set {}'s nickname", self.person),
        ))
    }

    async fn apply(proposal: &Proposal, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(format!("applied to {}", proposal.record)))
    }
}

fn cx() -> ToolContext {
    ToolContext::new(RunId("test-run".into()))
}

fn registry() -> Registry {
    Registry::linked().expect("the test's tools are valid")
}

#[test]
fn linked_tools_are_registered_in_name_order() {
    let registry = registry();
    let names: Vec<&str> = registry.tools().iter().map(|t| t.name()).collect();
    assert_eq!(
        names,
        ["explode", "greet_person", "read_guestbook", "set_nickname"]
    );
}

#[test]
fn run_time_tools_are_sorted_in_among_the_linked_ones() {
    let registry = Registry::builder()
        .linked()
        .add(Proxied::new("zz_last", query_schema()))
        .add(Proxied::new("aa_first", query_schema()))
        .add(Proxied::new("hello", query_schema()))
        .build()
        .expect("the tools are valid");
    let names: Vec<&str> = registry.tools().iter().map(|t| t.name()).collect();
    assert_eq!(
        names,
        [
            "aa_first",
            "explode",
            "greet_person",
            "hello",
            "read_guestbook",
            "set_nickname",
            "zz_last"
        ]
    );
    for name in names {
        assert_eq!(registry.get(name).map(|t| t.name()), Some(name));
    }
}

#[test]
fn declaration_comes_from_attribute_and_doc_comment() {
    let declaration = GreetPerson::DECLARATION;
    assert_eq!(declaration.name, "greet_person");
    assert_eq!(declaration.group, "greetings");
    assert_eq!(
        declaration.description,
        "Greet someone by name.\n\nA second paragraph the model also reads."
    );
    assert_eq!(declaration.title.as_deref(), Some("Greeter"));
    assert_eq!(declaration.effect, Effect::Read);
    assert_eq!(declaration.egress, Egress::None);
    assert!(!declaration.requires_admin);
    assert_eq!(declaration.shipped, Shipped::Enabled);

    let guestbook = ReadGuestbook::DECLARATION;
    assert!(guestbook.requires_admin);
    assert_eq!(guestbook.egress, Egress::OwnSite);
    assert_eq!(guestbook.shipped, Shipped::Disabled);
}

#[test]
fn write_tool_ships_disabled_even_without_the_key() {
    assert_eq!(SetNickname::DECLARATION.shipped, Shipped::Disabled);
    let scope = SetNickname::DECLARATION.scope.unwrap();
    assert_eq!(
        (scope.property.as_ref(), scope.kind),
        ("person", ScopeKind::Text)
    );
}

#[test]
fn registration_records_the_definition_site() {
    let registry = registry();
    let site = registry.get("greet_person").unwrap().site();
    assert_eq!(site.crate_name, "tool-core");
    assert!(site.file.ends_with("registry.rs"), "{}", site.file);
    assert!(
        site.module_path.starts_with("registry"),
        "{}",
        site.module_path
    );
    assert!(site.line > 0);
}

#[test]
fn schema_is_an_object_with_field_docs_and_no_type_name() {
    let registry = registry();
    let schema = registry.get("greet_person").unwrap().schema();
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["properties"]["name"]["description"], "Who to greet.");
    assert_eq!(schema["required"], json!(["name"]));
    assert!(schema.get("title").is_none());
    assert!(schema.get("description").is_none());
}

#[test]
fn valid_call_runs_the_tool() {
    let outcome = block_on(registry().call_ungated(
        "greet_person",
        json!({"name": "Ada", "excitement": 2}),
        &cx(),
    ));
    assert_eq!(outcome, Ok(Outcome::Done(ToolOutput::text("Hello, Ada!!"))));
}

#[test]
fn unknown_tool_is_not_available() {
    let error = block_on(registry().call_ungated("no_such_tool", json!({}), &cx())).unwrap_err();
    assert_eq!(error.model_text(), "tool `no_such_tool` is not available");
}

#[cfg(feature = "validate")]
#[test]
fn bad_arguments_name_every_failing_path() {
    let error = block_on(registry().call_ungated(
        "greet_person",
        json!({"name": 7, "excitement": 9}),
        &cx(),
    ))
    .unwrap_err();
    let ToolError::InvalidArguments { problems, .. } = &error else {
        panic!("expected invalid arguments, got {error:?}");
    };
    let paths: Vec<&str> = problems.iter().map(|p| p.path.as_str()).collect();
    assert!(paths.contains(&"/name"), "{paths:?}");
    assert!(paths.contains(&"/excitement"), "{paths:?}");
    let text = error.model_text();
    assert!(
        text.contains("`/name`") && text.contains("string"),
        "{text}"
    );
}

#[cfg(feature = "validate")]
#[test]
fn schema_only_constraints_are_enforced() {
    // serde would accept 9 for a u8; the schema the model saw says at most 5.
    let error = block_on(registry().call_ungated(
        "greet_person",
        json!({"name": "Ada", "excitement": 9}),
        &cx(),
    ))
    .unwrap_err();
    assert!(error.model_text().contains("/excitement"), "{error}");
}

#[test]
fn missing_required_argument_is_refused() {
    let error = block_on(registry().call_ungated("greet_person", json!({}), &cx())).unwrap_err();
    assert!(
        matches!(error, ToolError::InvalidArguments { .. }),
        "{error:?}"
    );
    assert!(error.model_text().contains("name"), "{error}");
}

#[test]
fn non_object_arguments_are_refused() {
    for arguments in [json!(null), json!([]), json!("Ada"), json!(3)] {
        let error =
            block_on(registry().call_ungated("greet_person", arguments, &cx())).unwrap_err();
        assert!(matches!(error, ToolError::InvalidArguments { .. }));
    }
}

#[test]
fn a_panicking_tool_fails_only_its_call() {
    let registry = registry();
    let error = block_on(registry.call_ungated("explode", json!({}), &cx())).unwrap_err();
    assert!(matches!(&error, ToolError::Panicked { message, .. } if message == "boom"));
    assert_eq!(error.model_text(), "tool `explode` failed");
    // The registry is still usable afterwards.
    let outcome = block_on(registry.call_ungated("greet_person", json!({"name": "Bo"}), &cx()));
    assert!(outcome.is_ok());
}

#[test]
fn a_missing_service_is_a_clear_error_and_a_present_one_is_used() {
    let registry = registry();
    let error = block_on(registry.call_ungated("read_guestbook", json!({}), &cx())).unwrap_err();
    assert!(
        matches!(error, ToolError::MissingService { service } if service.ends_with("Guestbook"))
    );
    let with_book = cx().with_service(Guestbook(vec!["ada was here"]));
    let outcome = block_on(registry.call_ungated("read_guestbook", json!({}), &with_book));
    assert_eq!(
        outcome,
        Ok(Outcome::Done(ToolOutput::json(json!(["ada was here"]))))
    );
}

#[test]
fn a_write_call_proposes_writes_nothing_and_is_stamped_by_the_registry() {
    let registry = registry();
    let outcome = block_on(registry.call_ungated(
        "set_nickname",
        json!({"person": "ada", "nickname": "countess"}),
        &cx(),
    ))
    .unwrap();
    let Outcome::Proposed(proposal) = outcome else {
        panic!("a write tool must propose, got {outcome:?}");
    };
    assert_eq!(proposal.record, "ada");
    assert_eq!(proposal.changes[0].new, json!("countess"));
    // The registry, not the tool's author, names the tool and keeps the
    // validated arguments.
    assert_eq!(proposal.tool(), "set_nickname");
    assert_eq!(
        proposal.arguments(),
        &json!({"person": "ada", "nickname": "countess"})
    );
    assert_eq!(proposal.id().as_str().len(), 32);
}

/// A run-time tool, as a host would proxy one from an MCP server.
struct Proxied {
    name: &'static str,
    schema: Value,
    effect: Effect,
    description: String,
    calls: AtomicUsize,
}

impl Proxied {
    fn new(name: &'static str, schema: Value) -> Self {
        Proxied {
            name,
            schema,
            effect: Effect::Read,
            description: "A proxied tool.".to_owned(),
            calls: AtomicUsize::new(0),
        }
    }
}

impl DynTool for Proxied {
    fn declaration(&self) -> Declaration {
        Declaration {
            name: Cow::Borrowed(self.name),
            group: Cow::Borrowed("mcp-proxy"),
            description: Cow::Owned(self.description.clone()),
            title: None,
            requires_admin: false,
            egress: Egress::None,
            effect: self.effect,
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
            crate_name: "mcp:docs-server",
            module_path: "mcp",
            file: "docs-server",
            line: 0,
        }
    }

    fn input_schema(&self) -> Value {
        self.schema.clone()
    }

    fn execute<'a>(
        &'a self,
        arguments: Value,
        _cx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        Box::pin(async move { Ok(ToolOutput::json(arguments)) })
    }
}

fn query_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"query": {"type": "string"}},
        "required": ["query"]
    })
}

#[test]
fn a_run_time_tool_is_validated_and_called() {
    let registry = Registry::builder()
        .linked()
        .add(Proxied::new("search_docs", query_schema()))
        .build()
        .unwrap();
    let tool = registry.get("search_docs").unwrap();
    assert!(tool.is_dynamic());
    let outcome = block_on(registry.call_ungated("search_docs", json!({"query": "gates"}), &cx()));
    assert_eq!(
        outcome,
        Ok(Outcome::Done(ToolOutput::json(json!({"query": "gates"}))))
    );
    // Only the schema knows what a run-time tool requires: without the
    // `validate` feature nothing but the object shape is checked.
    #[cfg(feature = "validate")]
    {
        let error = block_on(registry.call_ungated("search_docs", json!({}), &cx())).unwrap_err();
        assert!(matches!(error, ToolError::InvalidArguments { .. }));
    }
}

#[test]
fn build_reports_every_problem_at_once() {
    let mut write = Proxied::new("proxied_write", query_schema());
    write.effect = Effect::Write;
    let error = Registry::builder()
        .linked()
        .add(Proxied::new("greet_person", query_schema()))
        .add(Proxied::new("bad name!", query_schema()))
        .add(Proxied::new("array_root", json!({"type": "array"})))
        .add(write)
        .build()
        .unwrap_err();
    let problems = &error.problems;
    assert_eq!(problems.len(), 4, "{error}");
    assert!(problems.iter().any(|p| matches!(p,
        BuildProblem::DuplicateName { name, first, second }
            if name == "greet_person"
            && first.crate_name == "mcp:docs-server"
            && second.crate_name == "tool-core")));
    assert!(problems.iter().any(|p| matches!(p,
        BuildProblem::InvalidName { name, .. } if name == "bad name!")));
    assert!(problems.iter().any(|p| matches!(p,
        BuildProblem::SchemaNotObject { name, .. } if name == "array_root")));
    assert!(problems.iter().any(|p| matches!(p,
        BuildProblem::UnsupportedDynamicWrite { name, .. } if name == "proxied_write")));
    let text = error.to_string();
    assert!(
        text.contains("greet_person") && text.contains("registry.rs"),
        "{text}"
    );
}

#[test]
fn a_description_is_limited_in_characters_not_bytes() {
    let described = |name: &'static str, description: String| {
        let mut tool = Proxied::new(name, query_schema());
        tool.description = description;
        tool
    };
    // 1,024 two-byte characters: 2,048 bytes, within the limit.
    let registry = Registry::builder()
        .add(described("longest", "é".repeat(1024)))
        .build();
    assert!(registry.is_ok(), "{registry:?}");
    let error = Registry::builder()
        .add(described("empty", String::new()))
        .add(described("too_long", "é".repeat(1025)))
        .build()
        .unwrap_err();
    assert_eq!(error.problems.len(), 2, "{error}");
    assert!(error.problems.iter().any(|p| matches!(p,
        BuildProblem::InvalidDescription { name, length: 0, .. } if name == "empty")));
    assert!(error.problems.iter().any(|p| matches!(p,
        BuildProblem::InvalidDescription { name, length: 1025, .. } if name == "too_long")));
}

#[test]
fn duplicate_report_does_not_depend_on_insertion_order() {
    let one = Registry::builder()
        .add(Proxied::new("same", query_schema()))
        .add(Proxied::new("same", json!({"type": "object"})))
        .build()
        .unwrap_err();
    let other = Registry::builder()
        .add(Proxied::new("same", json!({"type": "object"})))
        .add(Proxied::new("same", query_schema()))
        .build()
        .unwrap_err();
    assert_eq!(one, other);
}
