//! The model client: [`OpenAiClient`], a [`Model`](tool_core::agent::Model)
//! over OpenAI-compatible Chat Completions (`POST {base_url}/chat/completions`
//! with `tools`, answered with `tool_calls` and `usage`), configured by a
//! [`ModelConfig`].
//!
//! It works with hosted providers and with local servers:
//!
//! | server | `base_url` | `model` | `api_key_env` |
//! | --- | --- | --- | --- |
//! | OpenAI | `https://api.openai.com/v1` | `gpt-4.1-mini`, … | `OPENAI_API_KEY` |
//! | Ollama | `http://localhost:11434/v1` | any pulled model (`ollama list`), e.g. `qwen3:8b` | none |
//! | llama.cpp (`llama-server --jinja`) | `http://localhost:8080/v1` | any (one model is loaded) | none, or the `--api-key` one |
//! | vLLM (`vllm serve … --enable-auto-tool-choice`) | `http://localhost:8000/v1` | the served model | none |
//!
//! For Ollama, start the server (`ollama serve`), pull a model that can
//! call tools, and point the client at it; it needs no key:
//!
//! ```
//! use host_example::model::{ModelConfig, OpenAiClient};
//!
//! let client = OpenAiClient::new(ModelConfig::new("http://localhost:11434/v1", "qwen3:8b"))
//!     .expect("a plain http URL");
//! assert_eq!(client.endpoint().as_str(), "http://localhost:11434/v1/chat/completions");
//! ```
//!
//! **https** needs the `https` feature of host-example (rustls, with the
//! system's certificate store); without it an https `base_url` is refused
//! when the client is built ([`ClientError::HttpsNotBuilt`]). Local servers
//! speak plain http, so the default build leaves TLS out: it is most of the
//! client's build cost. Proxies are taken from `HTTP_PROXY`, `HTTPS_PROXY`
//! and `NO_PROXY`.
//!
//! **The key** is read from the variable named by `api_key_env` before
//! every request and sent as `Authorization: Bearer <key>`; it is neither
//! stored in the settings nor kept by the client. A named variable that is
//! unset fails the request with a message naming it.
//!
//! **Failures.** Each ends the run ([`RunStatus::Failed`]) with a
//! [`ModelError`] that carries the reason, and the run keeps its
//! conversation, so it can be continued:
//!
//! - a 429 or a 5xx is retried up to `max_retries` times (default 3),
//!   waiting 200 ms, then twice as long each time (at most 10 s), or what
//!   the server's `Retry-After` / `retry-after-ms` asks (at most 30 s);
//!   after the last one, [`ModelError::Refused`] with the provider's
//!   message;
//! - any other error status: [`ModelError::Refused`] with the provider's
//!   message (`error.message` of the OpenAI error body, else the body cut to
//!   300 characters), not retried;
//! - no answer within `timeout` (default 60 s; local models on a CPU may
//!   need more) or no server at `base_url`: [`ModelError::Unavailable`],
//!   saying which;
//! - an answer that is not Chat Completions JSON:
//!   [`ModelError::InvalidResponse`].
//!
//! **Tool calls** come back with their arguments parsed from the string of
//! JSON OpenAI sends. Arguments that do not parse are passed on as the raw
//! string: the registry refuses the call with a readable error, which the
//! model gets as the call's result and can correct in its next answer.
//!
//! [`ModelError`]: tool_core::agent::ModelError
//! [`ModelError::Refused`]: tool_core::agent::ModelError::Refused
//! [`ModelError::Unavailable`]: tool_core::agent::ModelError::Unavailable
//! [`ModelError::InvalidResponse`]: tool_core::agent::ModelError::InvalidResponse
//! [`RunStatus::Failed`]: tool_core::agent::RunStatus::Failed

mod client;
mod config;
mod retry;
mod secrets;
mod wire;

pub use client::{ClientError, OpenAiClient};
pub use config::{ApiKeyError, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT, ModelConfig};
pub use secrets::HostSecrets;
