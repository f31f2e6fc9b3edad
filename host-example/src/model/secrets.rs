//! What a model provider says, made safe to keep, show and send: the same
//! redaction as tool results ([`redact_text`]: keys in `KEY=value`, URLs'
//! passwords, tokens that look like keys), plus the exact values of the
//! host's own secrets, which no pattern can be trusted to catch (a
//! provider that echoes the API key in a 401, "Incorrect API key
//! provided: sk-…").

use std::sync::Arc;

use tool_core::agent::ModelError;
use tool_core::redact::{REDACTED, redact_text};

/// Fewer characters than this are never taken for a secret to cut out: a
/// one-letter "password" would cut every text to pieces.
const SHORTEST_SECRET: usize = 6;

/// The host's own secrets, matched exactly: API keys, webhook secrets,
/// the database's password. Cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct HostSecrets(Arc<[String]>);

impl HostSecrets {
    /// These values (the empty and the very short left out).
    pub fn new(values: impl IntoIterator<Item = String>) -> Self {
        let mut values: Vec<String> = values
            .into_iter()
            .filter(|value| value.chars().count() >= SHORTEST_SECRET)
            .collect();
        // The longest first: a secret that contains another is cut whole.
        values.sort_by_key(|value| std::cmp::Reverse(value.len()));
        values.dedup();
        HostSecrets(values.into())
    }

    /// `text` redacted as a tool result is, with every secret cut out.
    pub fn scrub(&self, text: &str) -> String {
        self.cut_out(redact_text(text).into_owned())
    }

    /// `text` with every secret cut out, and nothing else changed: for a
    /// model's answer, which patterns would mangle.
    pub fn cut_out(&self, mut text: String) -> String {
        for secret in self.0.iter() {
            if text.contains(secret.as_str()) {
                text = text.replace(secret.as_str(), REDACTED);
            }
        }
        text
    }

    /// `error` with its provider's words scrubbed.
    pub fn scrub_error(&self, error: ModelError) -> ModelError {
        match error {
            ModelError::Unavailable { message } => ModelError::Unavailable {
                message: self.scrub(&message),
            },
            ModelError::Refused { message } => ModelError::Refused {
                message: self.scrub(&message),
            },
            ModelError::InvalidResponse { message } => ModelError::InvalidResponse {
                message: self.scrub(&message),
            },
            // A kind added later carries no text of the provider's until it
            // is handled here.
            other => other,
        }
    }

    /// These secrets and `more`.
    pub fn and(&self, more: impl IntoIterator<Item = String>) -> HostSecrets {
        HostSecrets::new(self.0.iter().cloned().chain(more))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exact_secret_is_cut_out_even_where_no_pattern_sees_it() {
        let secrets = HostSecrets::new(["correcthorse42".to_owned(), "x".to_owned()]);
        let said = "the account correcthorse42 is not allowed to use this model";
        // No pattern takes it for a secret...
        assert_eq!(redact_text(said), said);
        // ...the host knows it is one.
        assert_eq!(
            secrets.scrub(said),
            format!("the account {REDACTED} is not allowed to use this model")
        );
        // Too short to be taken for a secret: left as it is.
        assert_eq!(secrets.scrub("x marks"), "x marks");
    }

    #[test]
    fn an_answer_loses_the_secrets_and_nothing_else() {
        let secrets = HostSecrets::new(["correcthorse42".to_owned()]);
        let answer = "Set PASSWORD=example in the form; the key is correcthorse42.".to_owned();
        assert_eq!(
            secrets.cut_out(answer),
            format!("Set PASSWORD=example in the form; the key is {REDACTED}.")
        );
    }

    #[test]
    fn every_kind_of_error_is_scrubbed() {
        let secrets = HostSecrets::new(["whsec_abcdef".to_owned()]);
        let error = ModelError::Refused {
            message: "bad whsec_abcdef".to_owned(),
        };
        assert_eq!(
            secrets.scrub_error(error),
            ModelError::Refused {
                message: format!("bad {REDACTED}")
            }
        );
    }
}
