//! The host's settings: a key/value table of JSON values, each key typed.
//!
//! A value is checked by deserializing it into its key's type before it is
//! stored, and read back through the same type; a stored value that no
//! longer parses is a one-line [`StoreError::Corrupt`] naming the key.

use crate::store::Config;
use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::de::DeserializeOwned;
use serde_json::Value;
use sqlx::{Any, Row, Transaction};
use tool_core::DataClass;
use tool_core::egress::Site;
use tool_core::gates::{ExposurePolicy, GroupSettings, HostSettings, RunConfig, ToolSettings};
use tool_core::skills::TrustLevel;

use super::browser_sessions::SessionLifetimes;
use super::budgets::Budgets;
use super::jobs::WorkerSettings;
use super::webhooks::{PublicUrl, WebhookDelivery, WebhookTargets};
use super::{Durability, OAuthSettings, UnapprovedSkills, WebOrigin};
use super::{StoreError, now};
use crate::model::ModelConfig;

/// A setting the host knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SettingKey {
    /// Per-group switches and egress: `{"system": {"state": "disabled"}}`.
    Groups,
    /// Per-tool switches: `{"get_env": {"state": "enabled"}}`.
    Tools,
    /// The host's own sites, the egress targets: `["https://www.example.com"]`.
    Sites,
    /// Skills trusted less than this are not effective: `2`.
    SkillTrustFloor,
    /// The most sensitive data class the model may see: `"internal"`.
    TrustZone,
    /// Folders holding skill folders: `["/srv/skills"]`.
    SkillsFolders,
    /// The model behind the agent (a `ModelConfig`), or `null`.
    Model,
    /// Further model configurations a run may pick by name:
    /// `{"large": {"base_url": …, "model": …}}`.
    Models,
    /// What runs do with a skill no administrator approved: `"refuse"`
    /// (the default) or `"allow"`.
    UnapprovedSkills,
    /// The OAuth issuer whose access tokens MCP over HTTP accepts (an
    /// `OAuthSettings`), or `null`.
    OAuth,
    /// What a raised exposure takes away (gate 9, docs/exposure.md):
    /// `{"enabled": true, "egress_after_data": "confidential",
    /// "egress_after_untrusted": true, "writes_after_untrusted": "others"}`.
    Exposure,
    /// How long an MCP caller without a session keeps what it read, in
    /// minutes since its last raised exposure: `30`.
    ExposureWindowMinutes,
    /// Whether tool results reach the model marked as data: `true`.
    MarkToolResults,
    /// Browser origins besides the server's own that may send requests to
    /// `/mcp` and the pages' forms: `["https://app.example.com"]`.
    AllowedOrigins,
    /// Addresses of reverse proxies whose `X-Forwarded-For` names the
    /// client a sign-in is throttled by: `["127.0.0.1"]`.
    TrustedProxies,
    /// What each user may spend per day and month (tokens, estimated
    /// cost), with a default for all: `{"default": {"tokens_per_day":
    /// 100000}, "users": {"petra": {"tokens_per_day": 1000}}}`.
    Budgets,
    /// When a SQLite commit reaches the disk: `"normal"` (the default: a
    /// commit survives a crash of the host, the last ones may be lost on
    /// power loss) or `"full"` (every commit flushed). Read when a
    /// process opens the database; PostgreSQL ignores it.
    Durability,
    /// How long a browser session lasts: `{"idle_seconds": 3600,
    /// "lifetime_seconds": 43200}` (the default). Read at every use of a
    /// session, so a shorter value ends older sessions at once.
    BrowserSessions,
    /// The address people reach the host's pages at, for links that leave
    /// the host (webhooks' links to the inbox): `"https://host.example"`,
    /// or `null` (the default: no links).
    PublicUrl,
    /// How webhook deliveries are tried: `{"attempts": 8,
    /// "backoff_seconds": [10, 30, 120, 600, 1800, 3600, 10800],
    /// "timeout_seconds": 10}` (the default).
    WebhookDelivery,
    /// Where webhooks may be pointed: `{"allow_local_network": false}`
    /// (the default): never link-local or metadata addresses; loopback
    /// and private ones only when allowed.
    WebhookTargets,
    /// The background worker: `{"concurrency": 2, "lease_seconds": 30}`
    /// (the default): jobs one process runs at once, and how long a
    /// process's hold on a job or a run lasts unless renewed. Read at every
    /// turn of the worker and every lease taken.
    Worker,
}

