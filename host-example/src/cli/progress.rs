//! A run shown live: each round, each tool call with its arguments and a
//! short result, and a spinner while the model thinks or a tool reports
//! its progress (on a terminal; plain lines otherwise).

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use tool_core::agent::{CallResult, Event, EventSink};

use host_example::app::recorder::cut;

/// How much of a tool's arguments and result a line shows.
const SHOWN_CHARS: usize = 100;

/// Prints a run's events as they happen.
pub struct Progress {
    spinner: Option<ProgressBar>,
    terminal: bool,
}

impl Progress {
    pub fn new() -> Self {
        Progress {
            spinner: None,
            terminal: std::io::stdout().is_terminal() && std::io::stderr().is_terminal(),
        }
    }

    fn stop(&mut self) {
        if let Some(spinner) = self.spinner.take() {
            spinner.finish_and_clear();
        }
    }

    /// The spinner's line says `text` (a new spinner if none turns).
    fn spin(&mut self, text: String) {
        let text = super::escape_controls(&text).into_owned();
        if let Some(spinner) = &self.spinner {
            spinner.set_message(text);
            return;
        }
        let spinner = ProgressBar::new_spinner().with_message(text);
        if let Ok(style) = ProgressStyle::with_template("  {spinner} {msg} {elapsed}") {
            spinner.set_style(style);
        }
        spinner.enable_steady_tick(Duration::from_millis(100));
        self.spinner = Some(spinner);
    }

    fn line(&mut self, text: String) {
        match &self.spinner {
            Some(spinner) => spinner.println(super::escape_controls(&text)),
            // A closed pipe ends the printing, not the run: its events
            // are stored, and the command's last line says it is closed.
            None => drop(super::write_stdout(format_args!("{text}\n"))),
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.stop();
    }
}

impl EventSink for Progress {
    fn event(&mut self, event: &Event) {
        match event {
            Event::RoundStarted { round } => self.line(format!("round {round}")),
            Event::RequestSent { .. } if self.terminal => {
                self.spin("the model is thinking…".to_owned());
            }
            Event::ResponseReceived { text, calls, .. } => {
                self.stop();
                if !calls.is_empty() && !text.trim().is_empty() {
                    self.line(format!("  model: {}", cut(text.trim(), SHOWN_CHARS)));
                }
            }
            Event::ToolExecuted {
                tool,
                arguments,
                result,
                duration,
                ..
            } => {
                self.stop();
                let shown = match result {
                    CallResult::Output { output } => {
                        let text = output.to_model_text().replace('\n', " ");
                        format!("ok: {}", cut(&text, SHOWN_CHARS))
                    }
                    CallResult::Proposed { proposal } => {
                        format!("proposed: {}", proposal.summary)
                    }
                    CallResult::Error { detail, .. } => {
                        format!("error: {}", cut(detail, SHOWN_CHARS))
                    }
                };
                self.line(format!(
                    "  → {tool} {} ({} ms)\n    {shown}",
                    cut(&arguments.to_string(), SHOWN_CHARS),
                    duration.as_millis()
                ));
            }
            Event::ExposureRaised {
                call_id,
                tool,
                exposure,
                withdrawn,
                ..
            } => {
                self.line(format!(
                    "  {}",
                    host_example::app::describe_exposure(tool, call_id, exposure, withdrawn)
                ));
            }
            Event::ToolProgress {
                tool,
                done,
                total,
                message,
                ..
            } => {
                let of = total.map(|total| format!("/{total}")).unwrap_or_default();
                let text = format!("{tool}: {done}{of} {}", cut(message, SHOWN_CHARS));
                if self.terminal {
                    // One line that follows the newest report.
                    self.spin(text);
                } else {
                    self.line(format!("  … {text}"));
                }
            }
            Event::Resumed { decision, .. } => {
                self.line(format!(
                    "resumed: {}",
                    host_example::app::describe(decision)
                ));
            }
            _ => {}
        }
    }
}
