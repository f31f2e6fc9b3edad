//! A tool that uses a host's service: the host puts a value in the
//! `ToolContext` (a database handle, a site, a clock), the tool asks for it
//! by type, and a host that forgot it gets a clear error, not a panic.
//!
//! `cargo run -p tool-core --example host_service`; `cargo test --workspace`
//! builds it and runs it.

use std::collections::BTreeMap;

use futures_executor::block_on;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tool_core::{Execute, Outcome, Registry, RunId, Tool, ToolContext, ToolError, ToolOutput};

/// The host's service: here, the stock of a shop.
struct Stock(BTreeMap<&'static str, u32>);

/// How many of an item are in stock.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "shop",
    effect = "read",
    data = "internal",
    content = "trusted"
)]
struct StockOf {
    /// The item's name.
    #[schemars(pattern(r"^[a-z]+$"))]
    item: String,
}

impl Execute for StockOf {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let stock = cx.service::<Stock>()?;
        let count = stock.0.get(self.item.as_str()).copied().unwrap_or(0);
        Ok(ToolOutput::text(format!("{count} {} in stock", self.item)))
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::linked()?;
    let stock = Stock(BTreeMap::from([("pears", 12), ("plums", 0)]));
    let cx = ToolContext::new(RunId("example".into())).with_service(stock);
    let outcome = block_on(registry.call_ungated("stock_of", json!({"item": "pears"}), &cx))?;
    assert_eq!(
        outcome,
        Outcome::Done(ToolOutput::text("12 pears in stock"))
    );
    println!("with the service: 12 pears in stock");

    // A host that did not provide it: the call fails, saying what is
    // missing, and the model reads that the tool is unavailable.
    let bare = ToolContext::new(RunId("example".into()));
    let missing = block_on(registry.call_ungated("stock_of", json!({"item": "pears"}), &bare));
    let error = missing.unwrap_err();
    println!("without it: {error}");
    assert!(matches!(error, ToolError::MissingService { .. }));
    Ok(())
}

#[test]
fn runs() {
    main().unwrap();
}
