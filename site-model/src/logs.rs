//! The site's log.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tool_core::Authored;

use crate::{LogId, SiteError, Timestamp, UserId};

/// How severe a log entry is, most severe first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LogLevel {
    /// Something failed.
    Error,
    /// Something may fail.
    Warning,
    /// Something worth noticing.
    Notice,
    /// Ordinary operation.
    Info,
    /// Detail for developers.
    Debug,
}

impl LogLevel {
    /// Whether `self` is at least as severe as `threshold`.
    pub fn is_at_least(self, threshold: LogLevel) -> bool {
        self <= threshold
    }
}

/// One log entry. `client_address`, `user` and `payload` identify people
/// (and a payload may hold anything a request carried, secrets included).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LogEntry {
    /// Its id.
    pub id: LogId,
    /// When.
    pub at: Timestamp,
    /// How severe.
    pub level: LogLevel,
    /// The part of the system that wrote it, e.g. `auth` or `mailer`.
    pub component: String,
    /// The message: what a request carried may be in it (a user agent, a
    /// path), so it is people's text.
    #[serde(with = "tool_core::authored::stored")]
    pub message: Authored<String>,
    /// The client's IP address, if a request caused it.
    pub client_address: Option<String>,
    /// The user, if one was logged in.
    pub user: Option<UserId>,
    /// Structured detail: people's text, as the message.
    #[serde(with = "tool_core::authored::stored")]
    pub payload: Authored<Value>,
}

/// What to read with [`Logs::logs`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogQuery {
    /// Only entries at least this severe; `None`: every level.
    pub min_level: Option<LogLevel>,
    /// Only entries of this component; `None`: every component.
    pub component: Option<String>,
    /// The most entries to return.
    pub limit: usize,
}

impl LogQuery {
    /// The newest `limit` entries of every level and component.
    pub fn newest(limit: usize) -> Self {
        LogQuery {
            min_level: None,
            component: None,
            limit,
        }
    }
}

/// Reading the log.
#[async_trait]
pub trait Logs: Send + Sync {
    /// The entries matching `query`, newest first (by time, then by id).
    async fn logs(&self, query: &LogQuery) -> Result<Vec<LogEntry>, SiteError>;
}
