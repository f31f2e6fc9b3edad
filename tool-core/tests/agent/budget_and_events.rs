//! The budget, failures and usage; bad model input, events and `Send`.

use super::*;

#[test]
fn budget_check_runs_before_every_round_and_can_end_the_run() {
    let registry = registry();
    let model = Scripted::new([
        Ok(ModelResponse {
            text: String::new(),
            calls: vec![call("c1", "a_read", json!({}))],
            usage: Usage {
                input_tokens: 80,
                output_tokens: 30,
            },
            ..ModelResponse::default()
        }),
        answer("never asked"),
    ]);
    let checks = Mutex::new(Vec::new());
    let agent = Agent::new(&registry, &model)
        .mark_results(false)
        .budget(|spent: &Spent| {
            checks.lock().unwrap().push(*spent);
            if spent.usage.total() >= 100 {
                Err(BudgetExceeded::new("the run's 100 tokens are spent"))
            } else {
                Ok(())
            }
        });
    let (end, events) = Host::new().start(&agent, "Go");
    let finished = finished(end);
    assert_eq!(
        finished.status,
        RunStatus::Budget {
            reason: "the run's 100 tokens are spent".into()
        }
    );
    assert_eq!(finished.answer, None);
    assert_eq!(finished.rounds, 1);
    assert_eq!(model.seen().len(), 1);
    let checks = checks.lock().unwrap().clone();
    assert_eq!(checks.iter().map(|s| s.rounds).collect::<Vec<_>>(), [0, 1]);
    assert_eq!(checks[1].usage.total(), 110);
    // The call of the last round was answered before the run ended.
    assert_eq!(executed(&events).len(), 1);
    assert!(matches!(
        events.last(),
        Some(Event::Finished {
            status: RunStatus::Budget { .. },
            ..
        })
    ));
}

#[test]
fn budget_spent_before_the_first_round_sends_nothing() {
    let registry = registry();
    let model = Scripted::new([]);
    let agent = Agent::new(&registry, &model)
        .mark_results(false)
        .budget(|_: &Spent| Err(BudgetExceeded::new("the daily budget is spent")));
    let (end, _) = Host::new().start(&agent, "Go");
    let finished = finished(end);
    assert!(matches!(finished.status, RunStatus::Budget { .. }));
    assert_eq!(finished.rounds, 0);
    assert!(model.seen().is_empty());
}

#[test]
fn model_error_ends_the_run_as_failed() {
    let registry = registry();
    let error = ModelError::Unavailable {
        message: "connection reset".into(),
    };
    let model = Scripted::new([calls([call("c1", "a_read", json!({}))]), Err(error.clone())]);
    let (end, events) = Host::new().start(&Agent::new(&registry, &model).mark_results(false), "Go");
    let finished = finished(end);
    assert_eq!(finished.status, RunStatus::Failed { error });
    assert_eq!(finished.answer, None);
    assert_eq!(finished.rounds, 2);
    assert_eq!(
        finished.usage.total(),
        15,
        "usage before the failure counts"
    );
    assert!(matches!(
        events.last(),
        Some(Event::Finished {
            status: RunStatus::Failed { .. },
            ..
        })
    ));
}

#[test]
fn usage_is_summed_over_the_run_and_saturates() {
    let registry = registry();
    let huge = Usage {
        input_tokens: u64::MAX,
        output_tokens: 1,
    };
    let model = Scripted::new([
        calls([call("c1", "a_read", json!({}))]),
        Ok(ModelResponse {
            text: "Done.".into(),
            calls: Vec::new(),
            usage: huge,
            ..ModelResponse::default()
        }),
    ]);
    let (end, events) = Host::new().start(&Agent::new(&registry, &model).mark_results(false), "Go");
    let finished = finished(end);
    assert_eq!(
        finished.usage,
        Usage {
            input_tokens: u64::MAX,
            output_tokens: 6
        }
    );
    assert!(matches!(
        events.last(),
        Some(Event::Finished { usage, .. }) if *usage == finished.usage
    ));
}

// Bad model input, events, Send.

