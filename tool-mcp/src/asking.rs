//! A call's questions to its MCP client ([`ClientChannel`]): a form for
//! the person (`elicitation/create`), a question for the model
//! (`sampling/createMessage`), where the person works (`roots/list`), and
//! log messages
//! (`notifications/message`), each only as far as the client declared it.
//! 2026-07-28 forbids requests from the server inside a call: there a
//! question is answered from the call's earlier rounds or goes back to the
//! client in the call's result ([`crate::input`]), never left waiting.
//!
//! rmcp marks logging and roots deprecated (SEP-2577 retires them after
//! 2026-07-28);
//! the revisions this server speaks all have it, so its types are used
//! here, and only here, with the deprecation allowed.
#![allow(deprecated)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::input::Replay;
use rmcp::RoleServer;
use rmcp::model::{CreateMessageRequestParams, CreateMessageResult, ElicitResult, ListRootsResult};
use rmcp::model::{
    ElicitRequestParams, ElicitationAction, LoggingLevel, LoggingMessageNotificationParam, Role,
};
use rmcp::service::{Peer, RequestContext};
use serde_json::{Value, json};
use tool_core::client::{
    AskError, Asking, ClientChannel, Elicitation, Elicited, LogLevel, Root, Sampled, Sampling,
};

/// How long a question waits for its answer unless the server sets
/// another (`McpServer::with_ask_timeout`): a person fills in a form in
/// minutes, not hours.
pub const ASK_TIMEOUT: Duration = Duration::from_secs(10 * 60);

/// The level each session asked for (`logging/setLevel`); a session that
/// asked for none hears no log message.
#[derive(Debug, Default)]
pub(crate) struct LogLevels(Mutex<HashMap<String, LogLevel>>);

impl LogLevels {
    /// `session` asked for messages of `level` and above.
    pub(crate) fn set(&self, session: String, level: LoggingLevel) {
        self.lock().insert(session, log_level(level));
    }

    fn get(&self, session: &str) -> Option<LogLevel> {
        self.lock().get(session).copied()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, LogLevel>> {
        // Every write is one insert: a panic elsewhere leaves no half-write.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// One call's client.
pub(crate) struct McpClient {
    peer: Peer<RoleServer>,
    /// On 2026-07-28: this round's answers and the questions still open
    /// (the revision carries no request to the client inside a call).
    replay: Option<Arc<Replay>>,
    elicitation: bool,
    elicitation_url: bool,
    sampling: bool,
    roots: bool,
    /// The level the call's session asked for when the call began.
    log_level: Option<LogLevel>,
    /// How long a question waits.
    timeout: Duration,
}

impl McpClient {
    /// The client of the request `cx`, in the session `session` (none:
    /// stateless, no log messages).
    pub(crate) fn of(
        cx: &RequestContext<RoleServer>,
        session: Option<&str>,
        levels: &LogLevels,
        timeout: Duration,
        replay: Option<Arc<Replay>>,
    ) -> Arc<dyn ClientChannel> {
        let capabilities = cx.client_capabilities();
        Arc::new(McpClient {
            peer: cx.peer.clone(),
            replay,
            elicitation: capabilities
                .as_ref()
                .is_some_and(|c| c.elicitation.is_some()),
            elicitation_url: capabilities
                .as_ref()
                .and_then(|c| c.elicitation.as_ref())
                .is_some_and(|e| e.url.is_some()),
            sampling: capabilities.as_ref().is_some_and(|c| c.sampling.is_some()),
            roots: capabilities.as_ref().is_some_and(|c| c.roots.is_some()),
            log_level: session.and_then(|session| levels.get(session)),
            timeout,
        })
    }

    /// A key for a question the tool did not name (used on 2026-07-28).
    fn key(&self, kind: &str) -> String {
        self.replay
            .as_ref()
            .map_or_else(String::new, |replay| replay.next_key(kind))
    }

    fn may_ask(&self, declared: bool, capability: &'static str) -> Result<(), AskError> {
        if !declared {
            if let Some(replay) = &self.replay {
                replay.undeclared(capability);
            }
            return Err(AskError::Unsupported(format!(
                "the client declared no `{capability}` capability"
            )));
        }
        Ok(())
    }
}

/// The answer, or the error: late, refused, or the client gone.
async fn answered<T, E: std::fmt::Display>(
    timeout: Duration,
    asking: impl Future<Output = Result<T, E>>,
) -> Result<T, AskError> {
    match tokio::time::timeout(timeout, asking).await {
        Err(_) => Err(AskError::TimedOut),
        Ok(Err(error)) => Err(AskError::Failed(error.to_string())),
        Ok(Ok(answer)) => Ok(answer),
    }
}

impl ClientChannel for McpClient {
    fn elicit(&self, request: Elicitation) -> Asking<'_, Elicited> {
        let key = self.key("elicitation");
        self.elicit_as(&key, request)
    }

    fn elicit_as(&self, key: &str, request: Elicitation) -> Asking<'_, Elicited> {
        let key = key.to_owned();
        Box::pin(async move {
            self.may_ask(self.elicitation, "elicitation")?;
            let params = json!({
                "mode": "form",
                "message": request.message,
                "requestedSchema": Value::Object(request.schema),
            });
            let result: ElicitResult = match &self.replay {
                Some(replay) => replay.answer(&key, "elicitation/create", params)?,
                None => {
                    let params: ElicitRequestParams =
                        serde_json::from_value(params).map_err(|error| {
                            AskError::Failed(format!("the form is not one MCP can carry: {error}"))
                        })?;
                    answered(self.timeout, self.peer.create_elicitation(params)).await?
                }
            };
            Ok(match result.action {
                ElicitationAction::Accept => Elicited::Accepted(match result.content {
                    Some(Value::Object(values)) => values,
                    _ => serde_json::Map::new(),
                }),
                ElicitationAction::Decline => Elicited::Declined,
                // Cancelled, or an action added after this was written:
                // nothing was chosen.
                _ => Elicited::Cancelled,
            })
        })
    }

    fn elicit_url(&self, message: &str, url: &str) -> Asking<'_, Elicited> {
        let params = json!({
            "mode": "url",
            "message": message,
            "url": url,
            "elicitationId": elicitation_id(),
        });
        let key = self.key("elicitation");
        Box::pin(async move {
            self.may_ask(self.elicitation_url, "elicitation.url")?;
            let result: ElicitResult = match &self.replay {
                Some(replay) => replay.answer(&key, "elicitation/create", params)?,
                None => {
                    let params: ElicitRequestParams = serde_json::from_value(params)
                        .map_err(|error| AskError::Failed(format!("not a URL to open: {error}")))?;
                    answered(self.timeout, self.peer.create_elicitation(params)).await?
                }
            };
            Ok(match result.action {
                // The person agreed to go; what they did there is not told.
                ElicitationAction::Accept => Elicited::Accepted(serde_json::Map::new()),
                ElicitationAction::Decline => Elicited::Declined,
                _ => Elicited::Cancelled,
            })
        })
    }

