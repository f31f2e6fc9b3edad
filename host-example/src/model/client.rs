//! The HTTP client: one Chat Completions request per model call, retried on
//! 429 and 5xx, every failure turned into a [`ModelError`] the run ends with.

use std::error::Error as _;

use reqwest::header::{CONTENT_TYPE, HeaderValue};
use reqwest::{StatusCode, Url};
use serde_json::Value;
use tool_core::agent::{Message, Model, ModelError, ModelRequest, ModelResponse};
use tool_core::export::Provider;

use super::config::ModelConfig;
use super::retry;
use super::secrets::HostSecrets;
use super::wire::{ChatRequest, ChatResponse, WireMessage};

/// How much of a body that is not the expected JSON an error quotes.
const QUOTED_BODY_CHARS: usize = 300;

/// A model behind an OpenAI-compatible Chat Completions endpoint: OpenAI
/// and the providers that copy its API, Ollama, llama.cpp's
/// `llama-server`, vLLM. Needs a Tokio runtime with time and I/O enabled.
#[derive(Debug, Clone)]
pub struct OpenAiClient {
    config: ModelConfig,
    endpoint: Url,
    http: reqwest::Client,
    capture_raw: bool,
    /// Cut out of every error the provider's words reach (its own API key
    /// always, besides).
    secrets: HostSecrets,
}

/// Why a client could not be built from its [`ModelConfig`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// `base_url` is not an http or https URL.
    #[error("`base_url` {url:?} is not usable: {reason}")]
    InvalidBaseUrl {
        /// The URL as configured.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// `base_url` is https, and this build has no TLS.
    #[error(
        "`base_url` {url:?} is https, but host-example was built without TLS: build it with `--features https`"
    )]
    HttpsNotBuilt {
        /// The URL as configured.
        url: String,
    },
    /// The HTTP client could not start.
    #[error("the HTTP client could not start: {message}")]
    Http {
        /// What the HTTP library said.
        message: String,
    },
}

impl OpenAiClient {
    /// A client for `config`. Checks the URL; reads no key (that happens at
    /// every request: see [`ModelConfig::api_key`]).
    pub fn new(config: ModelConfig) -> Result<Self, ClientError> {
        let endpoint = endpoint(&config.base_url)?;
        let http = reqwest::Client::builder()
            .timeout(config.timeout)
            .user_agent(concat!("host-example/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|error| ClientError::Http {
                message: error_chain(&error),
            })?;
        Ok(OpenAiClient {
            config,
            endpoint,
            http,
            capture_raw: false,
            secrets: HostSecrets::default(),
        })
    }

    /// Cuts `secrets` (the host's own: API keys, webhook secrets, the
    /// database's password) out of every error, beside the redaction of
    /// tool results and this client's own API key, which are always.
    pub fn with_secrets(mut self, secrets: HostSecrets) -> Self {
        self.secrets = secrets;
        self
    }

    /// Keeps each answer's JSON as it came in
    /// [`ModelResponse::raw`](tool_core::agent::ModelResponse::raw), for an
    /// inspector (off by default: it can be large, and it is stored with
    /// the run's events).
    pub fn capture_raw(mut self, capture: bool) -> Self {
        self.capture_raw = capture;
        self
    }

    /// The JSON body [`Model::complete`] would post for `request`, byte for
    /// byte: what a dry run shows.
    pub fn request_body(&self, request: &ModelRequest<'_>) -> Value {
        serde_json::to_value(self.chat_request(request)).unwrap_or_default()
    }

