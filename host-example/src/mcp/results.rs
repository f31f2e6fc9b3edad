//! A call's outcome as an MCP `tools/call` result, and as the audit's
//! decision.
//!
//! Every failure a client may read is a result with `isError: true` (the
//! MCP spec's "tool execution error"), never a JSON-RPC error: bad
//! arguments, a tool's own failure, and a refusal. A refused tool and an
//! unknown tool give the same text ([`ToolError::model_text`]), so a
//! refusal never confirms that a tool exists.

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::json;
use tool_core::{Outcome, Proposal, ToolError, ToolOutput};

use crate::app::calls::CallDecision;

/// The result and the decision for one finished call.
pub(crate) fn answer(outcome: Result<Outcome, ToolError>) -> (CallToolResult, CallDecision) {
    match outcome {
        Ok(Outcome::Done(output)) => (done(&output), CallDecision::Done),
        Ok(Outcome::Proposed(proposal)) => {
            let decision = CallDecision::Proposed {
                proposal: proposal.id().clone(),
            };
            (proposed(&proposal), decision)
        }
        Err(error) => {
            let decision = match &error {
                ToolError::Refused { denial, .. } => CallDecision::Refused {
                    denial: denial.clone(),
                },
                ToolError::Cancelled { .. } => CallDecision::Cancelled,
                _ => CallDecision::Failed,
            };
            let text = error.model_text();
            (
                CallToolResult::error(vec![ContentBlock::text(text)]),
                decision,
            )
        }
    }
}

/// A read tool's output: its text for the model; the JSON, when the tool
/// returned an object, as `structuredContent` too.
fn done(output: &ToolOutput) -> CallToolResult {
    let mut result = CallToolResult::success(vec![ContentBlock::text(output.to_model_text())]);
    // Revisions before 2026-07-28 allow only an object there.
    result.structured_content = output.as_json().filter(|json| json.is_object()).cloned();
    result
}

/// A write tool's proposal: nothing is written; the client learns the
/// proposal's id and what approving it would do.
fn proposed(proposal: &Proposal) -> CallToolResult {
    let text = format!(
        "The change awaits a person's approval; nothing is written until then. \
         Proposal {}: {}",
        proposal.id(),
        proposal.summary
    );
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(json!({
        "status": "awaiting_approval",
        "proposal": proposal.id(),
        "record": proposal.record,
        "summary": proposal.summary,
        "changes": proposal.changes,
    }));
    result
}
