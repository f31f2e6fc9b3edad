//! A call's outcome as an MCP `tools/call` result.
//!
//! Every failure a client may read is a result with `isError: true` (the
//! MCP spec's "tool execution error"), never a JSON-RPC error: bad
//! arguments, a tool's own failure, and a refusal. A refused tool and an
//! unknown tool give the same text ([`ToolError::model_text`]), so a
//! refusal never confirms that a tool exists.

use rmcp::model::{CallToolResult, ContentBlock, Resource, ResourceContents};
use serde_json::json;
use tool_core::{ContentItem, Outcome, Proposal, ResourceBody, ToolError, ToolOutput};

/// The result for one finished call.
pub(crate) fn answer(outcome: Result<Outcome, ToolError>) -> CallToolResult {
    match outcome {
        Ok(Outcome::Done(output)) => done(&output),
        Ok(Outcome::Proposed(proposal)) => proposed(&proposal),
        Err(error) => CallToolResult::error(vec![ContentBlock::text(error.model_text())]),
    }
}

/// A read tool's output: its text for the model, then its content items
/// (images, audio, resource links, embedded resources) as MCP content;
/// the JSON, when the tool returned an object, as `structuredContent` too.
pub(crate) fn done(output: &ToolOutput) -> CallToolResult {
    let text = output.main_text();
    let mut content = Vec::with_capacity(output.content().len() + 1);
    if text.is_some() || output.content().is_empty() {
        content.push(ContentBlock::text(text.unwrap_or_default()));
    }
    content.extend(output.content().iter().map(block));
    let mut result = CallToolResult::success(content);
    // Revisions before 2026-07-28 allow only an object there.
    result.structured_content = output.as_json().filter(|json| json.is_object()).cloned();
    result
}

/// One content item as MCP carries it.
fn block(item: &ContentItem) -> ContentBlock {
    match item {
        ContentItem::Image { data, mime_type } => ContentBlock::image(data, mime_type),
        ContentItem::Audio { data, mime_type } => ContentBlock::audio(data, mime_type),
        ContentItem::ResourceLink {
            uri,
            name,
            mime_type,
            description,
        } => {
            let mut link = Resource::new(uri, name);
            if let Some(mime_type) = mime_type {
                link = link.with_mime_type(mime_type);
            }
            if let Some(description) = description {
                link = link.with_description(description);
            }
            ContentBlock::resource_link(link)
        }
        ContentItem::Resource {
            uri,
            mime_type,
            body,
        } => ContentBlock::resource(match body {
            ResourceBody::Text(text) => ResourceContents::TextResourceContents {
                uri: uri.clone(),
                mime_type: mime_type.clone(),
                text: text.clone(),
                meta: None,
            },
            ResourceBody::Blob(blob) => ResourceContents::BlobResourceContents {
                uri: uri.clone(),
                mime_type: mime_type.clone(),
                blob: blob.clone(),
                meta: None,
            },
        }),
        // An item kind added to tool-core later: its description, as text.
        other => ContentBlock::text(other.describe()),
    }
}

/// A write tool's proposal: nothing is written; the client learns the
/// proposal's id and the values approving it would write, not the words
/// meant for the approver (they quote titles people wrote).
fn proposed(proposal: &Proposal) -> CallToolResult {
    let text = format!(
        "The change awaits a person's approval; nothing is written until then. \
         Proposal {}: {}",
        proposal.id(),
        proposal.to_model_text()
    );
    let changes: Vec<_> = proposal
        .changes
        .iter()
        .map(|change| json!({"field": change.field, "new": change.new}))
        .collect();
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(json!({
        "status": "awaiting_approval",
        "proposal": proposal.id(),
        "changes": changes,
    }));
    result
}
