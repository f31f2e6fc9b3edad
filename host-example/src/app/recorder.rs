//! A run's events as they happen: each one stored (`run_events`), its audit
//! rows written (the gate's decision on a call, the call, a decision on a
//! proposal, a write), and passed on to whoever watches the run live.
//!
//! [`EventLog`] writes one event; [`Recorder`] is the [`EventSink`] the
//! agent loop drives, handing events in order to a task that writes them,
//! so the loop never waits on the database.

use std::collections::HashMap;
use std::time::Instant;

use serde_json::Value;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tool_core::agent::{CallResult, Event, EventSink};
use tool_core::approval::Decision;
use tool_core::{Actor, Proposal, RunId};

use crate::app::killpoint::{self, points};
use crate::app::webhooks::events;
use crate::store::{AuditEntry, AuditKind, Store, StoreError};
use tool_mcp::PROGRESS_INTERVAL;

/// How much of a call's arguments an audit row keeps.
const AUDIT_ARGUMENTS_CHARS: usize = 300;

/// Writes a run's events and their audit rows.
#[derive(Debug, Clone)]
pub struct EventLog {
    store: Store,
    run: RunId,
    user: String,
    /// The proposal being decided, while a resumed run applies it.
    pending: Option<Proposal>,
    /// The decision that came with [`Event::Resumed`], until the applied
    /// call's [`Event::ToolExecuted`] is written.
    deciding: Option<Decision>,
}

impl EventLog {
    /// The log of `run`, acting as `user`.
    pub fn new(store: Store, run: RunId, user: impl Into<String>) -> Self {
        EventLog {
            store,
            run,
            user: user.into(),
            pending: None,
            deciding: None,
        }
    }

    /// The log of a run resumed with a decision on `proposal`.
    pub fn resuming(mut self, proposal: Proposal) -> Self {
        self.pending = Some(proposal);
        self
    }

    /// Stores `event` with its audit rows (and, for a call that proposed,
    /// its proposal) in one transaction: all of them or none.
    pub async fn record(&mut self, event: &Event<'_>) -> Result<(), StoreError> {
        let mut deciding = None;
        let audit = match event {
            // An approval is audited with what applying it came to, below:
            // decided, then applied or failed, never the other way round.
            Event::Resumed { decision, .. } => {
                if matches!(decision, Decision::Approved { .. }) {
                    deciding = Some(decision.clone());
                    Vec::new()
                } else {
                    vec![self.decided(decision)]
                }
            }
            Event::ToolExecuted {
                tool,
                arguments,
                result,
                ..
            } => match &self.deciding {
                // The change wrote its rows itself, `approved` then
                // `applied`, in its own transaction (`SqlSite::auditing`).
                Some(Decision::Approved { .. }) if matches!(result, CallResult::Output { .. }) => {
                    Vec::new()
                }
                Some(decision @ Decision::Approved { approver }) => {
                    vec![
                        self.decided(decision),
                        self.applied(tool, &approver.id, result),
                    ]
                }
                _ => self.call(tool, arguments, result),
            },
            _ => Vec::new(),
        };
        if let Event::ToolExecuted { .. } = event {
            let point = match self.deciding {
                Some(_) => points::APPLIED,
                None => points::CALL,
            };
            killpoint::reached(point).await;
        }
        self.store
            .decisions()
            .record_event_with(&self.run, event, &audit)
            .await?;
        if let Event::ToolExecuted {
            result: CallResult::Proposed { proposal },
            ..
        } = event
            && self.deciding.is_none()
        {
            events::proposal_created(&self.store, &self.run, &self.user, proposal).await;
        }
        // Only once stored: a resumed run whose decision failed to be
        // written does not treat its next call as the applied one.
        match event {
            Event::Resumed { .. } => self.deciding = deciding,
            Event::ToolExecuted { .. } => self.deciding = None,
            _ => {}
        }
        Ok(())
    }

    /// A decision on the proposal a resumed run waited on.
    fn decided(&self, decision: &Decision) -> AuditEntry {
        let mut entry = self.entry(AuditKind::Write, decision_word(decision));
        entry.actor = decision
            .approver()
            .map_or_else(|| "host".to_owned(), |a| a.id.clone());
        if let Some(proposal) = &self.pending {
            entry.tool = Some(proposal.tool().to_owned());
            entry.detail = Some(format!("proposal {}", proposal.id().as_str()));
        }
        if let Decision::Rejected { reason, .. } = decision {
            entry.detail = Some(format!(
                "{}; reason: {reason}",
                entry.detail.unwrap_or_default()
            ));
        }
        entry
    }

