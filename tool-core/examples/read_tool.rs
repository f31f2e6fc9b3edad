//! A read tool, whole: declared with `#[derive(Tool)]`, registered by
//! linking, called through the registry (its generated argument checks
//! refuse what the schema the model sees refuses), and its checks tested
//! without a registry.
//!
//! `cargo run -p tool-core --example read_tool`; `cargo test --workspace`
//! builds it and runs it (the test at the end).

use futures_executor::block_on;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tool_core::{
    Arguments, Execute, Outcome, Registry, RunId, Tool, ToolContext, ToolError, ToolOutput,
};

/// How the words are counted.
#[derive(Deserialize, JsonSchema, Arguments)]
#[serde(rename_all = "snake_case")]
enum Unit {
    Words,
    Lines,
}

/// Count the words or lines of a text.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "text", effect = "read", data = "public", content = "trusted")]
struct CountText {
    /// The text to count.
    #[schemars(length(min = 1, max = 10000))]
    text: String,
    /// What to count; words when left out.
    unit: Option<Unit>,
}

impl Execute for CountText {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let count = match self.unit {
            Some(Unit::Lines) => self.text.lines().count(),
            Some(Unit::Words) | None => self.text.split_whitespace().count(),
        };
        Ok(ToolOutput::text(count.to_string()))
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::linked()?;
    let cx = ToolContext::new(RunId("example".into()));

    let outcome = block_on(registry.call_ungated("count_text", json!({"text": "a b c"}), &cx))?;
    println!("count_text: {}", to_text(&outcome));
    assert_eq!(outcome, Outcome::Done(ToolOutput::text("3")));

    // Refused before the tool runs, with the JSON path and the words the
    // model's schema implies.
    let refused =
        block_on(registry.call_ungated("count_text", json!({"text": "a", "unit": "pages"}), &cx))
            .unwrap_err();
    println!("refused: {}", refused.model_text());
    assert!(refused.model_text().contains("/unit"));

    // The same checks without a registry, for a crate's own tests.
    let problems = tool_core::check_arguments::<CountText>(&json!({"text": ""})).unwrap_err();
    assert_eq!(problems[0].message, "\"\" is shorter than 1 character");
    Ok(())
}

fn to_text(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Done(output) => output.to_model_text(),
        Outcome::Proposed(proposal) => format!("proposed: {}", proposal.summary),
    }
}

#[test]
fn runs() {
    main().unwrap();
}
