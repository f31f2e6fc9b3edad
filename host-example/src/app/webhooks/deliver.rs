//! Delivering queued events: one pass tries every delivery that is due
//! (each webhook's oldest pending one), signs it as it is sent, and records
//! the outcome: delivered on a 2xx answer, due again after the setting's
//! backoff, or dead after the last attempt.
//!
//! [`Jobs::deliver_webhooks`](crate::app::Jobs::deliver_webhooks) is the one entry point: the background
//! worker's job kind `deliver_webhooks` runs it (`job.rs`), and the
//! `webhooks deliver` command runs one pass now. Several processes may run
//! passes at once: each delivery is taken by a compare-and-set before it
//! is sent.

use std::time::Duration;

use crate::app::webhooks::signature::{EVENT_ID_HEADER, EVENT_TYPE_HEADER, SIGNATURE_HEADER, sign};
use crate::app::webhooks::target::{self, WebhookResolver};
use crate::app::{HostError, Jobs};
use crate::store::{StoredDelivery, StoredWebhook, WebhookDelivery, WebhookTargets, now};

/// How long an error from a receiver is kept.
const ERROR_CHARS: usize = 300;

/// What one pass did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DeliveryPass {
    /// Deliveries the receiver took (2xx).
    pub delivered: usize,
    /// Deliveries that failed and will be tried again.
    pub retrying: usize,
    /// Deliveries that failed their last attempt: now in the dead-letter
    /// list.
    pub dead: usize,
}

impl Jobs<'_> {
    /// Tries every delivery due now, once (see the module docs).
    pub async fn deliver_webhooks(&self) -> Result<DeliveryPass, HostError> {
        let policy = self.host.store().job_queue().webhook_delivery().await?;
        let targets = self.host.store().job_queue().webhook_targets().await?;
        let webhooks = self.host.store().job_queue().webhooks().await?;
        let sender = Sender {
            timeout: Duration::from_secs(policy.timeout_seconds),
            targets,
            resolver: self.host.webhook_resolver.as_ref(),
        };
        let mut pass = DeliveryPass::default();
        // Each round takes every webhook's oldest pending delivery; the
        // next round the one after it. A webhook whose delivery failed is
        // left until its next pass, so its events keep their order.
        let mut failed: Vec<String> = Vec::new();
        loop {
            let at = now();
            let due: Vec<StoredDelivery> = self
                .host
                .store()
                .job_queue()
                .due_deliveries(at)
                .await?
                .into_iter()
                .filter(|d| !failed.contains(&d.webhook))
                .collect();
            let mut progressed = false;
            for delivery in due {
                let Some(webhook) = webhooks.iter().find(|w| w.name == delivery.webhook) else {
                    continue;
                };
                // While this attempt runs, no other process takes it.
                let until = at.saturating_add(
                    i64::try_from(policy.timeout_seconds.saturating_mul(2)).unwrap_or(120),
                );
                if !self
                    .host
                    .store()
                    .job_queue()
                    .claim_delivery(&delivery.id, delivery.next_attempt_at, until)
                    .await?
                {
                    continue;
                }
                let attempts = delivery.attempts.saturating_add(1);
                let error = sender.attempt(webhook, &delivery).await.err();
                let retry_at = match &error {
                    Some(_) if attempts < policy.attempts => Some(retry_at(&policy, attempts)),
                    _ => None,
                };
                self.host
                    .store()
                    .job_queue()
                    .record_attempt(&delivery.id, attempts, error.as_deref(), retry_at)
                    .await?;
                match (error, retry_at) {
                    (None, _) => {
                        pass.delivered += 1;
                        progressed = true;
                    }
                    (Some(_), Some(_)) => {
                        pass.retrying += 1;
                        failed.push(delivery.webhook);
                    }
                    (Some(_), None) => {
                        pass.dead += 1;
                        failed.push(delivery.webhook);
                    }
                }
            }
            if !progressed {
                break;
            }
        }
        // What is left to retry gets a pass of its own when it is due.
        if let Some(due) = self.host.store().job_queue().next_delivery_due().await? {
            self.host
                .store()
                .job_queue()
                .schedule_pass(&super::job::pass_at(due))
                .await?;
        }
        Ok(pass)
    }
}

fn retry_at(policy: &WebhookDelivery, failed: u32) -> i64 {
    now().saturating_add(i64::try_from(policy.backoff(failed)).unwrap_or(i64::MAX))
}

/// How a pass sends: each attempt's timeout, and where it may send.
struct Sender<'a> {
    timeout: Duration,
    targets: WebhookTargets,
    resolver: &'a dyn WebhookResolver,
}

impl Sender<'_> {
    /// Posts `delivery` to `webhook`, signed now, to an address of its
    /// host looked up and checked now ([`target`]); why it failed, if it
    /// did.
    async fn attempt(
        &self,
        webhook: &StoredWebhook,
        delivery: &StoredDelivery,
    ) -> Result<(), String> {
        let url = reqwest::Url::parse(&webhook.url).map_err(|error| error.to_string())?;
        let addresses = target::resolve_checked(&url, self.targets, self.resolver)
            .await
            .map_err(|why| format!("not sent: {why}"))?;
        let mut client = reqwest::Client::builder()
            .timeout(self.timeout)
            // A receiver answers; it does not send the host elsewhere.
            .redirect(reqwest::redirect::Policy::none());
        if let Some(name) = url.host_str() {
            // Connect to what was checked, not to a second look-up's answer.
            client = client.resolve_to_addrs(name, &addresses);
        }
        let client = client
            .build()
            .map_err(|error| format!("no HTTP client: {error}"))?;
        let signature = sign(&webhook.secret, now(), delivery.body.as_bytes());
        let sent = client
            .post(url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header(SIGNATURE_HEADER, signature)
            .header(EVENT_ID_HEADER, &delivery.event_id)
            .header(EVENT_TYPE_HEADER, &delivery.event)
            .body(delivery.body.clone())
            .send()
            .await;
        match sent {
            Ok(response) if response.status().is_success() => Ok(()),
            Ok(response) => Err(format!("the receiver answered {}", response.status())),
            Err(error) => Err(crate::app::recorder::cut(
                &format!("not delivered: {error}"),
                ERROR_CHARS,
            )),
        }
    }
}
