//! The fixture tools, one per conformance scenario that calls a tool.

use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::{Arguments, ContentItem, Execute, Tool, ToolContext, ToolError, ToolOutput};

/// Returns a simple text (scenario `tools-call-simple-text`).
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "conformance", effect = "read", data = "public")]
pub struct TestSimpleText {}

impl Execute for TestSimpleText {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(
            "This is a simple text response for testing.",
        ))
    }
}

/// Always fails (scenario `tools-call-error`: a result with `isError`).
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "conformance", effect = "read", data = "public")]
pub struct TestErrorHandling {}

impl Execute for TestErrorHandling {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Err(ToolError::failed(
            "This tool intentionally returns an error for testing",
        ))
    }
}

/// Reports progress 0, 50 and 100 of 100, about 50 ms apart (scenario
/// `tools-call-with-progress`).
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "conformance", effect = "read", data = "public")]
pub struct TestToolWithProgress {}

impl Execute for TestToolWithProgress {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        for done in [0, 50, 100] {
            if done > 0 {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            cx.progress(done, Some(100), "testing progress");
        }
        Ok(ToolOutput::text("Progress test completed"))
    }
}

/// Answers at once (scenario `server-sse-polling`, which also accepts a
/// result on the first stream).
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "conformance", effect = "read", data = "public")]
pub struct TestReconnection {}

impl Execute for TestReconnection {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("Reconnection test completed successfully"))
    }
}

/// Tool with JSON Schema 2020-12 features (scenario
/// `json-schema-2020-12`: `$schema`, `$defs` and `additionalProperties`
/// kept in the listing).
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    name = "json_schema_2020_12_tool",
    group = "conformance",
    effect = "read",
    data = "public"
)]
#[serde(deny_unknown_fields)]
pub struct JsonSchema202012Tool {
    /// A name.
    pub name: Option<String>,
    /// An address.
    pub address: Option<Address>,
}

/// A postal address, the schema's `$defs/address`.
#[derive(Deserialize, JsonSchema, Arguments)]
#[schemars(rename = "address")]
pub struct Address {
    /// The street.
    pub street: Option<String>,
    /// The city.
    pub city: Option<String>,
}

impl Execute for JsonSchema202012Tool {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let city = self.address.and_then(|a| a.city).unwrap_or_default();
        Ok(ToolOutput::text(format!(
            "{} {city}",
            self.name.unwrap_or_default()
        )))
    }
}

/// A 1×1 red PNG.
pub(crate) const RED_PIXEL_PNG: [u8; 69] = [
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53,
    0xde, 0x00, 0x00, 0x00, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0x00,
    0x00, 0x03, 0x01, 0x01, 0x00, 0xc9, 0xfe, 0x92, 0xef, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e,
    0x44, 0xae, 0x42, 0x60, 0x82,
];

/// One millisecond of silence: a WAV of eight 8-bit samples at 8 kHz.
const SILENT_WAV: [u8; 52] = [
    0x52, 0x49, 0x46, 0x46, 0x2c, 0x00, 0x00, 0x00, 0x57, 0x41, 0x56, 0x45, 0x66, 0x6d, 0x74, 0x20,
    0x10, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x40, 0x1f, 0x00, 0x00, 0x40, 0x1f, 0x00, 0x00,
    0x01, 0x00, 0x08, 0x00, 0x64, 0x61, 0x74, 0x61, 0x08, 0x00, 0x00, 0x00, 0x80, 0x80, 0x80, 0x80,
    0x80, 0x80, 0x80, 0x80,
];

/// Returns a 1×1 red PNG (scenario `tools-call-image`).
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "conformance", effect = "read", data = "public")]
pub struct TestImageContent {}

impl Execute for TestImageContent {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::items([ContentItem::image(
            &RED_PIXEL_PNG,
            "image/png",
        )]))
    }
}

/// Returns a short silent WAV (scenario `tools-call-audio`).
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "conformance", effect = "read", data = "public")]
pub struct TestAudioContent {}

impl Execute for TestAudioContent {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::items([ContentItem::audio(
            &SILENT_WAV,
            "audio/wav",
        )]))
    }
}

/// Returns an embedded text resource (scenario
/// `tools-call-embedded-resource`).
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "conformance", effect = "read", data = "public")]
pub struct TestEmbeddedResource {}

impl Execute for TestEmbeddedResource {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::items([ContentItem::text_resource(
            "test://embedded-resource",
            "text/plain",
            "This is an embedded resource content.",
        )]))
    }
}

/// Returns text, an image and an embedded resource (scenario
/// `tools-call-mixed-content`).
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "conformance", effect = "read", data = "public")]
pub struct TestMultipleContentTypes {}

impl Execute for TestMultipleContentTypes {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("Multiple content types test:")
            .with(ContentItem::image(&RED_PIXEL_PNG, "image/png"))
            .with(ContentItem::text_resource(
                "test://mixed-content-resource",
                "application/json",
                r#"{"test":"data","value":123}"#,
            )))
    }
}

/// A tool one of whose arguments a client also sends as an HTTP header
/// (`x-mcp-header`, SEP-2243: scenario
/// `http-custom-header-server-validation`), so that a proxy can route on
/// it without reading the body; the server checks the two agree.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "conformance", effect = "read", data = "public")]
pub struct TestHeaderParameter {
    /// The region the request is for, also sent as `Mcp-Param-Region`.
    #[schemars(extend("x-mcp-header" = "Region"))]
    region: String,
}

impl Execute for TestHeaderParameter {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(format!("region: {}", self.region)))
    }
}
