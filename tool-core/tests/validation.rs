//! What argument validation enforces: JSON Schema `format`, and a byte
//! limit checked before anything else.
#![cfg(feature = "validate")]

use std::borrow::Cow;

use futures_executor::block_on;
use serde_json::{Value, json};
use tool_core::{
    BoxFuture, DataClass, Declaration, DefinitionSite, DynTool, Effect, Egress, Outcome, Registry,
    RunId, Shipped, ToolContext, ToolError, ToolOutput,
};

/// A run-time tool whose schema declares one property of each format.
struct Formats;

impl DynTool for Formats {
    fn declaration(&self) -> Declaration {
        Declaration {
            name: Cow::Borrowed("formats"),
            group: Cow::Borrowed("test"),
            description: Cow::Borrowed("Checks formats."),
            title: None,
            requires_admin: false,
            egress: Egress::None,
            effect: Effect::Read,
            shipped: Shipped::Enabled,
            scope: None,
            data: DataClass::Public,
            content: tool_core::Content::Trusted,
            timeout: None,
            idempotent: true,
            task: tool_core::TaskSupport::Forbidden,
        }
    }

    fn site(&self) -> DefinitionSite {
        DefinitionSite {
            crate_name: "test",
            module_path: "test",
            file: "validation.rs",
            line: 1,
        }
    }

    fn input_schema(&self) -> Value {
        let property = |format: &str| json!({"type": "string", "format": format});
        json!({
            "type": "object",
            "properties": {
                "email": property("email"),
                "uri": property("uri"),
                "date-time": property("date-time"),
                "uuid": property("uuid"),
                "ipv4": property("ipv4"),
                "ipv6": property("ipv6"),
                "text": {"type": "string"},
            },
        })
    }

    fn execute<'a>(
        &'a self,
        _arguments: Value,
        _cx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async { Ok(ToolOutput::text("ran")) })
    }
}

fn registry(limit: Option<usize>) -> Registry {
    let builder = Registry::builder().add(Formats);
    let builder = match limit {
        Some(bytes) => builder.max_argument_bytes(bytes),
        None => builder,
    };
    builder.build().unwrap()
}

fn call(registry: &Registry, arguments: Value) -> Result<Outcome, ToolError> {
    let cx = ToolContext::new(RunId("validation".into()));
    block_on(registry.call_ungated("formats", arguments, &cx))
}

#[test]
fn formats_are_enforced() {
    let registry = registry(None);
    let cases = [
        ("email", "ada@example.com", "not an address"),
        ("uri", "https://example.com/a?b=c", "not a uri"),
        ("date-time", "2026-12-01T14:00:00Z", "yesterday"),
        ("uuid", "67e55044-10b1-426f-9247-bb680e5fe0c8", "67e55044"),
        ("ipv4", "192.0.2.1", "192.0.2.300"),
        ("ipv6", "2001:db8::1", "2001:db8:::1"),
    ];
    for (property, good, bad) in cases {
        let accepted = call(&registry, json!({ property: good }));
        assert_eq!(
            accepted,
            Ok(Outcome::Done(ToolOutput::text("ran"))),
            "{property}"
        );
        let Err(ToolError::InvalidArguments { problems, .. }) =
            call(&registry, json!({ property: bad }))
        else {
            panic!("{property} = {bad} must be refused");
        };
        assert_eq!(problems[0].path, format!("/{property}"));
    }
}

#[test]
fn arguments_over_the_limit_are_refused_before_validation() {
    let registry = registry(None);
    assert_eq!(
        registry.max_argument_bytes(),
        tool_core::DEFAULT_MAX_ARGUMENT_BYTES
    );
    let big = "x".repeat(tool_core::DEFAULT_MAX_ARGUMENT_BYTES);
    let error = call(&registry, json!({ "text": big })).unwrap_err();
    assert_eq!(
        error,
        ToolError::ArgumentsTooLarge {
            tool: "formats".into(),
            limit: 1 << 20
        }
    );
    assert!(error.model_text().contains("1048576 bytes"), "{error}");
}

#[test]
fn the_host_sets_the_limit() {
    let registry = registry(Some(64));
    assert!(call(&registry, json!({ "text": "short" })).is_ok());
    // Even a value that would fail validation is refused for its size
    // first: nothing is parsed past the limit.
    let error = call(&registry, json!({ "email": "y".repeat(80) })).unwrap_err();
    assert!(matches!(
        error,
        ToolError::ArgumentsTooLarge { limit: 64, .. }
    ));
}
