//! The events webhooks are sent, and their payloads: built where the host
//! records what happened (a proposal stored, decided or expired, a run
//! failed) and queued for every webhook subscribed to the event's type.
//!
//! Queuing follows the record it reports (a second transaction): a
//! notification that cannot be queued is logged and does not undo the
//! decision or the run it reports (docs/decisions.md).

use serde_json::{Value, json};
use tool_core::approval::Decision;
use tool_core::{DataClass, Proposal, RunId};

use crate::store::{Store, StoreError, StoredWebhook, random_id};

/// What a webhook may be sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WebhookEvent {
    /// A write was proposed and waits for a decision.
    ProposalCreated,
    /// A proposal was approved or rejected, or a first approval of two was
    /// withdrawn.
    ProposalDecided,
    /// A proposal expired undecided.
    ProposalExpired,
    /// A run failed (its model could not answer, or the host failed it).
    RunFailed,
}

impl WebhookEvent {
    /// Every event type.
    pub const ALL: [WebhookEvent; 4] = [
        WebhookEvent::ProposalCreated,
        WebhookEvent::ProposalDecided,
        WebhookEvent::ProposalExpired,
        WebhookEvent::RunFailed,
    ];

    /// Its name in a payload's `type`, a header and a webhook's events.
    pub fn name(self) -> &'static str {
        match self {
            WebhookEvent::ProposalCreated => "proposal.created",
            WebhookEvent::ProposalDecided => "proposal.decided",
            WebhookEvent::ProposalExpired => "proposal.expired",
            WebhookEvent::RunFailed => "run.failed",
        }
    }

    /// The event called `name`.
    pub fn parse(name: &str) -> Option<WebhookEvent> {
        WebhookEvent::ALL.into_iter().find(|e| e.name() == name)
    }
}

/// What became of a proposal, as a `proposal.decided` or
/// `proposal.expired` payload says it.
#[derive(Debug, Clone, Copy)]
pub(in crate::app) enum Outcome<'a> {
    /// Decided (approved, rejected or expired).
    Decided(&'a Decision),
    /// `by`'s first approval of two taken back.
    Withdrawn {
        /// Who took it back.
        by: &'a str,
    },
}

impl Outcome<'_> {
    fn event(self) -> WebhookEvent {
        match self {
            Outcome::Decided(Decision::Approved { .. } | Decision::Rejected { .. })
            | Outcome::Withdrawn { .. } => WebhookEvent::ProposalDecided,
            Outcome::Decided(_) => WebhookEvent::ProposalExpired,
        }
    }

    fn json(self) -> Value {
        match self {
            Outcome::Decided(Decision::Approved { approver }) => {
                json!({"outcome": "approved", "by": approver.id})
            }
            Outcome::Decided(Decision::Rejected { approver, reason }) => {
                json!({"outcome": "rejected", "by": approver.id, "reason": reason})
            }
            Outcome::Decided(_) => json!({"outcome": "expired", "by": null}),
            Outcome::Withdrawn { by } => json!({"outcome": "withdrawn", "by": by}),
        }
    }
}

