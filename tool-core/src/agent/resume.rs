//! Resuming a suspended run: the approver's decision, applied through the
//! one approval path, then the rest of the run.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;

use super::{
    Agent, CallResult, Decision, Event, EventSink, Message, Model, PendingApproval,
    ProposalDecision, Run, RunEnd, RunState, ToolCall, emit, exposed, tool_message,
};
use crate::approval::{Approval, ApprovalError, ApprovalStore};
use crate::gates::{Gates, Grant, RunInputs};
use crate::{Actor, ToolContext, ToolError, ToolOutput};

impl<M: Model> Agent<'_, M> {
    /// Resumes a suspended run with the approver's decision, against
    /// `stored ∩ now` (the grant `inputs` resolve to now), and drives it
    /// until it finishes or suspends again.
    ///
    /// `inputs` are the run's (its actor, configuration, skills and
    /// selection) with the settings as they are now; the approver is taken
    /// from the decision.
    pub async fn resume(
        &self,
        state: RunState,
        decision: Decision,
        inputs: RunInputs<'_>,
        approvals: &dyn ApprovalStore,
        cx: &ToolContext,
        events: &mut impl EventSink,
    ) -> RunEnd {
        self.resume_with(state, decision, None, inputs, approvals, cx, events)
            .await
    }

    /// Resumes a suspended run with `approver`'s approval of an edit:
    /// `arguments` replace the pending call's, go through
    /// [`Approval::approve_edited`] (the tool proposes again with them,
    /// checked as any call of the run, for the same record) and the edited
    /// change is applied; the run then goes on as after
    /// [`resume`](Self::resume). An edit the checks refuse is the call's
    /// result, as a refused approval is, and the proposal stays undecided.
    #[expect(
        clippy::too_many_arguments,
        reason = "resume's arguments plus the edit; a struct for one call site would only rename them"
    )]
    pub async fn resume_edited(
        &self,
        state: RunState,
        approver: Actor,
        arguments: Value,
        inputs: RunInputs<'_>,
        approvals: &dyn ApprovalStore,
        cx: &ToolContext,
        events: &mut impl EventSink,
    ) -> RunEnd {
        let decision = Decision::Approved { approver };
        self.resume_with(
            state,
            decision,
            Some(arguments),
            inputs,
            approvals,
            cx,
            events,
        )
        .await
    }

    #[expect(
        clippy::too_many_arguments,
        reason = "the arguments of resume_edited, shared with resume"
    )]
    async fn resume_with(
        &self,
        state: RunState,
        decision: Decision,
        edit: Option<Value>,
        inputs: RunInputs<'_>,
        approvals: &dyn ApprovalStore,
        cx: &ToolContext,
        events: &mut impl EventSink,
    ) -> RunEnd {
        let gates = Gates::new(self.registry, inputs);
        let now = gates.resolve().grant;
        let RunState {
            messages,
            grant,
            round,
            usage,
            pending,
            remaining,
            decisions,
            exposure,
            ..
        } = state;
        let mut run = Run {
            messages,
            grant: Grant::resume(Some(&grant), &now),
            round,
            usage,
            decisions,
            exposure: Arc::new(exposure),
            marked: self.mark_results,
        };
        let PendingApproval { call, proposal } = pending;
        let approval = Approval {
            registry: self.registry,
            run: inputs,
            grant: Some(&run.grant),
            store: approvals,
        };
        emit(events, || Event::Resumed {
            round,
            call_id: call.id.clone(),
            decision: decision.clone(),
        });
        match &decision {
            Decision::Approved { approver } => {
                let started = Instant::now();
                let call_cx = exposed(cx, &run.exposure);
                let applied = self
                    .approve(
                        &approval,
                        &call,
                        &proposal,
                        approver,
                        edit.clone(),
                        &call_cx,
                    )
                    .await
                    .map_err(|error| match error {
                        ApprovalError::Tool(error) => error,
                        // Read by the model exactly like an unknown tool.
                        ApprovalError::RunRefused { denial }
                        | ApprovalError::ApproverRefused { denial } => ToolError::Refused {
                            tool: call.name.clone(),
                            denial,
                        },
                        other => ToolError::failed(other.model_text()),
                    });
                let duration = started.elapsed();
                let applied_ok = applied.is_ok();
                let authored = applied
                    .as_ref()
                    .is_ok_and(crate::ToolOutput::carries_authored);
                run.messages
                    .push(tool_message(&call, applied.as_ref(), run.marked));
                emit(events, || Event::ToolExecuted {
                    round,
                    call_id: Cow::Borrowed(&call.id),
                    tool: Cow::Borrowed(&call.name),
                    arguments: Cow::Borrowed(edit.as_ref().unwrap_or(&call.arguments)),
                    result: match applied {
                        Ok(output) => CallResult::Output { output },
                        Err(error) => CallResult::from_error(&error),
                    },
                    duration,
                });
                if applied_ok {
                    self.record_exposure(&mut run, &call, authored, &gates, events);
                }
            }
            Decision::Rejected { .. } | Decision::Expired => {
                let recorded = match &decision {
                    Decision::Rejected { approver, reason } => approval
                        .reject(&proposal, approver, reason)
                        .await
                        .map(|()| rejection_text(reason)),
                    _ => approval
                        .expire(&proposal)
                        .await
                        .map(|()| ApprovalError::Expired.model_text()),
                };
                let content = recorded.unwrap_or_else(|error| error.model_text());
                run.messages.push(Message::Tool {
                    call_id: call.id.clone(),
                    name: call.name.clone(),
                    content,
                    is_error: true,
                });
            }
        }
        run.decisions.push(ProposalDecision {
            call_id: call.id,
            proposal,
            decision,
        });
        self.drive(run, remaining.into(), &gates, cx, events).await
    }

    /// Approves the pending proposal through the one approval path, after
    /// checking that it is the proposal of the recorded call: a stored state
    /// whose proposal and call disagree (edited, or put together by hand)
    /// is refused and nothing is written.
    async fn approve(
        &self,
        approval: &Approval<'_>,
        call: &ToolCall,
        proposal: &crate::Proposal,
        approver: &Actor,
        edit: Option<Value>,
        cx: &ToolContext,
    ) -> Result<ToolOutput, ApprovalError> {
        if proposal.tool() != call.name || *proposal.arguments() != self.normalized(call) {
            return Err(ApprovalError::Mismatch);
        }
        match edit {
            None => approval.approve(proposal, approver, cx).await,
            Some(arguments) => {
                approval
                    .approve_edited(proposal, arguments, approver, cx)
                    .await
            }
        }
    }
}

/// What the model is told when a proposal is rejected.
fn rejection_text(reason: &str) -> String {
    let reason = reason.trim();
    if reason.is_empty() {
        "the change was rejected by the approver; nothing was written".to_owned()
    } else {
        format!("the change was rejected by the approver; nothing was written. Reason: {reason}")
    }
}
