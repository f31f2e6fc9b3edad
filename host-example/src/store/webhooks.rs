//! Webhooks and their deliveries: the administrator's webhooks (URL,
//! secret, events) and one row per event to deliver to each, pending until
//! delivered or dead (the dead-letter list). What is sent, when and how
//! often is the app layer's (`app::webhooks`); this is storage only.

use crate::store::JobQueue;
use argon2::password_hash::rand_core::{OsRng, RngCore};
use sqlx::any::AnyRow;
use sqlx::{Any, Row, Transaction};
use tool_core::DataClass;

use super::jobs::{NewJob, insert_job};
use super::users::hex;
use super::{PublicUrl, StoreError, WebhookDelivery, WebhookTargets, now};

/// A webhook as stored, its secret whole (the app layer masks it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredWebhook {
    /// Its name, chosen by the administrator.
    pub name: String,
    /// Where deliveries are posted.
    pub url: String,
    /// The HMAC key deliveries are signed with.
    pub secret: String,
    /// The event types it is sent.
    pub events: Vec<String>,
    /// The most sensitive class of values its payloads carry; values
    /// above it are left out.
    pub data_class: DataClass,
    /// When it was added (seconds since the Unix epoch).
    pub created_at: i64,
    /// When it was last changed.
    pub updated_at: i64,
}

/// Where a delivery stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeliveryStatus {
    /// Waiting for its next attempt.
    Pending,
    /// The receiver answered 2xx.
    Delivered,
    /// Its last attempt failed: in the dead-letter list.
    Dead,
}

impl DeliveryStatus {
    /// Its word in the `status` column.
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryStatus::Pending => "pending",
            DeliveryStatus::Delivered => "delivered",
            DeliveryStatus::Dead => "dead",
        }
    }

    fn parse(word: &str) -> DeliveryStatus {
        match word {
            "pending" => DeliveryStatus::Pending,
            "delivered" => DeliveryStatus::Delivered,
            _ => DeliveryStatus::Dead,
        }
    }
}

/// One event to deliver to one webhook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredDelivery {
    /// Its position: a webhook's deliveries go out in this order.
    pub seq: i64,
    /// Its id (random hex).
    pub id: String,
    /// The webhook's name.
    pub webhook: String,
    /// The event's id, the same for every webhook sent it and every
    /// attempt (a receiver's idempotency key).
    pub event_id: String,
    /// The event type.
    pub event: String,
    /// The exact JSON body sent and signed.
    pub body: String,
    /// Where it stands.
    pub status: DeliveryStatus,
    /// Attempts made.
    pub attempts: u32,
    /// When it is due next (pending), or was last tried.
    pub next_attempt_at: i64,
    /// Why the last attempt failed.
    pub last_error: Option<String>,
    /// When the event happened.
    pub created_at: i64,
    /// When it last changed.
    pub updated_at: i64,
}

const DELIVERY_COLUMNS: &str = "seq, id, webhook, event_id, event, body, status, attempts, \
     next_attempt_at, last_error, created_at, updated_at";

impl StoredDelivery {
    fn from_row(row: &AnyRow) -> Result<StoredDelivery, StoreError> {
        let status: String = row.try_get("status")?;
        let attempts: i64 = row.try_get("attempts")?;
        Ok(StoredDelivery {
            seq: row.try_get("seq")?,
            id: row.try_get("id")?,
            webhook: row.try_get("webhook")?,
            event_id: row.try_get("event_id")?,
            event: row.try_get("event")?,
            body: row.try_get("body")?,
            status: DeliveryStatus::parse(&status),
            attempts: u32::try_from(attempts).unwrap_or(u32::MAX),
            next_attempt_at: row.try_get("next_attempt_at")?,
            last_error: row.try_get("last_error")?,
            created_at: row.try_get("created_at")?,
            updated_at: row.try_get("updated_at")?,
        })
    }
}

/// 16 random bytes in hex: a delivery's or an event's id.
pub fn random_id() -> String {
    let mut bytes = [0u8; 16];
    OsRng.fill_bytes(&mut bytes);
    hex(&bytes)
}

/// A new webhook secret: `whsec_` and 32 random bytes in hex.
pub fn new_secret() -> String {
    let mut bytes = [0u8; 32];
    OsRng.fill_bytes(&mut bytes);
    format!("whsec_{}", hex(&bytes))
}

