//! The values of settings whose types are the host's own, each checked
//! whole as it is deserialized: what users may spend, when a SQLite
//! commit reaches the disk, how long a browser session lasts, how
//! webhooks are delivered and where they may point, and the worker.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One user's limits; each `None` is no limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Tokens (read and written) per day (UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_per_day: Option<u64>,
    /// Tokens per calendar month (UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_per_month: Option<u64>,
    /// Estimated cost per day, in the model configurations' currency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_per_day: Option<f64>,
    /// Estimated cost per calendar month.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_per_month: Option<f64>,
}

/// The `budgets` setting: a default for everyone, and users' own limits,
/// each replacing the default whole.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Budgets {
    /// Everyone's limits unless their own are set.
    #[serde(default)]
    pub default: Limits,
    /// By user name.
    #[serde(default)]
    pub users: BTreeMap<String, Limits>,
}

impl Budgets {
    /// `user`'s limits: their own, or the default.
    pub fn of(&self, user: &str) -> Limits {
        self.users.get(user).copied().unwrap_or(self.default)
    }
}

/// What runs have spent.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Spending {
    /// Tokens read and written.
    pub tokens: u64,
    /// Estimated cost (runs without prices count nothing).
    pub cost: f64,
}

/// When a SQLite commit reaches the disk (the setting `durability`, read
/// when a process opens the database).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Durability {
    /// `synchronous = NORMAL`: a commit survives a crash of the host
    /// process; the last commits before a power loss or an operating
    /// system crash may be lost, never the database's consistency. The
    /// write-ahead log is flushed at each checkpoint, not at each commit.
    #[default]
    Normal,
    /// `synchronous = FULL`: every commit is flushed to the disk before
    /// it returns.
    Full,
}

/// How long a browser session lasts (setting `browser_sessions`): it ends
/// when it has not been used for `idle_seconds`, and `lifetime_seconds`
/// after it began however much it is used. Each from 1 second to 30 days.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct SessionLifetimes {
    /// The longest time between two uses.
    pub idle_seconds: i64,
    /// The longest time from sign-in.
    pub lifetime_seconds: i64,
}

impl Default for SessionLifetimes {
    /// One hour idle, twelve hours in all (docs/decisions.md says why).
    fn default() -> SessionLifetimes {
        SessionLifetimes {
            idle_seconds: 60 * 60,
            lifetime_seconds: 12 * 60 * 60,
        }
    }
}

impl<'de> serde::Deserialize<'de> for SessionLifetimes {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Raw {
            idle_seconds: i64,
            lifetime_seconds: i64,
        }
        const LONGEST: i64 = 30 * 24 * 60 * 60;
        let raw = Raw::deserialize(deserializer)?;
        for (name, value) in [
            ("idle_seconds", raw.idle_seconds),
            ("lifetime_seconds", raw.lifetime_seconds),
        ] {
            if !(1..=LONGEST).contains(&value) {
                return Err(serde::de::Error::custom(format!(
                    "{name} is a number of seconds from 1 to {LONGEST} (30 days)"
                )));
            }
        }
        Ok(SessionLifetimes {
            idle_seconds: raw.idle_seconds,
            lifetime_seconds: raw.lifetime_seconds,
        })
    }
}

/// How webhook deliveries are tried (setting `webhook_delivery`): at most
/// `attempts` attempts, waiting `backoff_seconds[n - 1]` after the `n`-th
/// failure (the last figure repeats), each attempt given
/// `timeout_seconds`. Defaults in docs/decisions.md.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct WebhookDelivery {
    /// Attempts in all, 1 to 50.
    pub attempts: u32,
    /// The waits after each failure, 0 to 86400 seconds each.
    pub backoff_seconds: Vec<u64>,
    /// How long one attempt may take, 1 to 60 seconds.
    pub timeout_seconds: u64,
}

impl Default for WebhookDelivery {
    /// Eight attempts over about four and a half hours, ten seconds each.
    fn default() -> WebhookDelivery {
        WebhookDelivery {
            attempts: 8,
            backoff_seconds: vec![10, 30, 120, 600, 1800, 3600, 10800],
            timeout_seconds: 10,
        }
    }
}

impl WebhookDelivery {
    /// The wait after the `failed`-th failed attempt.
    pub fn backoff(&self, failed: u32) -> u64 {
        let index = usize::try_from(failed.saturating_sub(1)).unwrap_or(usize::MAX);
        self.backoff_seconds
            .get(index)
            .or(self.backoff_seconds.last())
            .copied()
            .unwrap_or(0)
    }
}

