//! Signed webhooks (docs/webhooks.md): an administrator's webhooks (URL,
//! secret, events), the events queued for them (`events.rs`), the
//! signature and the receiver's check (`signature.rs`), and delivery with
//! retries and a dead-letter list (`deliver.rs`), run by the host's one
//! background worker as the job kind `deliver_webhooks` (`job.rs`).
//!
//! A webhook's URL is an administrator's setting only: it is set here,
//! checked for an administrator and audited, and nothing a model, a tool
//! or a run says reaches it. Its secret is shown once, when the host makes
//! it, and after that only as its last four characters.

mod deliver;
pub(in crate::app) mod events;
pub mod job;
pub mod signature;
pub mod target;

pub use deliver::DeliveryPass;
pub use events::WebhookEvent;
pub use job::DeliverWebhooks;

use tool_core::DataClass;

use crate::app::{HostError, Jobs};
use crate::store::{DeliveryStatus, StoredDelivery, new_secret};

/// A webhook as an administrator sees it: the secret masked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookView {
    /// Its name.
    pub name: String,
    /// Where deliveries are posted.
    pub url: String,
    /// The secret's last four characters, `…abcd`.
    pub secret_hint: String,
    /// The event types it is sent.
    pub events: Vec<String>,
    /// The most sensitive class of values its payloads carry.
    pub data_class: DataClass,
}

/// What [`Jobs::put_webhook`](crate::app::Jobs::put_webhook) did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookSaved {
    /// The webhook as stored.
    pub view: WebhookView,
    /// The secret the host made for it: shown this once. `None` when the
    /// administrator gave one, or kept the one it had.
    pub new_secret: Option<String>,
}

/// The secret as it may be shown again: its last four characters.
fn hint(secret: &str) -> String {
    let tail: String = secret
        .chars()
        .rev()
        .take(4)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    format!("…{tail}")
}

fn check_name(name: &str) -> Result<(), HostError> {
    let fits = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if fits {
        Ok(())
    } else {
        Err(HostError::Invalid(format!(
            "a webhook's name is 1 to 64 letters, digits, `-` or `_`, not `{name}`"
        )))
    }
}

fn check_url(url: &str) -> Result<String, HostError> {
    let parsed = reqwest::Url::parse(url.trim())
        .map_err(|error| HostError::Invalid(format!("the webhook URL `{url}`: {error}")))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        return Err(HostError::Invalid(format!(
            "the webhook URL `{url}` is not an http or https address"
        )));
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(HostError::Invalid(
            "the webhook URL carries no user or password (the signature authenticates the host)"
                .to_owned(),
        ));
    }
    Ok(parsed.to_string())
}

fn check_events(events: &[String]) -> Result<Vec<String>, HostError> {
    let known = || WebhookEvent::ALL.map(WebhookEvent::name).join(", ");
    if events.is_empty() {
        return Err(HostError::Invalid(format!(
            "a webhook needs at least one event: {}",
            known()
        )));
    }
    let mut checked = Vec::new();
    for event in events {
        let event = event.trim();
        if WebhookEvent::parse(event).is_none() {
            return Err(HostError::Invalid(format!(
                "there is no event `{event}`: {}",
                known()
            )));
        }
        if !checked.iter().any(|e: &String| e == event) {
            checked.push(event.to_owned());
        }
    }
    Ok(checked)
}

