//! The playground's inspector on the server side: each event of a run
//! becomes one step, JSON text for the browser (`static/playground.js`
//! renders it, as text only), with the run's summary so far.
//!
//! A step is the event as tool-core serializes it (`"event"` names its
//! kind) plus what the browser should not work out itself: a context
//! budget's total and what is left, a call's duration in milliseconds, and
//! a result's images as `data:` URLs built here (never from text a model
//! or a tool wrote, and only for raster types a browser cannot run).

use std::sync::Arc;
use std::time::Instant;

use serde_json::{Value, json};
use tool_core::ContentItem;
use tool_core::agent::{CallResult, Event, EventSink, RunStatus, Usage};

use super::live::LiveRun;
use crate::model::ModelConfig;

/// The summary strip: what the run has done so far.
#[derive(Debug)]
struct Summary {
    rounds: u32,
    tool_calls: u32,
    usage: Usage,
    started: Instant,
    status: &'static str,
}

/// The [`EventSink`] of a playground run: each event becomes a step of
/// its [`LiveRun`].
#[derive(Debug)]
pub(super) struct Inspector {
    run: Arc<LiveRun>,
    summary: Summary,
    prices: Option<ModelConfig>,
}

impl Inspector {
    /// Steps for `run`; costs at the prices of `model`, if it has them.
    pub fn new(run: Arc<LiveRun>, model: Option<ModelConfig>) -> Self {
        Inspector {
            run,
            summary: Summary {
                rounds: 0,
                tool_calls: 0,
                usage: Usage::default(),
                started: Instant::now(),
                status: "running",
            },
            prices: model,
        }
    }

    /// The last step: the run is stored as `run`, waiting for an
    /// approval or over.
    pub fn ended(&mut self, run: &str, suspended: bool) {
        if suspended {
            self.summary.status = "suspended";
        }
        let step = json!({"event": "stored", "run": run, "suspended": suspended});
        self.push(step);
        self.run.finish();
    }

    /// The last step: the run could not start, or its record failed.
    pub fn failed(&mut self, error: &str) {
        self.summary.status = "failed";
        self.push(json!({"event": "error", "message": error}));
        self.run.finish();
    }

    fn push(&mut self, mut step: Value) {
        let summary = &self.summary;
        let cost = self
            .prices
            .as_ref()
            .and_then(|model| model.estimate_cost(summary.usage));
        step["summary"] = json!({
            "rounds": summary.rounds,
            "tool_calls": summary.tool_calls,
            "prompt_tokens": summary.usage.input_tokens,
            "completion_tokens": summary.usage.output_tokens,
            "cost": cost.map(|cost| format!("{cost:.6}")),
            "wall_ms": u64::try_from(summary.started.elapsed().as_millis()).unwrap_or(u64::MAX),
            "status": summary.status,
        });
        self.run.push(step.to_string());
    }
}

impl EventSink for Inspector {
    fn event(&mut self, event: &Event) {
        let mut step = serde_json::to_value(event).unwrap_or_else(|error| {
            json!({"event": "error", "message": format!("an event could not be shown: {error}")})
        });
        match event {
            Event::RoundStarted { round } => self.summary.rounds = *round,
            Event::ContextBudget { budget, .. } => {
                step["total"] = json!(budget.total());
                step["left"] = json!(budget.left());
            }
            Event::ResponseReceived { usage, .. } => self.summary.usage += *usage,
            Event::ToolExecuted {
                duration, result, ..
            } => {
                self.summary.tool_calls += 1;
                step["duration_ms"] = json!(duration.as_secs_f64() * 1000.0);
                if let CallResult::Output { output } = result {
                    step["images"] = output.content().iter().filter_map(data_url).collect();
                }
            }
            Event::ExposureRaised {
                call_id,
                tool,
                exposure,
                withdrawn,
                ..
            } => {
                step["text"] = json!(crate::app::describe_exposure(
                    tool, call_id, exposure, withdrawn
                ));
            }
            Event::Finished { status, .. } => self.summary.status = status_word(status),
            _ => {}
        }
        self.push(step);
    }
}

/// The image types a page shows inline: raster formats only (an SVG may
/// carry script).
const SHOWN_IMAGES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/// An image item as a `data:` URL the page may show, if it is one: a
/// raster type, and data of base64's characters only (the call path
/// checked it decodes), so nothing else can end up in the URL.
fn data_url(item: &ContentItem) -> Option<Value> {
    let ContentItem::Image { data, mime_type } = item else {
        return None;
    };
    let base64 = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=');
    (SHOWN_IMAGES.contains(&mime_type.as_str()) && data.bytes().all(base64))
        .then(|| Value::String(format!("data:{mime_type};base64,{data}")))
}

fn status_word(status: &RunStatus) -> &'static str {
    match status {
        RunStatus::Completed => "completed",
        RunStatus::Truncated => "truncated",
        RunStatus::Budget { .. } => "stopped by the budget",
        RunStatus::Failed { .. } => "failed",
        RunStatus::Cancelled => "cancelled",
        _ => "ended",
    }
}
