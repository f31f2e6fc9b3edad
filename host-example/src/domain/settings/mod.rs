//! The host's settings and their schema: every key, the type its value
//! must have (a value is checked by deserializing it into that type, and
//! kept in the type's canonical form), its default, and the values whose
//! types are the host's own ([`values`]). The store keeps a key's JSON
//! and decides nothing about it.

pub mod values;

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::de::DeserializeOwned;
use serde_json::Value;
use tool_core::DataClass;
use tool_core::egress::Site;
use tool_core::gates::{ExposurePolicy, GroupSettings, HostSettings, RunConfig, ToolSettings};
use tool_core::skills::TrustLevel;

use crate::domain::oauth::OAuthSettings;
use crate::domain::origins::WebOrigin;
use crate::domain::skills::UnapprovedSkills;
use crate::model::ModelConfig;
use values::{
    Budgets, Durability, PublicUrl, SessionLifetimes, WebhookDelivery, WebhookTargets,
    WorkerSettings,
};

/// There is no setting by that name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown setting `{key}`; the settings are: {known}")]
pub struct UnknownSetting {
    /// The name given.
    pub key: String,
    /// Every setting's name.
    pub known: String,
}

impl ExposureWindowMinutes {
    /// How long a caller keeps what it read.
    pub fn duration(self) -> std::time::Duration {
        std::time::Duration::from_secs(u64::from(self.0) * 60)
    }
}

impl Default for ExposureWindowMinutes {
    fn default() -> Self {
        ExposureWindowMinutes(DEFAULT_EXPOSURE_WINDOW_MINUTES)
    }
}

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
pub struct ExposureWindowMinutes(u32);

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

    /// The key called `name`, or why there is none.
    pub fn parse(name: &str) -> Result<SettingKey, UnknownSetting> {
        SettingKey::ALL
            .into_iter()
            .find(|key| key.name() == name)
            .ok_or_else(|| UnknownSetting {
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

    /// `json` (JSON text) in its canonical form if it is JSON and fits
    /// this key's type, else why not: what may be stored.
    pub fn check_json(self, json: &str) -> Result<Value, String> {
        let value: Value =
            serde_json::from_str(json).map_err(|error| format!("not valid JSON: {error}"))?;
        self.check(value)
            .map_err(|error| format!("does not fit: {error}"))
    }

    /// `value` in its canonical form if it fits this key's type, else why
    /// not: what was stored, read back.
    pub fn check(self, value: Value) -> Result<Value, serde_json::Error> {
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

/// Each key's check, on its own: what a door's `settings set` would be
/// told, with no database.
#[cfg(test)]
mod tests {
    use super::{SettingKey, UnknownSetting};

    #[test]
    fn an_unknown_key_names_every_known_one() {
        let unknown: UnknownSetting = SettingKey::parse("trust-zone").unwrap_err();
        assert_eq!(unknown.key, "trust-zone");
        assert!(unknown.known.contains("trust_zone"), "{}", unknown.known);
        assert_eq!(unknown.known.split(", ").count(), SettingKey::ALL.len());
    }

    #[test]
    fn every_key_is_found_by_its_name_and_takes_its_default() {
        for key in SettingKey::ALL {
            assert_eq!(SettingKey::parse(key.name()), Ok(key));
            let default = key.default_value();
            assert_eq!(
                key.check(default.clone()).as_ref().ok(),
                Some(&default),
                "{}",
                key.name()
            );
        }
    }

    #[test]
    fn a_value_is_json_of_the_keys_type_or_says_why_not() {
        let key = SettingKey::ExposureWindowMinutes;
        assert_eq!(key.check_json("45"), Ok(serde_json::json!(45)));
        let not_json = key.check_json("forty").unwrap_err();
        assert!(not_json.starts_with("not valid JSON: "), "{not_json}");
        let zero = key.check_json("0").unwrap_err();
        assert!(zero.starts_with("does not fit: the window is"), "{zero}");
        let worker = SettingKey::Worker.check_json(r#"{"concurrency": 65}"#);
        assert!(
            worker
                .unwrap_err()
                .contains("concurrency is a number of jobs from 1 to 64"),
            "the worker's own check"
        );
    }

    #[test]
    fn a_value_is_kept_in_its_types_canonical_form() {
        // Defaults filled in and the URL without its trailing slash.
        assert_eq!(
            SettingKey::Worker.check_json(r#"{"lease_seconds": 60}"#),
            Ok(serde_json::json!({"concurrency": 2, "lease_seconds": 60}))
        );
        assert_eq!(
            SettingKey::PublicUrl.check_json(r#""https://host.example/""#),
            Ok(serde_json::json!("https://host.example"))
        );
    }
}