/// The window of [`SettingKey::ExposureWindowMinutes`] when none is set.
pub const DEFAULT_EXPOSURE_WINDOW_MINUTES: u32 = 30;

/// A window of 1 minute to 30 days: a window of 0 would forget at once
/// what a caller read, which gate 9 must not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(transparent)]
struct ExposureWindowMinutes(u32);

impl<'de> serde::Deserialize<'de> for ExposureWindowMinutes {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let minutes = u32::deserialize(deserializer)?;
        if (1..=30 * 24 * 60).contains(&minutes) {
            Ok(ExposureWindowMinutes(minutes))
        } else {
            Err(serde::de::Error::custom(
                "the window is a number of minutes from 1 to 43200 (30 days)",
            ))
        }
    }
}

impl SettingKey {
    /// Every setting, in the order `settings show` lists them.
    pub const ALL: [SettingKey; 22] = [
        SettingKey::Groups,
        SettingKey::Tools,
        SettingKey::Sites,
        SettingKey::SkillTrustFloor,
        SettingKey::TrustZone,
        SettingKey::SkillsFolders,
        SettingKey::Model,
        SettingKey::Models,
        SettingKey::UnapprovedSkills,
        SettingKey::OAuth,
        SettingKey::Exposure,
        SettingKey::ExposureWindowMinutes,
        SettingKey::MarkToolResults,
        SettingKey::AllowedOrigins,
        SettingKey::TrustedProxies,
        SettingKey::Budgets,
        SettingKey::Durability,
        SettingKey::BrowserSessions,
        SettingKey::PublicUrl,
        SettingKey::WebhookDelivery,
        SettingKey::WebhookTargets,
        SettingKey::Worker,
    ];