#[test]
fn odd_model_input_never_panics_and_every_call_id_gets_one_result() {
    let registry = registry();
    let long_name = "x".repeat(10_000);
    let model = Scripted::new([
        calls([
            call("d", "a_read", json!({})),
            call("d", "g_read", json!({})),
            call("s", "a_read", json!("not an object")),
            call("n", "a_scoped", Value::Null),
            call("e", "", json!({})),
            call("l", &long_name, json!([1, 2])),
        ]),
        answer("Sorry."),
    ]);
    let (end, events) = Host::new().start(&Agent::new(&registry, &model).mark_results(false), "Go");
    assert_eq!(finished(end).status, RunStatus::Completed);
    let seen = model.seen();
    let Message::Assistant { calls, .. } = &seen[1].messages[1] else {
        panic!("expected the assistant's calls");
    };
    let ids: Vec<&str> = calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["d", "s", "n", "e", "l"], "the repeated id is dropped");
    let results = tool_results(&seen[1].messages);
    let answered: Vec<&str> = results.iter().map(|(id, ..)| id.as_str()).collect();
    assert_eq!(answered, ids);
    assert_eq!(results[0], result("d", "ARead", false));
    assert!(results[1..].iter().all(|(_, _, is_error)| *is_error));
    assert!(results[1].1.contains("(root)"), "{}", results[1].1);
    // The raw response, duplicate included, is in the events.
    assert!(matches!(&events[3], Event::ResponseReceived { calls, .. } if calls.len() == 6));
}

#[test]
fn events_are_serializable_and_stream_live_to_a_closure() {
    let registry = registry();
    let host = Host::writer();
    let model = Scripted::new([calls([
        call("c1", "a_admin", json!({})),
        write_call("w1", "r1", "v"),
    ])]);
    let agent = Agent::new(&registry, &model).mark_results(false);
    let mut live = Vec::new();
    let mut sink = |event: &Event| live.push(event.clone().into_owned());
    let end = block_on(agent.start(
        vec![Message::system("Be brief."), Message::user("Go")],
        host.inputs(),
        &host.cx(),
        &mut sink,
    ));
    let _ = suspended(end);
    assert_eq!(
        kinds(&live),
        [
            "round_started",
            "context_budget",
            "request_sent",
            "response_received",
            "tool_executed",
            "tool_executed",
            "suspended"
        ]
    );
    let json = serde_json::to_string(&live).unwrap();
    let back: Vec<Event> = serde_json::from_str(&json).unwrap();
    assert_eq!(back, live);
    let value: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(value[4]["tool"], "a_admin");
    assert_eq!(value[4]["result"]["kind"], "output");
    assert_eq!(value[5]["result"]["kind"], "proposed");
    assert_eq!(value[6]["proposal"]["summary"], "set r1 to v");
}

#[test]
fn run_futures_are_send() {
    fn assert_send<T: Send>(_: &T) {}
    let registry = registry();
    let host = Host::writer();
    let model = Scripted::new([]);
    let agent = Agent::new(&registry, &model)
        .mark_results(false)
        .budget(|_: &Spent| Ok(()));
    let cx = host.cx();
    let mut events: Vec<Event> = Vec::new();
    let start = agent.start(Vec::new(), host.inputs(), &cx, &mut events);
    assert_send(&start);
    drop(start);
    let (stored, _) = suspend(&host, calls([write_call("w1", "r1", "v")]));
    let state: RunState = serde_json::from_str(&stored).unwrap();
    let decision = Decision::Approved { approver: admin() };
    let resume = agent.resume(
        state,
        decision,
        host.inputs(),
        &host.approvals,
        &cx,
        &mut events,
    );
    assert_send(&resume);
}

/// A sink that says it is not listening and fails the test if it is told
/// anything.
struct Deaf;

impl EventSink for Deaf {
    fn event(&mut self, event: &Event<'_>) {
        panic!("a sink that is not listening got {event:?}");
    }

    fn is_listening(&self) -> bool {
        false
    }
}

#[test]
fn a_sink_that_is_not_listening_gets_no_event_and_the_run_is_the_same() {
    let registry = registry();
    let script = || {
        Scripted::new([
            calls([
                call("c1", "a_read", json!({})),
                call("c2", "a_count", json!({})),
            ]),
            answer("Done."),
        ])
    };
    let (heard, deaf) = (script(), script());
    let host = Host::new();
    let (listened, events) = host.start(&Agent::new(&registry, &heard).mark_results(false), "Go");
    let unheard = block_on(Agent::new(&registry, &deaf).mark_results(false).start(
        vec![Message::user("Go")],
        host.inputs(),
        &host.cx(),
        &mut Deaf,
    ));
    assert!(events.len() > 5);
    assert_eq!(finished(unheard), finished(listened));
    let requests = |model: &Scripted| {
        model
            .seen()
            .into_iter()
            .map(|seen| (seen.messages, seen.tools))
            .collect::<Vec<_>>()
    };
    assert_eq!(requests(&deaf), requests(&heard));
}