/// A value as the inbox shows it: strings bare, `null` as a dash.
fn shown(value: &Value) -> String {
    match value {
        Value::Null => "—".to_owned(),
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

fn proposal_json(proposal: &Proposal, run: &RunId, requester: &str) -> Value {
    let fields: Vec<Value> = proposal
        .changes
        .iter()
        .map(|change| {
            json!({
                "field": change.field,
                "new": change.new,
                "replaces": change.replaces,
                "new_shown": shown(&change.new),
                "replaces_shown": shown(&change.replaces),
            })
        })
        .collect();
    json!({
        "id": proposal.id().as_str(),
        "tool": proposal.tool(),
        "record": proposal.record,
        "summary": proposal.summary,
        "fields": fields,
        "run": run.0,
        "requester": requester,
        "created_at": proposal.created_at(),
    })
}

/// Queues `event` with `payload` (its `id`, `type`, `created_at` and
/// `links` added) for every webhook subscribed to it.
async fn queue(
    store: &Store,
    event: WebhookEvent,
    payload: Value,
    run: &RunId,
    values: Option<&Values>,
) -> Result<usize, StoreError> {
    let webhooks: Vec<StoredWebhook> = store
        .job_queue()
        .webhooks()
        .await?
        .into_iter()
        .filter(|w| w.events.iter().any(|e| e == event.name()))
        .collect();
    if webhooks.is_empty() {
        return Ok(0);
    }
    let public = store.job_queue().public_url().await?;
    let link = |path: String| public.as_ref().map(|url| url.join(&path));
    let id = random_id();
    let framed = |mut payload: Value| {
        payload["id"] = json!(id);
        payload["type"] = json!(event.name());
        payload["created_at"] = json!(crate::store::now());
        payload["links"] = json!({
            "inbox": link("/approvals".to_owned()),
            "run": (!run.0.starts_with("mcp-")).then(|| link(format!("/runs/{}", run.0))).flatten(),
        });
        payload.to_string()
    };
    let lean = values.map(|values| framed(values.left_out(&payload)));
    let full = framed(payload);
    let deliveries: Vec<(String, String)> = webhooks
        .into_iter()
        .map(|webhook| {
            let body = match (&lean, values) {
                (Some(lean), Some(values)) if !values.may_go_to(&webhook) => lean.clone(),
                _ => full.clone(),
            };
            (webhook.name, body)
        })
        .collect();
    let pass = super::job::pass_at(crate::store::now());
    store
        .job_queue()
        .enqueue_deliveries(&deliveries, &id, event.name(), &pass)
        .await
}

/// A proposal's values in a payload, and who may receive them: a webhook
/// whose data class is at or above the class they may carry
/// ([`Proposal::data_class`]), unless gate 9 held the proposal (its run had
/// read untrusted content: its values may be anyone's words), when none.
struct Values {
    class: DataClass,
    held: bool,
}

impl Values {
    fn of(proposal: &Proposal) -> Values {
        Values {
            class: proposal.data_class(),
            held: proposal.exposure_hold().is_some(),
        }
    }

    fn may_go_to(&self, webhook: &StoredWebhook) -> bool {
        !self.held && self.class <= webhook.data_class
    }

    /// `payload` with the proposal's values left out: its fields' names
    /// stay, their values and the summary (which quotes them) go; ids and
    /// links stay.
    fn left_out(&self, payload: &Value) -> Value {
        let mut lean = payload.clone();
        if let Some(proposal) = lean.get_mut("proposal").and_then(Value::as_object_mut) {
            proposal.remove("summary");
            if let Some(fields) = proposal.get_mut("fields").and_then(Value::as_array_mut) {
                for field in fields.iter_mut().filter_map(Value::as_object_mut) {
                    field.retain(|key, _| key == "field");
                }
            }
            let why = if self.held {
                "proposed after untrusted content entered its run".to_owned()
            } else {
                format!("they may carry {} data", self.class)
            };
            proposal.insert("values_left_out".to_owned(), json!(why));
        }
        lean
    }
}

fn logged(what: &str, queued: Result<usize, StoreError>) {
    if let Err(error) = queued {
        tracing::error!(target: "host_example::webhooks", %error, "could not queue {what}");
    }
}

/// `proposal.created` for `proposal`, which `requester`'s `run` made.
pub(in crate::app) async fn proposal_created(
    store: &Store,
    run: &RunId,
    requester: &str,
    proposal: &Proposal,
) {
    let payload = json!({"proposal": proposal_json(proposal, run, requester)});
    let values = Values::of(proposal);
    let queued = queue(
        store,
        WebhookEvent::ProposalCreated,
        payload,
        run,
        Some(&values),
    )
    .await;
    logged("proposal.created", queued);
}

/// `proposal.decided` or `proposal.expired` for `proposal`.
pub(in crate::app) async fn proposal_outcome(
    store: &Store,
    run: &RunId,
    requester: &str,
    proposal: &Proposal,
    outcome: Outcome<'_>,
) {
    let payload = json!({
        "proposal": proposal_json(proposal, run, requester),
        "decision": outcome.json(),
    });
    let event = outcome.event();
    let values = Values::of(proposal);
    logged(
        event.name(),
        queue(store, event, payload, run, Some(&values)).await,
    );
}

/// `run.failed` for `user`'s `run`, which failed for `reason`.
pub(in crate::app) async fn run_failed(store: &Store, run: &RunId, user: &str, reason: &str) {
    let payload = json!({"run": {"id": run.0, "user": user, "status": "failed", "reason": reason}});
    logged(
        "run.failed",
        queue(store, WebhookEvent::RunFailed, payload, run, None).await,
    );
}
