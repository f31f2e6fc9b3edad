//! Why a tool is not offered (issue 29's "why not"): every registered tool
//! for one user under the settings as they are now, offered or refused by
//! the first gate that said no, in words. From the core's denials, the
//! resolution MCP lists from, never re-derived.

use serde::Serialize;
use tool_core::gates::Gates;

use crate::app::access::inputs;
use crate::app::{Calls, HostError};

/// One registered tool as the gates see it for one user now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolVerdict {
    /// The tool.
    pub tool: String,
    /// Its group.
    pub group: String,
    /// Whether a single call (an MCP client's) is offered it now.
    pub offered: bool,
    /// The gate that refused it (`enabled`, `admin`, `trust_zone`, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gate: Option<String>,
    /// Why, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl Calls<'_> {
    /// Every registered tool for user `subject`, in name order: offered, or
    /// the gate that refused it and why. `viewer` may ask for themselves;
    /// for anyone else they must be an administrator.
    pub async fn tool_verdicts(
        &self,
        viewer: &str,
        subject: &str,
    ) -> Result<Vec<ToolVerdict>, HostError> {
        if viewer != subject {
            self.access
                .require_admin(viewer, "see another user's tools")
                .await?;
        }
        let actor = self.host.actor(subject).await?;
        let settings = self.access.call_settings().await?;
        let resolution = Gates::new(self.host.registry(), inputs(&settings, &actor)).resolve();
        Ok(self
            .host
            .registry()
            .tools()
            .iter()
            .map(|tool| {
                let name = tool.declaration().name.to_string();
                let denial = resolution.denial(&name);
                ToolVerdict {
                    group: tool.declaration().group.to_string(),
                    offered: denial.is_none(),
                    gate: denial.map(|d| d.gate().to_string()),
                    reason: denial.map(|d| format!("{}: {d}", gate_words(&d.gate().to_string()))),
                    tool: name,
                }
            })
            .collect())
    }
}

/// A gate's name as a person says it.
fn gate_words(gate: &str) -> String {
    gate.replace('_', " ")
}
