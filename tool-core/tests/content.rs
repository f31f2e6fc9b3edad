//! Content items in a result: images, audio and resources beside the text,
//! described for text-only consumers, capped per result, and checked on
//! their way out of the call.

use futures_executor::block_on;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tool_core::{
    ContentItem, Execute, MAX_CONTENT_BYTES, Outcome, Registry, ResourceBody, RunId, Tool,
    ToolContext, ToolError, ToolOutput,
};

/// Renders a preview; `mode` picks what it returns, to test the contract.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(data = "public", group = "previews", effect = "read")]
struct RenderPreview {
    /// `image`, `huge`, `wrong_mime` or `bad_data`.
    mode: String,
}

impl Execute for RenderPreview {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let output = ToolOutput::text("The preview:");
        Ok(match self.mode.as_str() {
            "image" => output
                .with(ContentItem::image(b"\x89PNG", "image/png"))
                .with(ContentItem::text_resource(
                    "site://pages/20",
                    "text/html",
                    "<h1>Repairs</h1>",
                )),
            "huge" => output.with(ContentItem::image(&vec![0; MAX_CONTENT_BYTES], "image/png")),
            "wrong_mime" => output.with(ContentItem::audio(b"RIFF", "image/png")),
            _ => ToolOutput::items([ContentItem::Image {
                data: "not base64!".into(),
                mime_type: "image/png".into(),
            }]),
        })
    }
}

fn call(mode: &str) -> Result<Outcome, ToolError> {
    let registry = Registry::linked().unwrap();
    let cx = ToolContext::new(RunId("run".into()));
    block_on(registry.call_ungated("render_preview", json!({"mode": mode}), &cx))
}

#[test]
fn items_pass_the_call_and_are_described_to_text_only_consumers() {
    let Ok(Outcome::Done(output)) = call("image") else {
        panic!("not done")
    };
    assert_eq!(
        output.content()[0],
        ContentItem::Image {
            data: "iVBORw==".into(),
            mime_type: "image/png".into()
        }
    );
    assert_eq!(output.main_text().as_deref(), Some("The preview:"));
    assert_eq!(
        output.to_model_text(),
        "The preview:\n[image: image/png, 4 bytes]\n[resource site://pages/20]\n<h1>Repairs</h1>"
    );
}

#[test]
fn a_result_over_the_cap_fails_the_call_and_says_why() {
    let error = call("huge").unwrap_err();
    assert!(matches!(error, ToolError::Failed { .. }), "{error}");
    assert!(
        error.model_text().contains("more than the 4194304"),
        "{}",
        error.model_text()
    );
}

#[test]
fn a_wrong_mime_type_or_data_that_is_not_base64_fails_the_call() {
    let error = call("wrong_mime").unwrap_err();
    assert_eq!(
        error.model_text(),
        "an audio item's MIME type must be `audio/…`, not `image/png`"
    );
    let error = call("bad_data").unwrap_err();
    assert_eq!(error.model_text(), "an image item's data is not base64");
}

#[test]
fn items_are_stored_and_read_back_and_a_result_stored_before_reads() {
    let output = ToolOutput::text("x")
        .with(ContentItem::resource_link("site://files/7", "logo.png"))
        .with(ContentItem::binary_resource(
            "site://files/8",
            "application/pdf",
            b"%PDF",
        ));
    let stored = serde_json::to_value(&output).unwrap();
    assert_eq!(stored["content"][0]["type"], "resource_link");
    assert_eq!(stored["content"][1]["body"], json!({"blob": "JVBERg=="}));
    let read: ToolOutput = serde_json::from_value(stored).unwrap();
    assert_eq!(read, output);
    let old: ToolOutput = serde_json::from_value(json!({"text": "x", "json": null})).unwrap();
    assert!(old.content().is_empty());
    assert!(matches!(
        &read.content()[1],
        ContentItem::Resource {
            body: ResourceBody::Blob(_),
            ..
        }
    ));
}
