//! Gate 9 inside the loop: the run's exposure rises with each result
//! (docs/exposure.md), and each round is offered the grant minus what the
//! exposure takes away.

use std::sync::Arc;

use serde_json::Value;

use super::{Agent, Event, EventSink, Model, Run, ToolCall, emit, window};
use crate::export;
use crate::exposure::Exposure;
use crate::gates::Gates;

/// The tools one round offers, and the exposure they were worked out for.
pub(super) struct Offer {
    /// In the model's provider's form; `None` for none.
    pub(super) tools: Option<Vec<Value>>,
    /// Their part of the context estimate (0 for a sink not listening).
    pub(super) tokens: u64,
    /// The exposure they were worked out for: when the run's differs, the
    /// offer is worked out again.
    pub(super) exposure: Arc<Exposure>,
}

impl<M: Model> Agent<'_, M> {
    /// The tools the run is offered now: its grant, minus what gate 9 takes
    /// away for what it has read.
    pub(super) fn offer(&self, run: &Run, gates: &Gates<'_>, events: &mut impl EventSink) -> Offer {
        let provider = self.model.provider();
        let tools = match gates.offer(&run.grant, &run.exposure) {
            None => export::offered_tools(self.registry, &run.grant, provider),
            Some((narrowed, _)) => export::offered_tools(self.registry, &narrowed, provider),
        };
        let tokens = if events.is_listening() {
            window::tool_schema_tokens(tools.as_deref())
        } else {
            0
        };
        Offer {
            tools,
            tokens,
            exposure: Arc::clone(&run.exposure),
        }
    }

    /// Raises the run's exposure by what `call`'s tool declares of its
    /// output, untrusted whatever it declared when the result carries
    /// person-written text (`authored`, its provenance); when it rose, tells
    /// `events`, naming the tools gate 9 now takes away.
    pub(super) fn record_exposure(
        &self,
        run: &mut Run,
        call: &ToolCall,
        authored: bool,
        gates: &Gates<'_>,
        events: &mut impl EventSink,
    ) {
        let Some(tool) = self.registry.get(&call.name) else {
            return;
        };
        let declaration = tool.declaration();
        let content = crate::exposure::content_of(declaration, authored);
        // Most results raise nothing: the exposure is copied only for one
        // that does.
        if !run.exposure.raised_by(declaration.data, content) {
            return;
        }
        let _ = Arc::make_mut(&mut run.exposure).record_result(declaration, content, &call.id);
        let round = run.round;
        emit(events, || Event::ExposureRaised {
            round,
            call_id: call.id.clone(),
            tool: call.name.clone(),
            exposure: (*run.exposure).clone(),
            withdrawn: gates
                .offer(&run.grant, &run.exposure)
                .map(|(_, withdrawn)| withdrawn.into_iter().map(|(name, _)| name).collect())
                .unwrap_or_default(),
        });
    }
}
