//! Suspension at a write call and resumption after the approver's decision.

use super::*;

#[test]
fn write_call_suspends_and_resumes_in_a_fresh_loop_after_approval() {
    let host = Host::writer();
    let (stored, events) = suspend(&host, calls([write_call("w1", "r1", "v")]));
    assert_eq!(
        host.record("r1"),
        None,
        "nothing is written before approval"
    );
    let state: RunState = serde_json::from_str(&stored).unwrap();
    assert_eq!(state.proposal().summary, "set r1 to v");
    assert_eq!(state.pending().call.id, "w1");
    assert_eq!(state.round(), 1);
    assert!(state.remaining().is_empty());
    assert!(state.grant().allowance("b_write").is_some());
    assert_eq!(
        kinds(&events)[4..],
        ["tool_executed", "suspended"],
        "{events:?}"
    );
    assert!(matches!(
        executed(&events)[0].1,
        CallResult::Proposed { .. }
    ));

    let approved = Decision::Approved { approver: admin() };
    let (end, events, seen) = resume_fresh(&host, &stored, approved.clone(), [answer("Saved.")]);
    let finished = finished(end);
    assert_eq!(finished.status, RunStatus::Completed);
    assert_eq!(finished.answer.as_deref(), Some("Saved."));
    assert_eq!(host.record("r1"), Some(json!("v")));
    assert_eq!(
        tool_results(&seen[0].messages),
        [result("w1", "r1 = \"v\"", false)]
    );
    // Rounds and usage run on across the suspension.
    assert_eq!(finished.rounds, 2);
    assert_eq!(
        finished.usage,
        Usage {
            input_tokens: 20,
            output_tokens: 10
        }
    );
    assert_eq!(finished.decisions.len(), 1);
    assert_eq!(finished.decisions[0].decision, approved);
    assert_eq!(
        kinds(&events),
        [
            "resumed",
            "tool_executed",
            "round_started",
            "context_budget",
            "request_sent",
            "response_received",
            "finished"
        ]
    );
}

#[test]
fn edited_approval_applies_the_edit_and_an_edit_of_another_record_writes_nothing() {
    let host = Host::writer();
    let (stored, _) = suspend(&host, calls([write_call("w1", "r1", "v")]));

    // An edit that moves the change to another record is refused: nothing
    // is written and nothing is decided, so the proposal can still be.
    let registry: Registry = registry();
    let model = Scripted::new([answer("Saved.")]);
    let agent = Agent::new(&registry, &model).mark_results(false);
    let state: RunState = serde_json::from_str(&stored).unwrap();
    let proposal = state.proposal().id().clone();
    let mut events = Vec::new();
    let elsewhere = json!({"record": "r2", "value": "w"});
    let end = block_on(agent.resume_edited(
        state,
        admin(),
        elsewhere,
        host.inputs(),
        &host.approvals,
        &host.cx(),
        &mut events,
    ));
    assert_eq!((host.record("r1"), host.record("r2")), (None, None));
    assert_eq!(host.approvals.decision(&proposal), None);
    assert!(matches!(&executed(&events)[0].1, CallResult::Error { .. }));
    drop(end);

    let model = Scripted::new([answer("Saved.")]);
    let agent = Agent::new(&registry, &model).mark_results(false);
    let state: RunState = serde_json::from_str(&stored).unwrap();
    let mut events = Vec::new();
    let edit = json!({"record": "r1", "value": "w"});
    let end = block_on(agent.resume_edited(
        state,
        admin(),
        edit.clone(),
        host.inputs(),
        &host.approvals,
        &host.cx(),
        &mut events,
    ));
    let finished = finished(end);
    assert_eq!(finished.answer.as_deref(), Some("Saved."));
    assert_eq!(host.record("r1"), Some(json!("w")));
    assert_eq!(
        host.approvals.decision(&proposal),
        Some(Decision::Approved { approver: admin() })
    );
    // The event shows what was applied: the edited arguments.
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::ToolExecuted { arguments, .. } if **arguments == edit))
    );
    assert_eq!(
        tool_results(&model.seen()[0].messages),
        [result("w1", "r1 = \"w\"", false)]
    );
}

#[test]
fn rejected_write_is_not_applied_and_the_model_is_told_why() {
    let host = Host::writer();
    let (stored, _) = suspend(&host, calls([write_call("w1", "r1", "v")]));
    let rejected = Decision::Rejected {
        approver: admin(),
        reason: "r1 is frozen".into(),
    };
    let (end, events, seen) =
        resume_fresh(&host, &stored, rejected.clone(), [answer("Understood.")]);
    let finished = finished(end);
    assert_eq!(finished.status, RunStatus::Completed);
    assert_eq!(host.record("r1"), None);
    let results = tool_results(&seen[0].messages);
    assert_eq!(results.len(), 1);
    let (id, text, is_error) = &results[0];
    assert_eq!(id, "w1");
    assert!(is_error);
    assert!(
        text.contains("rejected") && text.contains("r1 is frozen"),
        "{text}"
    );
    // The decision is recorded, and nothing was executed for it.
    assert_eq!(finished.decisions[0].decision, rejected);
    assert!(
        matches!(&events[0], Event::Resumed { call_id, decision, .. } if call_id == "w1" && *decision == rejected)
    );
    assert!(executed(&events).is_empty());
}