    fn sample(&self, request: Sampling) -> Asking<'_, Sampled> {
        let key = self.key("sampling");
        self.sample_as(&key, request)
    }

    fn sample_as(&self, key: &str, request: Sampling) -> Asking<'_, Sampled> {
        let key = key.to_owned();
        Box::pin(async move {
            self.may_ask(self.sampling, "sampling")?;
            let messages: Vec<Value> = request
                .messages
                .iter()
                .map(|message| {
                    let role = if message.from_user {
                        Role::User
                    } else {
                        Role::Assistant
                    };
                    json!({"role": role, "content": {"type": "text", "text": message.text}})
                })
                .collect();
            let mut params = json!({"messages": messages, "maxTokens": request.max_tokens});
            if let Some(system) = request.system_prompt {
                params["systemPrompt"] = Value::String(system);
            }
            let result: CreateMessageResult = match &self.replay {
                Some(replay) => replay.answer(&key, "sampling/createMessage", params)?,
                None => {
                    let params: CreateMessageRequestParams = serde_json::from_value(params)
                        .map_err(|error| {
                            AskError::Failed(format!("not a sampling request: {error}"))
                        })?;
                    answered(self.timeout, self.peer.create_message(params)).await?
                }
            };
            let text = serde_json::to_value(&result.message)
                .ok()
                .and_then(|message| message["content"]["text"].as_str().map(str::to_owned))
                .ok_or_else(|| AskError::Failed("the client's model answered no text".into()))?;
            Ok(Sampled {
                text,
                model: result.model,
            })
        })
    }

    fn roots(&self) -> Asking<'_, Vec<Root>> {
        let key = self.key("roots");
        self.roots_as(&key)
    }

    fn roots_as(&self, key: &str) -> Asking<'_, Vec<Root>> {
        let key = key.to_owned();
        Box::pin(async move {
            self.may_ask(self.roots, "roots")?;
            let listed: ListRootsResult = match &self.replay {
                Some(replay) => replay.answer(&key, "roots/list", json!({}))?,
                None => answered(self.timeout, self.peer.list_roots()).await?,
            };
            Ok(listed
                .roots
                .into_iter()
                .map(|root| Root {
                    uri: root.uri,
                    name: root.name,
                })
                .collect())
        })
    }

    fn log(&self, level: LogLevel, message: &str) {
        if self.log_level.is_none_or(|wanted| level < wanted) {
            return;
        }
        let peer = self.peer.clone();
        let param = LoggingMessageNotificationParam::new(
            logging_level(level),
            Value::String(message.to_owned()),
        );
        // Sent on its own task: a tool's log call never waits for the
        // client, and a client gone away misses its messages.
        tokio::spawn(async move {
            let _ = peer.notify_logging_message(param).await;
        });
    }
}

/// A URL-mode elicitation's id: unique in this process, and across
/// processes by their ids.
fn elicitation_id() -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("tool-mcp-{}-{n}", std::process::id())
}

fn logging_level(level: LogLevel) -> LoggingLevel {
    match level {
        LogLevel::Debug => LoggingLevel::Debug,
        LogLevel::Info => LoggingLevel::Info,
        LogLevel::Notice => LoggingLevel::Notice,
        LogLevel::Warning => LoggingLevel::Warning,
        LogLevel::Error => LoggingLevel::Error,
        LogLevel::Critical => LoggingLevel::Critical,
        LogLevel::Alert => LoggingLevel::Alert,
        LogLevel::Emergency => LoggingLevel::Emergency,
    }
}

fn log_level(level: LoggingLevel) -> LogLevel {
    match level {
        LoggingLevel::Debug => LogLevel::Debug,
        LoggingLevel::Info => LogLevel::Info,
        LoggingLevel::Notice => LogLevel::Notice,
        LoggingLevel::Warning => LogLevel::Warning,
        LoggingLevel::Error => LogLevel::Error,
        LoggingLevel::Critical => LogLevel::Critical,
        LoggingLevel::Alert => LogLevel::Alert,
        LoggingLevel::Emergency => LogLevel::Emergency,
    }
}
