//! What a host's settings say about the model: where it is, which one, and
//! the name of the variable holding the key (never the key).

use std::time::Duration;

use serde::{Deserialize, Serialize};
use tool_core::agent::{ContextWindow, Usage};

/// The request timeout when none is set.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// How many times a rate-limited (429) or failed (5xx) request is retried
/// when no limit is set.
pub const DEFAULT_MAX_RETRIES: u32 = 3;

/// One model behind an OpenAI-compatible Chat Completions endpoint.
///
/// In a settings file (unknown keys are refused, so a typo is not silently
/// ignored):
///
/// ```
/// # use host_example::model::ModelConfig;
/// let config: ModelConfig = serde_json::from_str(r#"{
///     "base_url": "http://localhost:11434/v1",
///     "model": "qwen3:8b",
///     "timeout_secs": 120
/// }"#).unwrap();
/// assert_eq!(config.api_key_env, None);
/// assert_eq!(config.max_retries, 3);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelConfig {
    /// The API root, without `/chat/completions`: `https://api.openai.com/v1`,
    /// `http://localhost:11434/v1` (Ollama), `http://localhost:8080/v1`
    /// (llama.cpp's `llama-server`), `http://localhost:8000/v1` (vLLM).
    pub base_url: String,
    /// The model's name, as the server knows it.
    pub model: String,
    /// The environment variable that holds the API key, read at every
    /// request and sent as `Authorization: Bearer <key>`; `None` sends no
    /// key (local servers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key_env: Option<String>,
    /// How long one request may take, from connecting to the end of the
    /// answer (default 60 s). In settings: `timeout_secs`, in seconds.
    #[serde(rename = "timeout_secs", default = "default_timeout", with = "seconds")]
    pub timeout: Duration,
    /// Retries after a 429 or a 5xx answer (default 3), so at most
    /// `max_retries + 1` requests per model call.
    #[serde(default = "default_max_retries")]
    pub max_retries: u32,
    /// The `max_tokens` of every request; `None` leaves it to the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// The model's context window in tokens, for the playground's context
    /// budget; `None`: 32,768.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
    /// Price of a million input tokens, for cost estimates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_price_per_mtok: Option<f64>,
    /// Price of a million output tokens, for cost estimates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_price_per_mtok: Option<f64>,
}

impl ModelConfig {
    /// A model at `base_url` with every other setting at its default.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        ModelConfig {
            base_url: base_url.into(),
            model: model.into(),
            api_key_env: None,
            timeout: DEFAULT_TIMEOUT,
            max_retries: DEFAULT_MAX_RETRIES,
            max_tokens: None,
            context_window: None,
            input_price_per_mtok: None,
            output_price_per_mtok: None,
        }
    }

    /// What `usage` cost at the configured prices; `None` unless both
    /// prices are set.
    ///
    /// ```
    /// # use host_example::model::ModelConfig;
    /// # use tool_core::agent::Usage;
    /// let config = ModelConfig {
    ///     input_price_per_mtok: Some(2.0),
    ///     output_price_per_mtok: Some(8.0),
    ///     ..ModelConfig::new("https://api.openai.com/v1", "gpt-4.1")
    /// };
    /// let usage = Usage { input_tokens: 1_500_000, output_tokens: 250_000 };
    /// assert_eq!(config.estimate_cost(usage), Some(5.0));
    /// assert_eq!(ModelConfig::new("http://localhost:11434/v1", "qwen3:8b").estimate_cost(usage), None);
    /// ```
    pub fn estimate_cost(&self, usage: Usage) -> Option<f64> {
        let per_token = |price: f64, tokens: u64| price * tokens as f64 / 1_000_000.0;
        Some(
            per_token(self.input_price_per_mtok?, usage.input_tokens)
                + per_token(self.output_price_per_mtok?, usage.output_tokens),
        )
    }

    /// The window every request's context budget is measured against:
    /// [`context_window`](Self::context_window) (default 32,768 tokens),
    /// with [`max_tokens`](Self::max_tokens) (default 4,096) kept for the
    /// answer.
    pub fn window(&self) -> ContextWindow {
        let default = ContextWindow::default();
        ContextWindow::new(
            self.context_window.unwrap_or(default.window),
            self.max_tokens.map_or(default.output_reserve, u64::from),
        )
    }

    /// The API key, read now from the variable named by
    /// [`api_key_env`](Self::api_key_env); `Ok(None)` when none is named.
    /// A host may call it at start-up to fail early; the client calls it
    /// before every request and keeps nothing.
    pub fn api_key(&self) -> Result<Option<String>, ApiKeyError> {
        let Some(var) = &self.api_key_env else {
            return Ok(None);
        };
        match std::env::var(var) {
            Ok(key) if !key.trim().is_empty() => Ok(Some(key.trim().to_owned())),
            Ok(_) => Err(ApiKeyError::Empty { var: var.clone() }),
            Err(std::env::VarError::NotPresent) => Err(ApiKeyError::NotSet { var: var.clone() }),
            Err(std::env::VarError::NotUnicode(_)) => {
                Err(ApiKeyError::NotUnicode { var: var.clone() })
            }
        }
    }
}

/// Why the API key could not be read. Each names the variable, never a
/// value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ApiKeyError {
    /// The variable is not set.
    #[error(
        "the API key variable `{var}` (`api_key_env`) is not set: export it, or remove `api_key_env` for a server that needs no key"
    )]
    NotSet {
        /// The variable.
        var: String,
    },
    /// The variable is set but blank.
    #[error("the API key variable `{var}` (`api_key_env`) is empty")]
    Empty {
        /// The variable.
        var: String,
    },
    /// The variable is not valid UTF-8.
    #[error("the API key variable `{var}` (`api_key_env`) is not valid UTF-8")]
    NotUnicode {
        /// The variable.
        var: String,
    },
}

fn default_timeout() -> Duration {
    DEFAULT_TIMEOUT
}

fn default_max_retries() -> u32 {
    DEFAULT_MAX_RETRIES
}

/// A [`Duration`] as a number of seconds, fractions allowed.
mod seconds {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer, de::Error as _};

    pub fn serialize<S: Serializer>(duration: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_f64(duration.as_secs_f64())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Duration, D::Error> {
        let secs = f64::deserialize(deserializer)?;
        match Duration::try_from_secs_f64(secs) {
            Ok(duration) if !duration.is_zero() => Ok(duration),
            _ => Err(D::Error::custom(format!(
                "`timeout_secs` must be a positive number of seconds, not {secs}"
            ))),
        }
    }
}