#[test]
fn tool_disabled_while_the_run_waited_is_refused_after_resume() {
    let mut host = Host::writer();
    let (stored, _) = suspend(&host, calls([write_call("w1", "r1", "v")]));
    host.set_tool("b_write", Toggle::Disabled);
    let approved = Decision::Approved { approver: admin() };
    let (end, events, seen) = resume_fresh(&host, &stored, approved, [answer("Oh well.")]);
    assert_eq!(finished(end).status, RunStatus::Completed);
    assert_eq!(host.record("r1"), None);
    assert_eq!(
        tool_results(&seen[0].messages),
        [result("w1", "tool `b_write` is not available", true)]
    );
    assert_eq!(denial(&executed(&events)[0].1), Some(Denial::ToolDisabled));
}

#[test]
fn approver_who_fails_the_gates_for_the_tool_cannot_apply_it() {
    let host = Host::writer();
    let (stored, _) = suspend(&host, calls([write_call("w1", "r1", "v")]));
    // b_write requires an administrator; this approver is not one.
    let approved = Decision::Approved { approver: user() };
    let (end, events, seen) = resume_fresh(&host, &stored, approved, [answer("Oh well.")]);
    assert_eq!(finished(end).status, RunStatus::Completed);
    assert_eq!(host.record("r1"), None);
    assert_eq!(
        tool_results(&seen[0].messages),
        [result("w1", "tool `b_write` is not available", true)]
    );
    assert_eq!(denial(&executed(&events)[0].1), Some(Denial::AdminOnly));
}

#[test]
fn run_that_lost_the_tool_while_waiting_is_refused_even_when_the_approver_may_use_it() {
    let mut host = Host::writer();
    let (stored, _) = suspend(&host, calls([write_call("w1", "r1", "v")]));
    // The run's actor is no longer an administrator; the approver is one.
    host.actor = Some(Actor {
        id: "root".into(),
        admin: false,
    });
    let approved = Decision::Approved { approver: admin() };
    let (end, events, seen) = resume_fresh(&host, &stored, approved, [answer("Oh well.")]);
    assert_eq!(finished(end).status, RunStatus::Completed);
    assert_eq!(host.record("r1"), None);
    assert_eq!(
        tool_results(&seen[0].messages),
        [result("w1", "tool `b_write` is not available", true)]
    );
    assert_eq!(denial(&executed(&events)[0].1), Some(Denial::AdminOnly));
}

#[test]
fn remaining_calls_of_the_response_run_after_the_decision_against_the_resumed_grant() {
    let mut host = Host::writer();
    let (stored, _) = suspend(
        &host,
        calls([
            call("c1", "a_read", json!({})),
            write_call("w1", "r1", "v"),
            call("c2", "g_read", json!({})),
            call("c3", "b_read", json!({})),
        ]),
    );
    let state: RunState = serde_json::from_str(&stored).unwrap();
    assert_eq!(
        state.remaining(),
        [
            call("c2", "g_read", json!({})),
            call("c3", "b_read", json!({}))
        ]
    );
    assert_eq!(
        tool_results(state.messages()),
        [result("c1", "ARead", false)]
    );
    // Taken away while the run waited.
    host.set_tool("g_read", Toggle::Disabled);
    let approved = Decision::Approved { approver: admin() };
    let (end, _, seen) = resume_fresh(&host, &stored, approved, [answer("All done.")]);
    assert_eq!(finished(end).status, RunStatus::Completed);
    assert_eq!(
        tool_results(&seen[0].messages),
        [
            result("c1", "ARead", false),
            result("w1", "r1 = \"v\"", false),
            result("c2", "tool `g_read` is not available", true),
            result("c3", "BRead", false),
        ]
    );
    assert!(!offered(&seen[0]).contains(&"g_read".to_owned()));
}

#[test]
fn second_write_call_of_a_response_suspends_the_run_again() {
    let host = Host::writer();
    let (stored, _) = suspend(
        &host,
        calls([write_call("w1", "r1", "one"), write_call("w2", "r2", "two")]),
    );
    let approved = Decision::Approved { approver: admin() };
    let (end, events, seen) = resume_fresh(&host, &stored, approved.clone(), []);
    assert!(seen.is_empty(), "the model waits for the second decision");
    let state = suspended(end);
    assert_eq!(state.pending().call.id, "w2");
    assert_eq!(state.decisions().len(), 1);
    assert_eq!(host.record("r1"), Some(json!("one")));
    assert_eq!(kinds(&events).last().map(String::as_str), Some("suspended"));

    let stored = serde_json::to_string(&state).unwrap();
    let (end, _, seen) = resume_fresh(&host, &stored, approved, [answer("Both set.")]);
    let finished = finished(end);
    assert_eq!(finished.decisions.len(), 2);
    assert_eq!(host.record("r2"), Some(json!("two")));
    assert_eq!(
        tool_results(&seen[0].messages),
        [
            result("w1", "r1 = \"one\"", false),
            result("w2", "r2 = \"two\"", false)
        ]
    );
}

#[test]
fn stored_state_of_an_unknown_format_is_refused_not_guessed() {
    let host = Host::writer();
    let (stored, _) = suspend(&host, calls([write_call("w1", "r1", "v")]));
    assert!(stored.starts_with(r#"{"format":1,"#), "{stored}");
    let newer = stored.replacen(r#""format":1"#, r#""format":2"#, 1);
    let error = serde_json::from_str::<RunState>(&newer).unwrap_err();
    assert!(error.to_string().contains("format 2"), "{error}");
}