    /// A call through the gates: the gate's decision, then the call.
    fn call(&self, tool: &str, arguments: &Value, result: &CallResult) -> Vec<AuditEntry> {
        let mut gate = self.entry(AuditKind::Gate, "allowed");
        gate.tool = Some(tool.to_owned());
        if let CallResult::Error {
            denial: Some(denial),
            ..
        } = result
        {
            gate.decision = "denied".into();
            gate.gate = Some(denial.gate().to_string());
            gate.detail = Some(denial.to_string());
            return vec![gate];
        }
        let (decision, detail) = match result {
            CallResult::Output { .. } => ("ok", None),
            CallResult::Proposed { proposal } => (
                "proposed",
                Some(format!("proposal {}", proposal.id().as_str())),
            ),
            CallResult::Error { detail, .. } => ("failed", Some(detail.clone())),
        };
        let mut call = self.entry(AuditKind::Call, decision);
        call.tool = Some(tool.to_owned());
        let arguments = cut(&arguments.to_string(), AUDIT_ARGUMENTS_CHARS);
        call.detail = Some(match detail {
            Some(detail) => format!("{arguments}; {detail}"),
            None => arguments,
        });
        vec![gate, call]
    }

    /// The audit rows of the proposal being decided, approved and applied
    /// by `approver` as `tool`: written by the change itself, in its
    /// transaction ([`SqlSite::auditing`](crate::store::SqlSite::auditing)).
    pub fn applying_rows(&self, tool: &str, approver: &Actor) -> Vec<AuditEntry> {
        let approved = Decision::Approved {
            approver: approver.clone(),
        };
        vec![
            self.decided(&approved),
            self.decided_row(AuditKind::Write, "applied", tool, &approver.id),
        ]
    }

    /// An approved proposal not applied: failed, or refused by a gate.
    fn applied(&self, tool: &str, approver: &str, result: &CallResult) -> AuditEntry {
        let (kind, decision) = match result {
            CallResult::Output { .. } => (AuditKind::Write, "applied"),
            CallResult::Error {
                denial: Some(_), ..
            } => (AuditKind::Gate, "denied"),
            _ => (AuditKind::Write, "failed"),
        };
        let mut entry = self.decided_row(kind, decision, tool, approver);
        if let CallResult::Error { detail, denial, .. } = result {
            entry.gate = denial.as_ref().map(|d| d.gate().to_string());
            // Ending with the proposal as `decided_row` names it: recovery
            // finds what applying it came to by it.
            entry.detail = Some(match entry.detail.take() {
                Some(about) => format!("{detail}; {about}"),
                None => detail.clone(),
            });
        }
        entry
    }

    /// A row about the proposal being decided.
    fn decided_row(
        &self,
        kind: AuditKind,
        decision: &str,
        tool: &str,
        approver: &str,
    ) -> AuditEntry {
        let mut entry = self.entry(kind, decision);
        entry.actor = approver.to_owned();
        entry.tool = Some(tool.to_owned());
        let about = self
            .pending
            .as_ref()
            .map(|p| format!("{} ({})", p.summary, p.id().as_str()));
        entry.detail = about;
        entry
    }

    fn entry(&self, kind: AuditKind, decision: &str) -> AuditEntry {
        let mut entry = AuditEntry::new(kind, self.user.as_str(), decision);
        entry.run = Some(self.run.0.clone());
        entry
    }
}

fn decision_word(decision: &Decision) -> &'static str {
    match decision {
        Decision::Approved { .. } => "approved",
        Decision::Rejected { .. } => "rejected",
        _ => "expired",
    }
}

/// `text` cut to `max` characters, with `…` when cut.
pub fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// The [`EventSink`] of a run: each event goes, in order, to a task that
/// records it through an [`EventLog`], and to the watcher. Must be made
/// inside a Tokio runtime.
///
/// While `hold` says no, events are held back from both (a resumed run
/// whose decision is not recorded yet); [`Recorder::finish`] returns what
/// is still held.
///
/// `W` is the watcher's type: a recorder over a `dyn EventSink + Send`
/// watcher is `Send`, so the run it records can be spawned.
pub struct Recorder<'w, W: EventSink + ?Sized = dyn EventSink> {
    sender: Option<mpsc::UnboundedSender<Event<'static>>>,
    writer: JoinHandle<Result<(), StoreError>>,
    watch: &'w mut W,
    hold: Option<&'w (dyn Fn() -> bool + Sync)>,
    held: Vec<Event<'static>>,
    /// When each call's progress was last shown.
    progress_shown: HashMap<String, Instant>,
    /// Each call's newest report held back by the interval: shown before
    /// the run's next other event (the call's result, at the latest), so
    /// a watcher always sees where a call got to.
    progress_held: Vec<Event<'static>>,
}

