use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tool_core::redact::redact_pair;
use tool_core::{Execute, Tool, ToolContext, ToolError, ToolOutput};

/// At most this many variables per call: the result goes into a prompt.
const MAX_VARIABLES: usize = 200;
/// Longer values are cut (after redaction, so a cut never exposes a secret).
const MAX_VALUE_CHARS: usize = 512;

/// The environment the env tools read. A host may put one in the
/// [`ToolContext`] (to show a curated or recorded environment); without it
/// the tools read the process environment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Environment(pub BTreeMap<String, String>);

impl Environment {
    /// The process environment; variables whose name or value is not
    /// Unicode are left out rather than mangled.
    pub fn from_process() -> Self {
        Environment(
            std::env::vars_os()
                .filter_map(|(name, value)| {
                    Some((name.into_string().ok()?, value.into_string().ok()?))
                })
                .collect(),
        )
    }
}

/// List environment variables of the host, sorted by name, with the values
/// of secret-looking variables (passwords, tokens, keys, sessions, URLs with
/// credentials, ...) replaced by `[redacted]`.
///
/// At most 200 variables; values are cut at 512 characters.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "system",
    effect = "read",
    data = "confidential",
    requires_admin,
    content = "trusted"
)]
#[serde(deny_unknown_fields)]
pub struct GetEnv {
    /// Only variables whose name starts with this prefix (case-sensitive).
    prefix: Option<String>,
}

impl Execute for GetEnv {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(list(cx, self.prefix.as_deref(), Redaction::Redact))
    }
}

/// List environment variables of the host with their values unredacted,
/// secrets included. For administrators diagnosing a host; ships disabled.
///
/// At most 200 variables; values are cut at 512 characters.
#[derive(Tool, Deserialize, JsonSchema)]
#[tool(
    group = "system",
    effect = "read",
    data = "confidential",
    requires_admin,
    disabled,
    content = "trusted"
)]
#[serde(deny_unknown_fields)]
pub struct GetEnvRaw {
    /// Only variables whose name starts with this prefix (case-sensitive).
    prefix: Option<String>,
}

impl Execute for GetEnvRaw {
    async fn execute(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(list(cx, self.prefix.as_deref(), Redaction::Raw))
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Redaction {
    Redact,
    Raw,
}

fn list(cx: &ToolContext, prefix: Option<&str>, redaction: Redaction) -> ToolOutput {
    let process;
    let environment = match cx.service::<Environment>() {
        Ok(environment) => environment,
        Err(_) => {
            process = Environment::from_process();
            &process
        }
    };
    let matching = environment
        .0
        .iter()
        .filter(|(name, _)| prefix.is_none_or(|prefix| name.starts_with(prefix)));
    let mut variables = Map::new();
    let mut total = 0;
    for (name, value) in matching {
        total += 1;
        if variables.len() == MAX_VARIABLES {
            continue;
        }
        let value = match redaction {
            Redaction::Redact => redact_pair(name, value),
            Redaction::Raw => value.into(),
        };
        variables.insert(name.clone(), Value::String(cap(&value)));
    }
    ToolOutput::json(json!({
        "variables": variables,
        "total": total,
        "truncated": total > MAX_VARIABLES,
    }))
}

fn cap(value: &str) -> String {
    match value.char_indices().nth(MAX_VALUE_CHARS) {
        Some((end, _)) => format!("{}…", &value[..end]),
        None => value.to_owned(),
    }
}