impl JobQueue<'_> {
    /// Adds webhook `name`, or replaces its URL, secret and events.
    pub async fn put_webhook(
        &self,
        name: &str,
        url: &str,
        secret: &str,
        events: &[String],
        data_class: DataClass,
    ) -> Result<(), StoreError> {
        let events = serde_json::to_string(events).unwrap_or_else(|_| "[]".to_owned());
        sqlx::query(
            "INSERT INTO webhooks (name, url, secret, events, data_class, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $6)
             ON CONFLICT (name) DO UPDATE SET url = excluded.url, secret = excluded.secret,
                 events = excluded.events, data_class = excluded.data_class,
                 updated_at = excluded.updated_at",
        )
        .bind(name)
        .bind(url)
        .bind(secret)
        .bind(events)
        .bind(data_class.to_string())
        .bind(now())
        .execute(&self.store.pool)
        .await?;
        Ok(())
    }

    /// Every webhook, by name.
    pub async fn webhooks(&self) -> Result<Vec<StoredWebhook>, StoreError> {
        let rows = sqlx::query(
            "SELECT name, url, secret, events, data_class, created_at, updated_at FROM webhooks
             ORDER BY name",
        )
        .fetch_all(&self.store.pool)
        .await?;
        rows.iter()
            .map(|row| {
                let name: String = row.try_get("name")?;
                let events: String = row.try_get("events")?;
                let events =
                    serde_json::from_str(&events).map_err(|error| StoreError::Corrupt {
                        what: format!("webhook `{name}`'s events"),
                        reason: error.to_string(),
                    })?;
                let class: String = row.try_get("data_class")?;
                let data_class = class.parse().map_err(|reason| StoreError::Corrupt {
                    what: format!("webhook `{name}`'s data class"),
                    reason,
                })?;
                Ok(StoredWebhook {
                    name,
                    url: row.try_get("url")?,
                    secret: row.try_get("secret")?,
                    events,
                    data_class,
                    created_at: row.try_get("created_at")?,
                    updated_at: row.try_get("updated_at")?,
                })
            })
            .collect()
    }

    /// Removes webhook `name` and its deliveries; whether it existed.
    pub async fn remove_webhook(&self, name: &str) -> Result<bool, StoreError> {
        let mut tx = self.store.begin_write().await?;
        sqlx::query("DELETE FROM webhook_deliveries WHERE webhook = $1")
            .bind(name)
            .execute(&mut *tx)
            .await?;
        let removed = sqlx::query("DELETE FROM webhooks WHERE name = $1")
            .bind(name)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        tx.commit().await?;
        Ok(removed > 0)
    }

    /// Queues the event `event_id` of type `event` for each `(webhook,
    /// body)` of `deliveries` (each webhook its own body: what its data
    /// class lets it carry), due now, in one transaction; how many.
    ///
    /// `pass` is the job that will deliver them, stored in the same
    /// transaction unless a queued job of its kind is due by then already.
    pub async fn enqueue_deliveries(
        &self,
        deliveries: &[(String, String)],
        event_id: &str,
        event: &str,
        pass: &NewJob,
    ) -> Result<usize, StoreError> {
        if deliveries.is_empty() {
            return Ok(0);
        }
        let at = now();
        let mut tx = self.store.begin_write().await?;
        for (webhook, body) in deliveries {
            sqlx::query(
                "INSERT INTO webhook_deliveries (id, webhook, event_id, event, body, status,
                     attempts, next_attempt_at, created_at, updated_at)
                 VALUES ($1, $2, $3, $4, $5, 'pending', 0, $6, $6, $6)",
            )
            .bind(random_id())
            .bind(webhook.as_str())
            .bind(event_id)
            .bind(event)
            .bind(body)
            .bind(at)
            .execute(&mut *tx)
            .await?;
        }
        schedule_in(&mut tx, pass).await?;
        tx.commit().await?;
        Ok(deliveries.len())
    }

    /// Stores `pass`, the job that delivers what is due, unless a queued
    /// job of its kind will run by its time already.
    pub async fn schedule_pass(&self, pass: &NewJob) -> Result<(), StoreError> {
        let mut tx = self.store.begin_write().await?;
        schedule_in(&mut tx, pass).await?;
        tx.commit().await?;
        Ok(())
    }

    /// When the next pending delivery is due, if one is pending.
    pub async fn next_delivery_due(&self) -> Result<Option<i64>, StoreError> {
        let row = sqlx::query(
            "SELECT MIN(next_attempt_at) AS due FROM webhook_deliveries WHERE status = 'pending'",
        )
        .fetch_one(&self.store.pool)
        .await?;
        Ok(row.try_get::<Option<i64>, _>("due")?)
    }

    /// The deliveries due at `at`: each webhook's oldest pending one, when
    /// its next attempt is due (a later event never overtakes an earlier
    /// one of the same webhook).
    pub async fn due_deliveries(&self, at: i64) -> Result<Vec<StoredDelivery>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {DELIVERY_COLUMNS} FROM webhook_deliveries d
             WHERE status = 'pending' AND next_attempt_at <= $1
               AND seq = (SELECT MIN(seq) FROM webhook_deliveries o
                          WHERE o.webhook = d.webhook AND o.status = 'pending')
             ORDER BY seq"
        ))
        .bind(at)
        .fetch_all(&self.store.pool)
        .await?;
        rows.iter().map(StoredDelivery::from_row).collect()
    }

    /// Takes delivery `id` for an attempt, if it is still pending and due
    /// as `seen` (its `next_attempt_at` when read): a compare-and-set, so
    /// one process tries it; while it tries, it is due again only at
    /// `until`.
    pub async fn claim_delivery(
        &self,
        id: &str,
        seen: i64,
        until: i64,
    ) -> Result<bool, StoreError> {
        let taken = sqlx::query(
            "UPDATE webhook_deliveries SET next_attempt_at = $3, updated_at = $4
             WHERE id = $1 AND status = 'pending' AND next_attempt_at = $2",
        )
        .bind(id)
        .bind(seen)
        .bind(until)
        .bind(now())
        .execute(&self.store.pool)
        .await?
        .rows_affected();
        Ok(taken == 1)
    }

    /// Records an attempt at delivery `id`, its `attempts`-th: delivered
    /// (`error` is `None`), due again at `retry_at`, or dead.
    pub async fn record_attempt(
        &self,
        id: &str,
        attempts: u32,
        error: Option<&str>,
        retry_at: Option<i64>,
    ) -> Result<(), StoreError> {
        let at = now();
        let status = match (error, retry_at) {
            (None, _) => DeliveryStatus::Delivered,
            (Some(_), Some(_)) => DeliveryStatus::Pending,
            (Some(_), None) => DeliveryStatus::Dead,
        };
        sqlx::query(
            "UPDATE webhook_deliveries SET status = $2, attempts = $3, last_error = $4,
                 next_attempt_at = $5, updated_at = $6
             WHERE id = $1",
        )
        .bind(id)
        .bind(status.as_str())
        .bind(i64::from(attempts))
        .bind(error)
        .bind(retry_at.unwrap_or(at))
        .bind(at)
        .execute(&self.store.pool)
        .await?;
        Ok(())
    }

    /// Deliveries with `status`, newest first, at most `limit`.
    pub async fn deliveries(
        &self,
        status: DeliveryStatus,
        limit: usize,
    ) -> Result<Vec<StoredDelivery>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {DELIVERY_COLUMNS} FROM webhook_deliveries WHERE status = $1
             ORDER BY seq DESC LIMIT $2"
        ))
        .bind(status.as_str())
        .bind(i64::try_from(limit).unwrap_or(i64::MAX))
        .fetch_all(&self.store.pool)
        .await?;
        rows.iter().map(StoredDelivery::from_row).collect()
    }

    /// Puts dead delivery `id` back in the queue, due now, its attempts
    /// counted afresh; whether it was dead.
    pub async fn retry_delivery(&self, id: &str) -> Result<bool, StoreError> {
        let at = now();
        let retried = sqlx::query(
            "UPDATE webhook_deliveries SET status = 'pending', attempts = 0,
                 next_attempt_at = $2, updated_at = $2
             WHERE id = $1 AND status = 'dead'",
        )
        .bind(id)
        .bind(at)
        .execute(&self.store.pool)
        .await?
        .rows_affected();
        Ok(retried == 1)
    }
}

