//! The checked call path: a tool's arguments admitted (size and schema),
//! its attempts bounded by timeouts, the ceiling and the cancel token,
//! transient failures of an idempotent tool retried, its output checked,
//! and an approved proposal applied.

use std::future::{Future, ready};
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::guard::{Guarded, guarded};
use super::size::{exact_fits, fits};
use super::tools::{Checks, Kind, RegisteredTool, Registry};
use crate::approval::ApprovalError;
use crate::calls::{Bounded, Bounds, CancelToken, ProgressSignal, Timer};
use crate::checks::{Walk, problems_of};
use crate::context::EgressSlot;
use crate::either::{Either, race};
use crate::exposure::RaisedBy;
use crate::registration::Handler;
use crate::validation::ArgumentValidator;
use crate::{ArgumentProblem, Outcome, Proposal, ProposalId, ToolContext, ToolError, ToolOutput};

impl Registry {
    /// An **ungated** call: validates `arguments` against the schema the
    /// model was shown, deserializes them, and runs the tool, checking no
    /// gate and no grant.
    ///
    /// For tests and for hosts that gate elsewhere; a host offering tools to
    /// a model calls through [`Gates::call`](crate::gates::Gates::call).
    ///
    /// A read tool returns [`Outcome::Done`]; a write tool returns
    /// [`Outcome::Proposed`] and writes nothing. Never panics: a tool that
    /// panics fails this call with [`ToolError::Panicked`].
    pub fn call_ungated<'a>(
        &'a self,
        name: &str,
        arguments: Value,
        cx: &'a ToolContext,
    ) -> impl Future<Output = Result<Outcome, ToolError>> + Send + 'a {
        // A plain function around the call's future rather than an `async
        // fn`: one state machine less to build and move on every call.
        match self.get(name) {
            Some(tool) => Either::left(self.call_registered(tool, arguments, cx, Admitted::NONE)),
            None => Either::right(ready(Err(ToolError::NotAvailable {
                tool: name.to_owned(),
            }))),
        }
    }

    /// The checked call of a tool already found (and, on the gated path,
    /// already admitted by the gates: `admitted` says what they found).
    ///
    /// A plain function around an `async move` block rather than an `async
    /// fn`: an `async fn` keeps its parameters twice in its future (as
    /// captured and again as locals), and every layer of the call path
    /// moves that future.
    #[expect(
        clippy::manual_async_fn,
        reason = "an async fn's future holds its parameters twice"
    )]
    pub(crate) fn call_registered<'a>(
        &'a self,
        tool: &'a RegisteredTool,
        mut arguments: Value,
        cx: &'a ToolContext,
        admitted: Admitted<'a>,
    ) -> impl Future<Output = Result<Outcome, ToolError>> + Send + 'a {
        async move {
            self.admit(tool, &arguments)?;
            let name = tool.name();
            let retries = if tool.declaration.idempotent {
                self.retry.retries()
            } else {
                0
            };
            let plan = self.plan(tool);
            // One context for every attempt of the call: the egress guard, and
            // one progress signal for every attempt.
            let derived = cx.for_call(admitted.egress, plan.signal.as_ref());
            let call_cx = derived.as_ref().unwrap_or(cx);
            // What the call reads of `Authored` values marks its result.
            let authored_before = cx.authored_reads();
            let mut attempt = 0;
            loop {
                // Checked before the tool starts: a cancelled call runs nothing.
                if cx.cancel_token().is_some_and(CancelToken::is_cancelled) {
                    return Err(ToolError::Cancelled {
                        tool: name.to_owned(),
                    });
                }
                let last = attempt >= retries;
                let result = match &tool.kind {
                    Kind::Linked(Handler::Read { execute }, _) => {
                        let call = guarded(name, || execute(&arguments, call_cx));
                        self.attempt(name, &plan, cx, call)
                            .await
                            .and_then(|output| self.check_output(tool, output))
                            .map(|output| Outcome::Done(provenance(output, cx, authored_before)))
                    }
                    Kind::Linked(Handler::Write { propose, .. }, _) => {
                        let call = guarded(name, || propose(&arguments, call_cx));
                        match self.attempt(name, &plan, cx, call).await {
                            Ok(proposal) => {
                                let data = values_class(tool.declaration().data, cx);
                                let stamped =
                                    proposal.stamped(ProposalId::fresh(), name, arguments, data);
                                return Ok(Outcome::Proposed(Box::new(match admitted.held {
                                    Some(by) => stamped.held_by_exposure(*by),
                                    None => stamped,
                                })));
                            }
                            Err(error) => Err(error),
                        }
                    }
                    Kind::Dynamic(dynamic, _) => {
                        // Copied only when another attempt may need them.
                        let owned = if last {
                            std::mem::take(&mut arguments)
                        } else {
                            arguments.clone()
                        };
                        let call = guarded(name, || dynamic.execute(owned, call_cx));
                        self.attempt(name, &plan, cx, call)
                            .await
                            .and_then(|output| self.check_output(tool, output))
                            .map(|output| Outcome::Done(provenance(output, cx, authored_before)))
                    }
                };
                if last || !matches!(result, Err(ToolError::Transient { .. })) {
                    // A failure the tool wrote after reading a person's text
                    // may quote it, as a result would.
                    return result.map_err(|error| failure_provenance(error, cx, authored_before));
                }
                // Not kept across the wait: the call's future stays small.
                drop(result);
                attempt += 1;
                tracing::info!(target: "tool_core::call", tool = name, attempt, "transient failure; retrying");
                // Boxed: only a retry pays for the wait's future.
                Box::pin(self.back_off(name, attempt, cx)).await?;
            }
        }
    }

    /// Refuses arguments over the size limit or against the schema, before
    /// anything of the tool runs.
    fn admit(&self, tool: &RegisteredTool, arguments: &Value) -> Result<(), ToolError> {
        let limit = self.max_argument_bytes;
        let too_large = || ToolError::ArgumentsTooLarge {
            tool: tool.name().to_owned(),
            limit,
        };
        let invalid = |problems| ToolError::InvalidArguments {
            tool: tool.name().to_owned(),
            problems,
        };
        match &tool.kind {
            // What serde accepts the schema admits (derived from the
            // type): deserializing decides, and names what it refuses
            // with the checks. Only the size is for here.
            Kind::Linked(_, checks) if checks.serde_decides => {
                if fits(arguments, limit) {
                    Ok(())
                } else {
                    Err(too_large())
                }
            }
            Kind::Linked(_, checks) => {
                let check = checks.arguments;
                // One walk checks valid arguments and bounds their size.
                let mut walk = Walk::deciding(limit);
                if check(arguments, &mut walk) {
                    if walk.budget().needs_exact() && !exact_fits(arguments, limit) {
                        return Err(too_large());
                    }
                    return Ok(());
                }
                // Refused, or past the bound: measure, then name the problems.
                if !fits(arguments, limit) {
                    return Err(too_large());
                }
                match problems_of(check, arguments) {
                    problems if problems.is_empty() => Ok(()),
                    problems => Err(invalid(problems)),
                }
            }
            Kind::Dynamic(_, validator) => {
                if !fits(arguments, limit) {
                    return Err(too_large());
                }
                validator.check(arguments).map_err(invalid)
            }
        }
    }

    /// The wait before another attempt, cut short by the cancel token.
    async fn back_off(&self, tool: &str, attempt: u32, cx: &ToolContext) -> Result<(), ToolError> {
        let Some(timer) = &self.timer else {
            return Ok(());
        };
        let backoff = timer.sleep(self.retry.backoff(attempt));
        match cx.cancel_token() {
            Some(token) => match race(backoff, token.cancelled()).await {
                Ok(()) => Ok(()),
                Err(()) => Err(ToolError::Cancelled {
                    tool: tool.to_owned(),
                }),
            },
            None => {
                backoff.await;
                Ok(())
            }
        }
    }

    /// Checks a result's content items (their size cap, their MIME types)
    /// and the result against the tool's declared output schema, when it
    /// declares one and outputs are checked.
    #[inline]
    fn check_output(
        &self,
        tool: &RegisteredTool,
        output: ToolOutput,
    ) -> Result<ToolOutput, ToolError> {
        if !output.content().is_empty()
            && let Some(problem) = output.content_problem()
        {
            return Err(ToolError::failed(problem));
        }
        match &tool.output_schema {
            Some(schema) if self.validate_outputs => {
                self.check_declared_output(tool, schema, output)
            }
            _ => Ok(output),
        }
    }

    /// [`check_output`](Self::check_output) for a tool that declares its
    /// output's schema: out of line, as most tools declare none.
    #[inline(never)]
    fn check_declared_output(
        &self,
        tool: &RegisteredTool,
        schema: &Value,
        output: ToolOutput,
    ) -> Result<ToolOutput, ToolError> {
        let mismatch = |problems| ToolError::OutputMismatch {
            tool: tool.name().to_owned(),
            problems,
        };
        let Some(json) = output.as_json() else {
            return Err(mismatch(vec![ArgumentProblem {
                path: String::new(),
                message: "the tool declares a structured output but returned none".to_owned(),
            }]));
        };
        // A linked tool's output type has checks generated with its schema;
        // a run-time tool's schema needs a validator (`validate`).
        if let Kind::Linked(
            _,
            Checks {
                output: Some(check),
                ..
            },
        ) = &tool.kind
        {
            let problems = problems_of(*check, json);
            return if problems.is_empty() {
                Ok(output)
            } else {
                Err(mismatch(problems))
            };
        }
        let validator = tool
            .output_validator
            .get_or_init(|| ArgumentValidator::compile(schema));
        match validator {
            Ok(validator) => validator.check(json).map_err(mismatch)?,
            Err(reason) => {
                return Err(mismatch(vec![ArgumentProblem {
                    path: String::new(),
                    message: format!("the declared output schema does not compile: {reason}"),
                }]));
            }
        }
        Ok(output)
    }

    /// The bounds of a call of `tool`: none without a timer, so a host
    /// that sets none pays nothing for them.
    fn plan(&self, tool: &RegisteredTool) -> CallPlan<'_> {
        if self.timer.is_none() {
            return CallPlan::UNBOUNDED;
        }
        let (timeout, ceiling) = self.limits.for_tool(tool.declaration.timeout);
        let timer = self
            .timer
            .as_deref()
            .filter(|_| timeout.is_some() || ceiling.is_some());
        CallPlan {
            timer,
            timeout,
            ceiling,
            signal: timeout
                .and(timer)
                .map(|_| Arc::new(ProgressSignal::default())),
        }
    }

    /// One attempt of a call, within its timeout, the ceiling and the
    /// cancel token; with none of them, the tool's future alone.
    ///
    /// A plain function: the unbounded call, which is every call of a host
    /// that sets no timeout, moves two words rather than the race.
    fn attempt<'a, T>(
        &'a self,
        name: &'a str,
        plan: &'a CallPlan<'_>,
        cx: &'a ToolContext,
        call: Guarded<'a, T>,
    ) -> Attempt<'a, T> {
        let cancel = cx.cancel_token();
        if plan.timer.is_none() && cancel.is_none() {
            return Either::left(call);
        }
        let bounds = Bounds {
            timer: plan.timer,
            timeout: plan.timeout,
            ceiling: plan.ceiling,
            cancel: cancel.map(CancelToken::cancelled),
            progress: plan.signal.as_deref(),
        };
        Either::right(Box::pin(Bounded::new(name, call, bounds)))
    }

    /// Applies an approved proposal with the tool that made it: proposes
    /// again on the proposal's arguments and refuses the proposal as stale
    /// unless the fresh one says the same. Only the approval path
    /// ([`Approval::approve`](crate::approval::Approval::approve)) reaches
    /// this, after its checks.
    pub(crate) async fn apply_approved(
        &self,
        tool: &RegisteredTool,
        proposal: &Proposal,
        cx: &ToolContext,
    ) -> Result<ToolOutput, ApprovalError> {
        let Kind::Linked(Handler::Write { apply, .. }, _) = &tool.kind else {
            return Err(ToolError::NotAvailable {
                tool: proposal.tool().to_owned(),
            }
            .into());
        };
        let fresh = match self
            .call_registered(tool, proposal.arguments().clone(), cx, Admitted::NONE)
            .await?
        {
            Outcome::Proposed(fresh) if proposal.same_change(&fresh) => fresh,
            _ => return Err(ApprovalError::Stale),
        };
        // The fresh proposal carries the approved one's id: one decision.
        let data = proposal.data_class().max(fresh.data_class());
        let fresh = fresh.stamped(
            proposal.id().clone(),
            tool.name(),
            proposal.arguments().clone(),
            data,
        );
        let authored_before = cx.authored_reads();
        let output = guarded(tool.name(), || apply(&fresh, cx))
            .await
            .map_err(|error| failure_provenance(error, cx, authored_before))?;
        let output = provenance(output, cx, authored_before);
        // The result of applying may quote the values written: text among
        // them that the caller did not send is others' (derived from the
        // proposal's data, whatever the tool declares).
        let output = if fresh.carries_text_not_sent() {
            output.with_authored()
        } else {
            output
        };
        // The change is written: failing the call now would tell the model
        // it was not, and invite it to write again. The host hears of it.
        if let Err(error) = self.check_output(tool, output.clone()) {
            tracing::error!(target: "tool_core::call", tool = tool.name(), %error, "an applied change's result breaks the declared output schema");
        }
        Ok(output)
    }
}