    /// Its name in the table and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            SettingKey::Groups => "groups",
            SettingKey::Tools => "tools",
            SettingKey::Sites => "sites",
            SettingKey::SkillTrustFloor => "skill_trust_floor",
            SettingKey::TrustZone => "trust_zone",
            SettingKey::SkillsFolders => "skills_folders",
            SettingKey::Model => "model",
            SettingKey::Models => "models",
            SettingKey::UnapprovedSkills => "unapproved_skills",
            SettingKey::OAuth => "oauth",
            SettingKey::Exposure => "exposure",
            SettingKey::ExposureWindowMinutes => "exposure_window_minutes",
            SettingKey::MarkToolResults => "mark_tool_results",
            SettingKey::AllowedOrigins => "allowed_origins",
            SettingKey::TrustedProxies => "trusted_proxies",
            SettingKey::Budgets => "budgets",
            SettingKey::Durability => "durability",
            SettingKey::BrowserSessions => "browser_sessions",
            SettingKey::PublicUrl => "public_url",
            SettingKey::WebhookDelivery => "webhook_delivery",
            SettingKey::WebhookTargets => "webhook_targets",
            SettingKey::Worker => "worker",
        }
    }

    /// The key called `name`, or [`StoreError::UnknownSetting`].
    pub fn parse(name: &str) -> Result<SettingKey, StoreError> {
        SettingKey::ALL
            .into_iter()
            .find(|key| key.name() == name)
            .ok_or_else(|| StoreError::UnknownSetting {
                key: name.to_owned(),
                known: SettingKey::ALL.map(SettingKey::name).join(", "),
            })
    }

    /// Its value when none is stored.
    pub fn default_value(self) -> Value {
        let settings = HostSettings::default();
        let value = match self {
            SettingKey::Groups => serde_json::to_value(settings.groups),
            SettingKey::Tools => serde_json::to_value(settings.tools),
            SettingKey::Sites => serde_json::to_value(settings.sites),
            SettingKey::SkillTrustFloor => serde_json::to_value(settings.skill_trust_floor),
            SettingKey::TrustZone => serde_json::to_value(RunConfig::default().trust_zone),
            SettingKey::SkillsFolders | SettingKey::AllowedOrigins | SettingKey::TrustedProxies => {
                Ok(Value::Array(Vec::new()))
            }
            SettingKey::Model | SettingKey::OAuth | SettingKey::PublicUrl => Ok(Value::Null),
            SettingKey::Models => Ok(Value::Object(serde_json::Map::new())),
            SettingKey::UnapprovedSkills => serde_json::to_value(UnapprovedSkills::default()),
            SettingKey::Exposure => serde_json::to_value(settings.exposure),
            SettingKey::ExposureWindowMinutes => Ok(Value::from(DEFAULT_EXPOSURE_WINDOW_MINUTES)),
            SettingKey::MarkToolResults => Ok(Value::Bool(true)),
            SettingKey::Budgets => serde_json::to_value(Budgets::default()),
            SettingKey::Durability => serde_json::to_value(Durability::default()),
            SettingKey::BrowserSessions => serde_json::to_value(SessionLifetimes::default()),
            SettingKey::WebhookDelivery => serde_json::to_value(WebhookDelivery::default()),
            SettingKey::WebhookTargets => serde_json::to_value(WebhookTargets::default()),
            SettingKey::Worker => serde_json::to_value(WorkerSettings::default()),
        };
        value.expect("defaults serialize")
    }

    /// `value` in its canonical form if it fits this key's type, else why
    /// not.
    fn check(self, value: Value) -> Result<Value, serde_json::Error> {
        fn canonical<T: DeserializeOwned + serde::Serialize>(
            value: Value,
        ) -> Result<Value, serde_json::Error> {
            serde_json::to_value(serde_json::from_value::<T>(value)?)
        }
        match self {
            SettingKey::Groups => canonical::<BTreeMap<String, GroupSettings>>(value),
            SettingKey::Tools => canonical::<BTreeMap<String, ToolSettings>>(value),
            SettingKey::Sites => canonical::<Vec<Site>>(value),
            SettingKey::SkillTrustFloor => canonical::<TrustLevel>(value),
            SettingKey::TrustZone => canonical::<DataClass>(value),
            SettingKey::SkillsFolders => canonical::<Vec<PathBuf>>(value),
            SettingKey::Model => canonical::<Option<ModelConfig>>(value),
            SettingKey::Models => canonical::<BTreeMap<String, ModelConfig>>(value),
            SettingKey::UnapprovedSkills => canonical::<UnapprovedSkills>(value),
            SettingKey::OAuth => canonical::<Option<OAuthSettings>>(value),
            SettingKey::Exposure => canonical::<ExposurePolicy>(value),
            SettingKey::ExposureWindowMinutes => canonical::<ExposureWindowMinutes>(value),
            SettingKey::MarkToolResults => canonical::<bool>(value),
            SettingKey::AllowedOrigins => canonical::<Vec<WebOrigin>>(value),
            SettingKey::TrustedProxies => canonical::<Vec<std::net::IpAddr>>(value),
            SettingKey::Budgets => canonical::<Budgets>(value),
            SettingKey::Durability => canonical::<Durability>(value),
            SettingKey::BrowserSessions => canonical::<SessionLifetimes>(value),
            SettingKey::PublicUrl => canonical::<Option<PublicUrl>>(value),
            SettingKey::WebhookDelivery => canonical::<WebhookDelivery>(value),
            SettingKey::WebhookTargets => canonical::<WebhookTargets>(value),
            SettingKey::Worker => canonical::<WorkerSettings>(value),
        }
    }
}

/// One setting as `settings show` prints it.
#[derive(Debug, Clone, PartialEq)]
pub struct SettingValue {
    /// Which.
    pub key: SettingKey,
    /// The value in effect: the stored one, or the default.
    pub value: Value,
    /// Whether nothing is stored and `value` is the default.
    pub is_default: bool,
}

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
        let invalid = |reason: String| StoreError::InvalidSetting {
            key: key.name(),
            reason,
        };
        let value: Value = serde_json::from_str(json)
            .map_err(|error| invalid(format!("not valid JSON: {error}")))?;
        let value = key
            .check(value)
            .map_err(|error| invalid(format!("does not fit: {error}")))?;
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
        let minutes = self
            .setting::<ExposureWindowMinutes>(SettingKey::ExposureWindowMinutes)
            .await?
            .map_or(DEFAULT_EXPOSURE_WINDOW_MINUTES, |window| window.0);
        Ok(std::time::Duration::from_secs(u64::from(minutes) * 60))
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