impl<'w, W: EventSink + ?Sized> Recorder<'w, W> {
    /// Records through `log` and shows each event to `watch`.
    pub fn new(mut log: EventLog, watch: &'w mut W) -> Self {
        let (sender, mut receiver) = mpsc::unbounded_channel::<Event<'static>>();
        let writer = tokio::spawn(async move {
            let mut failed = None;
            while let Some(event) = receiver.recv().await {
                // After a failure, later events are not written (their
                // numbers would have a gap), but the channel is drained.
                if failed.is_none()
                    && let Err(error) = log.record(&event).await
                {
                    failed = Some(error);
                }
            }
            failed.map_or(Ok(()), Err)
        });
        Recorder {
            sender: Some(sender),
            writer,
            watch,
            hold: None,
            held: Vec::new(),
            progress_shown: HashMap::new(),
            progress_held: Vec::new(),
        }
    }

    /// Holds events back while `released` says no.
    pub fn hold_until(mut self, released: &'w (dyn Fn() -> bool + Sync)) -> Self {
        self.hold = Some(released);
        self
    }

    fn pass(&mut self, event: Event<'static>) {
        self.watch.event(&event);
        if let Some(sender) = &self.sender {
            // The writer only stops when the sender is dropped.
            let _ = sender.send(event);
        }
    }

    /// Waits until every event passed on is written; returns the events
    /// still held, and whether writing failed.
    pub async fn finish(mut self) -> (Vec<Event<'static>>, Result<(), StoreError>) {
        self.sender = None;
        let written = match (&mut self.writer).await {
            Ok(result) => result,
            Err(error) => Err(StoreError::Refused(format!(
                "the event writer stopped: {error}"
            ))),
        };
        (std::mem::take(&mut self.held), written)
    }
}

impl<W: EventSink + ?Sized> EventSink for Recorder<'_, W> {
    fn event(&mut self, event: &Event<'_>) {
        if let Event::ToolProgress { call_id, .. } = event {
            // Shown live, never kept: the call's result follows. At most
            // one per call every `PROGRESS_INTERVAL`, as MCP clients get
            // them; one held back is superseded by the next, or shown
            // before the run's next other event.
            self.progress_held.retain(
                |held| !matches!(held, Event::ToolProgress { call_id: id, .. } if id == call_id),
            );
            let now = Instant::now();
            let due = self
                .progress_shown
                .get(call_id)
                .is_none_or(|shown| now.duration_since(*shown) >= PROGRESS_INTERVAL);
            let held = self.hold.is_some_and(|released| !released());
            if held {
                return;
            }
            if due {
                self.progress_shown.insert(call_id.clone(), now);
                self.watch.event(event);
            } else {
                self.progress_held.push(event.clone().into_owned());
            }
            return;
        }
        if let Some(released) = self.hold
            && !released()
        {
            self.progress_held.clear();
            self.held.push(event.clone().into_owned());
            return;
        }
        for progress in std::mem::take(&mut self.progress_held) {
            self.watch.event(&progress);
        }
        for held in std::mem::take(&mut self.held) {
            self.pass(held);
        }
        self.pass(event.clone().into_owned());
    }
}

#[cfg(test)]
mod tests {
    use tool_core::RunId;
    use tool_core::agent::{Event, EventSink};

    use super::{EventLog, Recorder};
    use crate::app::Host;

    /// What a watcher was shown: each progress report's `done`, and `0`
    /// for any other event.
    #[derive(Default)]
    struct Shown(Vec<u64>);

    impl EventSink for Shown {
        fn event(&mut self, event: &Event<'_>) {
            self.0.push(match event {
                Event::ToolProgress { done, .. } => *done,
                _ => 0,
            });
        }
    }

    fn report(done: u64) -> Event<'static> {
        Event::ToolProgress {
            round: 1,
            call_id: "call_1".into(),
            tool: "count".into(),
            done,
            total: Some(3),
            message: format!("counted {done}"),
        }
    }

    #[tokio::test]
    async fn a_report_held_back_by_the_interval_is_shown_before_the_next_event() {
        let folder = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}?mode=rwc", folder.path().join("h.db").display());
        let host = Host::open(&url).await.unwrap();
        let log = EventLog::new(host.store().clone(), RunId("run-x".into()), "admin");
        let mut shown = Shown::default();
        let mut recorder = Recorder::new(log, &mut shown);
        // Three reports at once: the first is shown, the next two fall
        // within the interval and only the newest is kept.
        for done in 1..=3 {
            recorder.event(&report(done));
        }
        recorder.event(&Event::RoundStarted { round: 2 });
        let _ = recorder.finish().await;
        assert_eq!(shown.0, [1, 3, 0], "the newest report, then the event");
    }
}