/// `output`, marked as carrying person-written text when the call read an
/// `Authored` value since `before` (the count of `cx`'s reads then).
#[inline]
fn provenance(output: ToolOutput, cx: &ToolContext, before: u64) -> ToolOutput {
    if cx.authored_reads() == before {
        output
    } else {
        output.with_authored()
    }
}

/// What the gates found when they admitted a call.
pub(crate) struct Admitted<'a> {
    /// The egress guard of the tool's group, when it reaches only its own
    /// site.
    pub(crate) egress: Option<&'a EgressSlot>,
    /// The call that makes a proposal need another approver (gate 9): set
    /// only for a write after untrusted content.
    pub(crate) held: Option<Box<RaisedBy>>,
}

impl Admitted<'_> {
    /// An ungated call, or one the approval path makes: no guard, no hold.
    pub(crate) const NONE: Self = Admitted {
        egress: None,
        held: None,
    };
}

/// `error`, marked as written after reading a person's text when the call
/// read an `Authored` value since `before`; out of line, as only a failed
/// call pays for it.
#[inline(never)]
fn failure_provenance(error: ToolError, cx: &ToolContext, before: u64) -> ToolError {
    if cx.authored_reads() == before {
        error
    } else {
        error.with_authored()
    }
}

/// One attempt's future: the tool's call alone, or raced (boxed, as the
/// race is the rarer and larger one).
type Attempt<'a, T> = Either<Guarded<'a, T>, Pin<Box<Bounded<'a, Guarded<'a, T>>>>>;

/// What bounds the attempts of one call.
struct CallPlan<'r> {
    timer: Option<&'r dyn Timer>,
    timeout: Option<Duration>,
    ceiling: Option<Duration>,
    signal: Option<Arc<ProgressSignal>>,
}

impl CallPlan<'_> {
    /// No timer: nothing bounds the call but the cancel token.
    const UNBOUNDED: Self = CallPlan {
        timer: None,
        timeout: None,
        ceiling: None,
        signal: None,
    };
}

/// The class a proposal's values may carry: the tool's `declared` class,
/// or what the run had read (`cx`'s exposure), whichever is higher.
#[cfg(feature = "host")]
fn values_class(declared: crate::DataClass, cx: &ToolContext) -> crate::DataClass {
    cx.exposure()
        .map_or(declared, |read| declared.max(read.data_class()))
}
