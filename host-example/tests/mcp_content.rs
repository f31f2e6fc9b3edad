//! What a tool shows beside its text, and its progress, reach the official
//! Python client: an image as image content (base64 data, MIME type), an
//! embedded resource as a resource, a link as a resource link; progress
//! reports as `notifications/progress` for the request's `progressToken`,
//! rate-limited, the last one always. The tools, `render_swatch` and
//! `count_records`, are linked into this test binary, so the host's own
//! registry serves them beside the real tools; the server is the host's
//! HTTP router over a fresh SQLite file, in this process.

mod mcp_support;

use std::sync::Arc;

use host_example::serve::{self, HostState};
use host_example::web::WebState;
use mcp_support::{Demo, Driver, is_error};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tokio_util::sync::CancellationToken;
use tool_core::{ContentItem, Execute, Tool, ToolContext, ToolError, ToolOutput};

/// A 1×1 PNG.
const PIXEL: [u8; 69] = [
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53,
    0xde, 0x00, 0x00, 0x00, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0x00,
    0x00, 0x03, 0x01, 0x01, 0x00, 0xc9, 0xfe, 0x92, 0xef, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e,
    0x44, 0xae, 0x42, 0x60, 0x82,
];

/// Renders a colour swatch as a PNG, with its palette file embedded and a
/// link to the style guide.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "testing", effect = "read", data = "public")]
#[serde(deny_unknown_fields)]
struct RenderSwatch {
    /// The colour's name.
    colour: String,
}

impl Execute for RenderSwatch {
    async fn execute(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(format!("The {} swatch:", self.colour))
            .with(ContentItem::image(&PIXEL, "image/png"))
            .with(ContentItem::text_resource(
                "site://palette.css",
                "text/css",
                "--red: #f00;",
            ))
            .with(ContentItem::resource_link(
                "https://www.example.com/style-guide",
                "style guide",
            )))
    }
}

/// Counts a thousand records, reporting each one, with no pause: the
/// client must not get a thousand messages.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(group = "testing", effect = "read", data = "public")]
#[serde(deny_unknown_fields)]
struct CountRecords {}

/// How many records `count_records` reports.
const RECORDS: u64 = 1000;

impl Execute for CountRecords {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        for done in 1..=RECORDS {
            cx.progress(done, Some(RECORDS), "counting");
        }
        Ok(ToolOutput::text(format!("{RECORDS} records")))
    }
}

/// The host's HTTP router over `demo` on a free loopback port, in
/// `runtime`; the MCP endpoint's URL.
fn serve(runtime: &tokio::runtime::Runtime, demo: &Demo) -> String {
    let state = HostState {
        host: Arc::clone(&demo.host),
        web: WebState::new(Arc::clone(&demo.host)),
    };
    let router = serve::router(&state, CancellationToken::new());
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    runtime.spawn(async move { axum::serve(listener, router).await });
    url
}

#[test]
fn progress_reaches_the_python_client_rate_limited_and_the_last_report_always() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let demo = runtime.block_on(Demo::new());
    let url = serve(&runtime, &demo);
    for mode in ["auto", "legacy"] {
        let Some(mut client) = Driver::python(&["http", mode, &url, demo.token("petra")]) else {
            return;
        };
        let answer = client.send(json!({"op": "call_with_progress", "name": "count_records"}));
        assert_eq!(
            answer["result"]["content"][0]["text"], "1000 records",
            "{answer}"
        );
        let reports = answer["progress"].as_array().unwrap();
        let done: Vec<u64> = reports
            .iter()
            .map(|r| r["progress"].as_f64().unwrap() as u64)
            .collect();
        // Folded into a few messages (a thousand reports with no pause),
        // in order, ending with the last report.
        assert!(!done.is_empty() && done.len() < 10, "{mode}: {done:?}");
        assert!(done.is_sorted(), "{mode}: {done:?}");
        assert_eq!(done.last(), Some(&RECORDS), "{mode}");
        let last = reports.last().unwrap();
        assert_eq!(last["total"], json!(1000.0), "{mode}");
        assert_eq!(last["message"], "counting", "{mode}");
    }
}

#[test]
fn an_image_reaches_the_python_client_as_image_content() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let demo = runtime.block_on(Demo::new());
    let url = serve(&runtime, &demo);

    for mode in ["auto", "legacy"] {
        let Some(mut client) = Driver::python(&["http", mode, &url, demo.token("petra")]) else {
            return;
        };
        let result = client.call("render_swatch", json!({"colour": "red"}));
        assert!(!is_error(&result), "{result}");
        let content = result["content"].as_array().unwrap();
        let types: Vec<&str> = content
            .iter()
            .map(|c| c["type"].as_str().unwrap())
            .collect();
        assert_eq!(
            types,
            ["text", "image", "resource", "resource_link"],
            "{mode}"
        );
        assert_eq!(content[0]["text"], "The red swatch:");
        assert_eq!(content[1]["mimeType"], "image/png");
        assert_eq!(
            content[1]["data"].as_str().unwrap(),
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
        );
        assert_eq!(content[2]["resource"]["uri"], "site://palette.css");
        assert_eq!(content[2]["resource"]["mimeType"], "text/css");
        assert_eq!(content[2]["resource"]["text"], "--red: #f00;");
        assert_eq!(content[3]["uri"], "https://www.example.com/style-guide");
        assert_eq!(content[3]["name"], "style guide");
    }
}