impl JobQueue<'_> {
    /// The `webhook_targets` setting.
    pub async fn webhook_targets(&self) -> Result<WebhookTargets, StoreError> {
        Ok(self
            .store
            .config()
            .setting(super::SettingKey::WebhookTargets)
            .await?
            .unwrap_or_default())
    }

    /// The `webhook_delivery` setting.
    pub async fn webhook_delivery(&self) -> Result<WebhookDelivery, StoreError> {
        Ok(self
            .store
            .config()
            .setting(super::SettingKey::WebhookDelivery)
            .await?
            .unwrap_or_default())
    }

    /// The `public_url` setting, if set.
    pub async fn public_url(&self) -> Result<Option<PublicUrl>, StoreError> {
        Ok(self
            .store
            .config()
            .setting(super::SettingKey::PublicUrl)
            .await?
            .flatten())
    }
}

/// Stores `pass` inside `tx` unless a queued job of its kind runs by its
/// time already (a running one may have read the queue before this
/// transaction, so it does not count).
async fn schedule_in(tx: &mut Transaction<'static, Any>, pass: &NewJob) -> Result<(), StoreError> {
    let queued = sqlx::query(
        "SELECT COUNT(*) AS n FROM jobs WHERE kind = $1 AND status = 'queued' AND run_after_ms <= $2",
    )
    .bind(pass.kind.as_str())
    .bind(pass.run_after_ms)
    .fetch_one(&mut **tx)
    .await?
    .try_get::<i64, _>("n")?;
    if queued == 0 {
        insert_job(tx, pass).await?;
    }
    Ok(())
}