impl Jobs<'_> {
    /// Every webhook, secrets masked, for `user`, an administrator.
    pub async fn webhooks(&self, user: &str) -> Result<Vec<WebhookView>, HostError> {
        self.access.require_admin(user, "seeing webhooks").await?;
        Ok(self
            .host
            .store()
            .job_queue()
            .webhooks()
            .await?
            .into_iter()
            .map(|w| WebhookView {
                secret_hint: hint(&w.secret),
                name: w.name,
                url: w.url,
                events: w.events,
                data_class: w.data_class,
            })
            .collect())
    }

    /// Adds webhook `name`, or changes it, as `user`, an administrator:
    /// posted to `url`, sent `events`, signed with `secret`. Without a
    /// secret, a new webhook gets one the host makes (returned this once)
    /// and a changed one keeps its own. Its `data_class` (the most
    /// sensitive values its payloads carry) is kept when not given, and is
    /// `internal` for a new one. Audited (never the secret).
    pub async fn put_webhook(
        &self,
        user: &str,
        name: &str,
        url: &str,
        events: &[String],
        secret: Option<&str>,
        data_class: Option<DataClass>,
    ) -> Result<WebhookSaved, HostError> {
        self.access.administrator(user, "webhooks").await?;
        check_name(name)?;
        let url = check_url(url)?;
        let parsed = reqwest::Url::parse(&url).map_err(|e| HostError::Invalid(e.to_string()))?;
        let targets = self.host.store().job_queue().webhook_targets().await?;
        target::check_url(&parsed, targets)
            .map_err(|why| HostError::Invalid(format!("the webhook URL `{url}`: {why}")))?;
        let events = check_events(events)?;
        let existing = self
            .host
            .store()
            .job_queue()
            .webhooks()
            .await?
            .into_iter()
            .find(|w| w.name == name);
        let data_class = data_class
            .or_else(|| existing.as_ref().map(|w| w.data_class))
            .unwrap_or(DataClass::Internal);
        let (secret, new_secret) = match (secret.map(str::trim), existing) {
            (Some(given), _) if given.len() < 16 => {
                return Err(HostError::Invalid(
                    "a webhook secret has at least 16 characters".to_owned(),
                ));
            }
            (Some(given), _) => (given.to_owned(), None),
            (None, Some(existing)) => (existing.secret, None),
            (None, None) => {
                let made = new_secret();
                (made.clone(), Some(made))
            }
        };
        self.host
            .store()
            .job_queue()
            .put_webhook(name, &url, &secret, &events, data_class)
            .await?;
        self.admin
            .audit_change(
                user,
                "webhooks",
                format!(
                    "webhook {name} = {url} for {}, values up to {data_class} (secret {})",
                    events.join(", "),
                    hint(&secret)
                ),
            )
            .await?;
        Ok(WebhookSaved {
            view: WebhookView {
                name: name.to_owned(),
                url,
                secret_hint: hint(&secret),
                events,
                data_class,
            },
            new_secret,
        })
    }

    /// Removes webhook `name` and its deliveries, as `user`, an
    /// administrator.
    pub async fn remove_webhook(&self, user: &str, name: &str) -> Result<(), HostError> {
        self.access.administrator(user, "webhooks").await?;
        if !self.host.store().job_queue().remove_webhook(name).await? {
            return Err(HostError::Invalid(format!("there is no webhook `{name}`")));
        }
        self.admin
            .audit_change(user, "webhooks", format!("webhook {name} removed"))
            .await
    }

    /// The dead-letter list, newest first (at most `limit`), for `user`,
    /// an administrator: deliveries whose last attempt failed.
    pub async fn dead_deliveries(
        &self,
        user: &str,
        limit: usize,
    ) -> Result<Vec<StoredDelivery>, HostError> {
        self.access
            .require_admin(user, "seeing webhook deliveries")
            .await?;
        Ok(self
            .host
            .store()
            .job_queue()
            .deliveries(DeliveryStatus::Dead, limit)
            .await?)
    }

    /// Puts dead delivery `id` back in the queue, due now with its attempts
    /// counted afresh, as `user`, an administrator. Audited.
    pub async fn retry_delivery(&self, user: &str, id: &str) -> Result<(), HostError> {
        self.access.administrator(user, "webhooks").await?;
        if !self.host.store().job_queue().retry_delivery(id).await? {
            return Err(HostError::Invalid(format!(
                "there is no dead delivery `{id}` (see `webhooks dead`)"
            )));
        }
        self.host
            .store()
            .job_queue()
            .schedule_pass(&job::pass_at(crate::store::now()))
            .await?;
        self.wake_worker();
        self.admin
            .audit_change(user, "webhooks", format!("delivery {id} retried"))
            .await
    }
}