    fn chat_request<'r>(&'r self, request: &'r ModelRequest<'_>) -> ChatRequest<'r> {
        ChatRequest {
            model: &self.config.model,
            messages: request
                .messages
                .iter()
                .map(WireMessage::from_message)
                .collect(),
            tools: request.tools.filter(|tools| !tools.is_empty()),
            max_tokens: self.config.max_tokens,
        }
    }

    /// The settings it was built with.
    pub fn config(&self) -> &ModelConfig {
        &self.config
    }

    /// The URL every request is posted to: `{base_url}/chat/completions`.
    pub fn endpoint(&self) -> &Url {
        &self.endpoint
    }

    async fn send(&self, request: ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
        let key = self
            .config
            .api_key()
            .map_err(|error| ModelError::Unavailable {
                message: error.to_string(),
            })?;
        let body = serde_json::to_vec(&self.chat_request(&request)).map_err(|error| {
            ModelError::InvalidResponse {
                message: format!("the request could not be written as JSON: {error}"),
            }
        })?;

        let mut retries = 0;
        loop {
            let mut post = self
                .http
                .post(self.endpoint.clone())
                .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
                .body(body.clone());
            if let Some(key) = &key {
                post = post.bearer_auth(key);
            }
            let response = post.send().await.map_err(|error| self.transport(&error))?;
            let status = response.status();
            let headers = response.headers().clone();
            let text = response
                .text()
                .await
                .map_err(|error| self.transport(&error))?;
            if status.is_success() {
                return self.read_answer(&text, request.messages);
            }
            if retry::is_retryable(status) && retries < self.config.max_retries {
                retries += 1;
                tokio::time::sleep(retry::delay(retries, &headers)).await;
                continue;
            }
            let attempts = match retries {
                0 => String::new(),
                n => format!(" (after {} attempts)", n + 1),
            };
            return Err(ModelError::Refused {
                message: format!(
                    "HTTP {status}{attempts}: {}",
                    provider_message(status, &text)
                ),
            });
        }
    }

    fn read_answer(&self, text: &str, messages: &[Message]) -> Result<ModelResponse, ModelError> {
        let answer: ChatResponse =
            serde_json::from_str(text).map_err(|error| ModelError::InvalidResponse {
                message: format!("{error}; the answer starts: {}", quote(text)),
            })?;
        let earlier_calls = messages
            .iter()
            .map(|message| match message {
                Message::Assistant { calls, .. } => calls.len(),
                _ => 0,
            })
            .sum();
        let mut response = answer
            .into_model_response(earlier_calls)
            .map_err(|reason| {
                // Some gateways answer 200 with an error body.
                match error_message(text) {
                    Some(message) => ModelError::Refused { message },
                    None => ModelError::InvalidResponse {
                        message: format!("{reason}; the answer starts: {}", quote(text)),
                    },
                }
            })?;
        if self.capture_raw {
            response.raw = serde_json::from_str(text).ok();
        }
        Ok(response)
    }

    fn transport(&self, error: &reqwest::Error) -> ModelError {
        let url = &self.endpoint;
        let message = if error.is_timeout() {
            format!(
                "no answer from {url}: timed out after {} s (a slow model may need a larger `timeout_secs`)",
                self.config.timeout.as_secs_f64()
            )
        } else if error.is_connect() {
            format!(
                "could not connect to {url}: is the server running? ({})",
                error_chain(error)
            )
        } else {
            format!("the request to {url} failed: {}", error_chain(error))
        };
        ModelError::Unavailable { message }
    }
}

impl Model for OpenAiClient {
    fn provider(&self) -> Provider {
        Provider::OpenAi
    }

    async fn complete(&self, request: ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
        // Scrubbed here, where it leaves the client: the run's outcome,
        // its events, what a watcher sees and the `run.failed` webhook all
        // get it from here.
        let own = || self.secrets.and(self.config.api_key().ok().flatten());
        match self.send(request).await {
            Ok(mut response) => {
                // An answer is shown and kept outside the run too: no
                // secret of the host's in it either.
                let secrets = own();
                response.text = secrets.cut_out(std::mem::take(&mut response.text));
                response.thinking = response.thinking.map(|text| secrets.cut_out(text));
                Ok(response)
            }
            Err(error) => Err(own().scrub_error(error)),
        }
    }
}

fn endpoint(base_url: &str) -> Result<Url, ClientError> {
    let invalid = |reason: String| ClientError::InvalidBaseUrl {
        url: base_url.to_owned(),
        reason,
    };
    let url = Url::parse(&format!(
        "{}/chat/completions",
        base_url.trim().trim_end_matches('/')
    ))
    .map_err(|error| invalid(error.to_string()))?;
    match url.scheme() {
        "http" => Ok(url),
        "https" if cfg!(feature = "https") => Ok(url),
        "https" => Err(ClientError::HttpsNotBuilt {
            url: base_url.to_owned(),
        }),
        other => Err(invalid(format!(
            "the scheme is `{other}`; use http or https"
        ))),
    }
}

/// What the provider said: the OpenAI error body's `error.message`, a
/// bare `error` or `message` string (other servers), or the body itself,
/// cut; the status's name when the body is empty.
fn provider_message(status: StatusCode, body: &str) -> String {
    if let Some(message) = error_message(body) {
        return message;
    }
    if body.trim().is_empty() {
        return status.canonical_reason().unwrap_or("no message").to_owned();
    }
    quote(body)
}

fn error_message(body: &str) -> Option<String> {
    let value: Value = serde_json::from_str(body).ok()?;
    let message = match value.get("error") {
        Some(Value::Object(error)) => error.get("message")?,
        Some(error @ Value::String(_)) => error,
        _ => value.get("message")?,
    };
    message.as_str().map(str::to_owned)
}

fn quote(body: &str) -> String {
    let body = body.trim();
    match body.char_indices().nth(QUOTED_BODY_CHARS) {
        Some((cut, _)) => format!("{}…", &body[..cut]),
        None => body.to_owned(),
    }
}

/// The error and its causes: reqwest's own text rarely says which.
fn error_chain(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
