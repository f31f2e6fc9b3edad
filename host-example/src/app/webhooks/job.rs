//! Delivery on the host's one background worker: the job kind
//! `deliver_webhooks` runs one pass ([`Jobs::deliver_webhooks`](crate::app::Jobs::deliver_webhooks)). A pass is
//! scheduled in the transaction that queues an event, when an
//! administrator retries a dead delivery, and by a pass that leaves
//! deliveries to retry, for when the first of them is due; a queued pass
//! due by then already makes another unnecessary.

use std::time::Duration;

use serde_json::{Value, json};
use tool_core::BoxFuture;

use crate::app::Host;
use crate::app::worker::{JobError, JobKind, JobRun, Retries};
use crate::store::{NewJob, random_id};

/// The kind's name in the `jobs` table.
pub const DELIVER_WEBHOOKS: &str = "deliver_webhooks";

/// A pass's own retries, for a database that failed it (a receiver's
/// failures are the deliveries' own, counted by `webhook_delivery`).
const PASS_RETRIES: Retries = Retries {
    attempts: 5,
    backoff: Duration::from_secs(1),
    most_backoff: Duration::from_secs(60),
};

/// The job kind that delivers what is due.
#[derive(Debug, Clone, Copy, Default)]
pub struct DeliverWebhooks;

impl JobKind for DeliverWebhooks {
    fn name(&self) -> &'static str {
        DELIVER_WEBHOOKS
    }

    fn retries(&self) -> Retries {
        PASS_RETRIES
    }

    fn run<'a>(
        &'a self,
        host: &'a Host,
        _job: &'a JobRun,
    ) -> BoxFuture<'a, Result<Value, JobError>> {
        Box::pin(async move {
            let pass = host.jobs().deliver_webhooks().await?;
            Ok(json!({
                "delivered": pass.delivered,
                "retrying": pass.retrying,
                "dead": pass.dead,
            }))
        })
    }
}

/// A pass to run at `at` (seconds since the Unix epoch).
pub(in crate::app) fn pass_at(at: i64) -> NewJob {
    NewJob {
        id: format!("job-{}", random_id()),
        kind: DELIVER_WEBHOOKS.to_owned(),
        user: None,
        payload: json!({}),
        max_attempts: PASS_RETRIES.attempts,
        run_after_ms: at.saturating_mul(1000),
    }
}