impl<'de> serde::Deserialize<'de> for WebhookDelivery {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Raw {
            attempts: u32,
            backoff_seconds: Vec<u64>,
            timeout_seconds: u64,
        }
        let raw = Raw::deserialize(deserializer)?;
        let problem = if !(1..=50).contains(&raw.attempts) {
            Some("attempts is a number from 1 to 50")
        } else if raw.backoff_seconds.is_empty() || raw.backoff_seconds.iter().any(|s| *s > 86_400)
        {
            Some("backoff_seconds is a list of one or more waits of 0 to 86400 seconds")
        } else if !(1..=60).contains(&raw.timeout_seconds) {
            Some("timeout_seconds is a number of seconds from 1 to 60")
        } else {
            None
        };
        match problem {
            Some(problem) => Err(serde::de::Error::custom(problem)),
            None => Ok(WebhookDelivery {
                attempts: raw.attempts,
                backoff_seconds: raw.backoff_seconds,
                timeout_seconds: raw.timeout_seconds,
            }),
        }
    }
}

/// The address people reach the host's pages at (setting `public_url`),
/// for links that leave the host (a webhook's links to the inbox):
/// `https://host.example` or with a path, `https://example.com/host`; http
/// or https, no query or fragment, kept without a trailing `/`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(transparent)]
pub struct PublicUrl(String);

impl PublicUrl {
    /// `url` checked, or why not.
    pub fn parse(url: &str) -> Result<PublicUrl, String> {
        let parsed = reqwest::Url::parse(url.trim()).map_err(|error| error.to_string())?;
        if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
            return Err("the public URL is an http or https address".to_owned());
        }
        if parsed.query().is_some() || parsed.fragment().is_some() {
            return Err("the public URL has no query or fragment".to_owned());
        }
        Ok(PublicUrl(parsed.as_str().trim_end_matches('/').to_owned()))
    }

    /// The page at `path` (starting with `/`) under it.
    pub fn join(&self, path: &str) -> String {
        format!("{}{path}", self.0)
    }
}

impl<'de> serde::Deserialize<'de> for PublicUrl {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        PublicUrl::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// Where webhooks may be pointed (setting `webhook_targets`): link-local
/// and cloud metadata addresses never; loopback and private ranges only
/// with `allow_local_network` (off by default, as GitLab's "allow
/// requests to the local network from webhooks").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebhookTargets {
    /// Whether loopback and private addresses may receive webhooks.
    pub allow_local_network: bool,
}

/// The `worker` setting: how many jobs one process runs at once, and how
/// long a lease lasts unless renewed (a process renews its leases every
/// third of that; another process recovers its work once they ran out).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, try_from = "WorkerFields")]
pub struct WorkerSettings {
    /// Jobs one process runs at once: 1 to 64.
    pub concurrency: u32,
    /// Seconds a lease lasts unless renewed: 1 to 3600.
    pub lease_seconds: u32,
}

impl Default for WorkerSettings {
    fn default() -> Self {
        WorkerSettings {
            concurrency: 2,
            lease_seconds: 30,
        }
    }
}

impl WorkerSettings {
    /// How long a lease lasts.
    pub fn lease(&self) -> std::time::Duration {
        std::time::Duration::from_secs(u64::from(self.lease_seconds))
    }
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct WorkerFields {
    #[serde(default = "default_concurrency")]
    concurrency: u32,
    #[serde(default = "default_lease_seconds")]
    lease_seconds: u32,
}

fn default_concurrency() -> u32 {
    WorkerSettings::default().concurrency
}

fn default_lease_seconds() -> u32 {
    WorkerSettings::default().lease_seconds
}

impl TryFrom<WorkerFields> for WorkerSettings {
    type Error = String;

    fn try_from(fields: WorkerFields) -> Result<Self, String> {
        if !(1..=64).contains(&fields.concurrency) {
            return Err("concurrency is a number of jobs from 1 to 64".to_owned());
        }
        if !(1..=3600).contains(&fields.lease_seconds) {
            return Err("lease_seconds is a number of seconds from 1 to 3600".to_owned());
        }
        Ok(WorkerSettings {
            concurrency: fields.concurrency,
            lease_seconds: fields.lease_seconds,
        })
    }
}
