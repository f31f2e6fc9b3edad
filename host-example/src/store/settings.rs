//! The host's settings kept: a key/value table of JSON values, each key
//! typed by its schema in [`crate::domain::settings`].
//!
//! A value is checked by the schema before it is stored, and read back
//! through the same type; a stored value that no longer parses is a
//! one-line [`StoreError::Corrupt`] naming the key.

use crate::store::Config;
use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::de::DeserializeOwned;
use serde_json::Value;
use sqlx::{Any, Row, Transaction};
use tool_core::DataClass;
use tool_core::gates::{HostSettings, RunConfig};

use super::{
    Budgets, OAuthSettings, SessionLifetimes, SettingKey, SettingValue, UnapprovedSkills,
    WebOrigin, WorkerSettings,
};
use super::{StoreError, now};
use crate::domain::settings::ExposureWindowMinutes;
use crate::model::ModelConfig;

impl Config<'_> {
    /// Checks `json` (JSON text) against `key`'s type and stores it;
    /// nothing is stored if it does not fit.
    ///
    /// # Errors
    ///
    /// [`StoreError::UnknownSetting`], or [`StoreError::InvalidSetting`]
    /// saying why the value does not fit.
    pub async fn set_setting(&self, key: &str, json: &str) -> Result<Value, StoreError> {
        let key = SettingKey::parse(key)?;
        let value = key
            .check_json(json)
            .map_err(|reason| StoreError::InvalidSetting {
                key: key.name(),
                reason,
            })?;
        let mut tx = self.store.begin_write().await?;
        write_setting(&mut tx, key, &value).await?;
        bump_generation(&mut tx).await?;
        tx.commit().await?;
        Ok(value)
    }

    /// Stores the gates' settings (group and tool switches, sites, the
    /// skill trust floor) in one transaction; returns the new settings
    /// generation.
    pub async fn save_host_settings(&self, host: &HostSettings) -> Result<u64, StoreError> {
        let values = [
            (SettingKey::Groups, serde_json::to_value(&host.groups)),
            (SettingKey::Tools, serde_json::to_value(&host.tools)),
            (SettingKey::Sites, serde_json::to_value(&host.sites)),
            (
                SettingKey::SkillTrustFloor,
                serde_json::to_value(host.skill_trust_floor),
            ),
            (SettingKey::Exposure, serde_json::to_value(&host.exposure)),
        ];
        let mut tx = self.store.begin_write().await?;
        for (key, value) in values {
            let value = value.map_err(|error| StoreError::InvalidSetting {
                key: key.name(),
                reason: error.to_string(),
            })?;
            write_setting(&mut tx, key, &value).await?;
        }
        let generation = bump_generation(&mut tx).await?;
        tx.commit().await?;
        Ok(generation)
    }

    /// The settings generation: it grows with every settings write, by any
    /// process sharing the database, so one read tells whether the
    /// settings changed.
    pub async fn settings_generation(&self) -> Result<u64, StoreError> {
        let mut connection = self.store.statement_connection().await?;
        let row = sqlx::query("SELECT generation FROM settings_generation WHERE id = 1")
            .fetch_one(&mut *connection)
            .await;
        let row = connection.finish(row)?;
        Ok(u64::try_from(row.try_get::<i64, _>("generation")?).unwrap_or(0))
    }

    /// The `budgets` setting.
    pub async fn budgets(&self) -> Result<Budgets, StoreError> {
        Ok(self.setting(SettingKey::Budgets).await?.unwrap_or_default())
    }

    /// The stored value of `key` as `T`, `None` when unset.
    pub(super) async fn setting<T: DeserializeOwned>(
        &self,
        key: SettingKey,
    ) -> Result<Option<T>, StoreError> {
        let row = sqlx::query("SELECT value FROM settings WHERE key = $1")
            .bind(key.name())
            .fetch_optional(&self.store.pool)
            .await?;
        let Some(row) = row else { return Ok(None) };
        let text: String = row.try_get("value")?;
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|error| StoreError::Corrupt {
                what: format!("setting `{}` (set it again)", key.name()),
                reason: error.to_string(),
            })
    }

    /// Every setting with the value in effect, each checked against its
    /// type.
    pub async fn settings(&self) -> Result<Vec<SettingValue>, StoreError> {
        let mut all = Vec::new();
        for key in SettingKey::ALL {
            let stored: Option<Value> = self.setting(key).await?;
            let checked = match stored {
                Some(value) => Some(key.check(value).map_err(|error| StoreError::Corrupt {
                    what: format!("setting `{}`", key.name()),
                    reason: error.to_string(),
                })?),
                None => None,
            };
            all.push(SettingValue {
                key,
                is_default: checked.is_none(),
                value: checked.unwrap_or_else(|| key.default_value()),
            });
        }
        Ok(all)
    }

    /// The gates' settings: group and tool switches, egress sites and the
    /// skill trust floor.
    pub async fn host_settings(&self) -> Result<HostSettings, StoreError> {
        Ok(HostSettings {
            groups: self.setting(SettingKey::Groups).await?.unwrap_or_default(),
            tools: self.setting(SettingKey::Tools).await?.unwrap_or_default(),
            sites: self.setting(SettingKey::Sites).await?.unwrap_or_default(),
            skill_trust_floor: self
                .setting(SettingKey::SkillTrustFloor)
                .await?
                .unwrap_or_default(),
            exposure: self
                .setting(SettingKey::Exposure)
                .await?
                .unwrap_or_default(),
        })
    }

    /// How long an MCP caller without a session keeps what it read.
    pub async fn exposure_window(&self) -> Result<std::time::Duration, StoreError> {
        Ok(self
            .setting::<ExposureWindowMinutes>(SettingKey::ExposureWindowMinutes)
            .await?
            .unwrap_or_default()
            .duration())
    }

    /// How long a browser session lasts.
    pub async fn session_lifetimes(&self) -> Result<SessionLifetimes, StoreError> {
        Ok(self
            .setting(SettingKey::BrowserSessions)
            .await?
            .unwrap_or_default())
    }

    /// The background worker's setting.
    pub async fn worker_settings(&self) -> Result<WorkerSettings, StoreError> {
        Ok(self.setting(SettingKey::Worker).await?.unwrap_or_default())
    }

    /// Whether tool results reach the model marked as data.
    pub async fn mark_tool_results(&self) -> Result<bool, StoreError> {
        Ok(self
            .setting(SettingKey::MarkToolResults)
            .await?
            .unwrap_or(true))
    }

    /// The trust-zone ceiling of the model provider (`internal` unless set).
    pub async fn trust_zone(&self) -> Result<DataClass, StoreError> {
        Ok(self
            .setting(SettingKey::TrustZone)
            .await?
            .unwrap_or(RunConfig::default().trust_zone))
    }

    /// The folders holding skill folders.
    pub async fn skills_folders(&self) -> Result<Vec<PathBuf>, StoreError> {
        Ok(self
            .setting(SettingKey::SkillsFolders)
            .await?
            .unwrap_or_default())
    }

    /// What runs do with a skill no administrator approved.
    pub async fn unapproved_skills(&self) -> Result<UnapprovedSkills, StoreError> {
        Ok(self
            .setting(SettingKey::UnapprovedSkills)
            .await?
            .unwrap_or_default())
    }

    /// The OAuth issuer MCP over HTTP accepts tokens of, if one is set.
    pub async fn oauth_settings(&self) -> Result<Option<OAuthSettings>, StoreError> {
        Ok(self.setting(SettingKey::OAuth).await?.flatten())
    }

    /// The browser origins admitted besides the server's own.
    pub async fn allowed_origins(&self) -> Result<Vec<WebOrigin>, StoreError> {
        Ok(self
            .setting(SettingKey::AllowedOrigins)
            .await?
            .unwrap_or_default())
    }

    /// The reverse proxies whose `X-Forwarded-For` is believed.
    pub async fn trusted_proxies(&self) -> Result<Vec<std::net::IpAddr>, StoreError> {
        Ok(self
            .setting(SettingKey::TrustedProxies)
            .await?
            .unwrap_or_default())
    }

    /// The model configuration, if one is set.
    pub async fn model_config(&self) -> Result<Option<ModelConfig>, StoreError> {
        Ok(self.setting(SettingKey::Model).await?.flatten())
    }

    /// The further model configurations, by name (setting `models`).
    pub async fn model_configs(&self) -> Result<BTreeMap<String, ModelConfig>, StoreError> {
        Ok(self.setting(SettingKey::Models).await?.unwrap_or_default())
    }

    /// The model configuration called `name` (setting `models`), or the
    /// `model` setting for `None`.
    pub async fn model_config_named(
        &self,
        name: Option<&str>,
    ) -> Result<Option<ModelConfig>, StoreError> {
        match name {
            None => self.model_config().await,
            Some(name) => Ok(self.model_configs().await?.remove(name)),
        }
    }
}

async fn write_setting(
    tx: &mut Transaction<'static, Any>,
    key: SettingKey,
    value: &Value,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO settings (key, value, updated_at) VALUES ($1, $2, $3)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
    )
    .bind(key.name())
    .bind(value.to_string())
    .bind(now())
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Bumps the settings generation inside the transaction that wrote them,
/// so no process sees new settings under an old generation for long.
async fn bump_generation(tx: &mut Transaction<'static, Any>) -> Result<u64, StoreError> {
    let row = sqlx::query(
        "UPDATE settings_generation SET generation = generation + 1 WHERE id = 1
         RETURNING generation",
    )
    .fetch_one(&mut **tx)
    .await?;
    Ok(u64::try_from(row.try_get::<i64, _>("generation")?).unwrap_or(0))
}
