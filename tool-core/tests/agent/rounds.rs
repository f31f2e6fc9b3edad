//! Plain answers, rounds of calls and the round cap.

use super::*;

#[test]
fn plain_answer_without_tool_calls_completes_in_one_round() {
    let registry = registry();
    let model = Scripted::new([answer("Hello.")]);
    let agent = Agent::new(&registry, &model).mark_results(false);
    let (end, events) = Host::new().start(&agent, "Hi");
    let finished = finished(end);
    assert_eq!(finished.status, RunStatus::Completed);
    assert_eq!(finished.answer.as_deref(), Some("Hello."));
    assert_eq!(finished.rounds, 1);
    let seen = model.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].messages, vec![Message::user("Hi")]);
    // The user's grant, in Anthropic's form and name order.
    let tools = offered(&seen[0]);
    assert!(tools.contains(&"a_read".to_owned()) && tools.contains(&"a_count".to_owned()));
    assert!(!tools.contains(&"a_admin".to_owned()) && !tools.contains(&"b_write".to_owned()));
    let mut sorted = tools.clone();
    sorted.sort();
    assert_eq!(tools, sorted);
    assert_eq!(
        kinds(&events),
        [
            "round_started",
            "context_budget",
            "request_sent",
            "response_received",
            "finished"
        ]
    );
    assert_eq!(
        finished.messages,
        vec![
            Message::user("Hi"),
            Message::Assistant {
                text: "Hello.".into(),
                calls: Vec::new()
            }
        ]
    );
}

#[test]
fn one_round_of_calls_sends_every_result_back_with_its_call_id() {
    let registry = registry();
    let model = Scripted::new([
        calls([
            call("c1", "a_read", json!({})),
            call("c2", "g_read", json!({})),
        ]),
        answer("Both read."),
    ]);
    let agent = Agent::new(&registry, &model).mark_results(false);
    let (end, events) = Host::new().start(&agent, "Read both");
    let finished = finished(end);
    assert_eq!(finished.status, RunStatus::Completed);
    assert_eq!(finished.answer.as_deref(), Some("Both read."));
    assert_eq!(finished.rounds, 2);
    let seen = model.seen();
    assert_eq!(seen.len(), 2);
    assert_eq!(
        seen[1].messages[1],
        Message::Assistant {
            text: String::new(),
            calls: vec![
                call("c1", "a_read", json!({})),
                call("c2", "g_read", json!({}))
            ],
        }
    );
    assert_eq!(
        seen[1].messages[2..],
        [
            Message::Tool {
                call_id: "c1".into(),
                name: "a_read".into(),
                content: "ARead".into(),
                is_error: false
            },
            Message::Tool {
                call_id: "c2".into(),
                name: "g_read".into(),
                content: "GRead".into(),
                is_error: false
            },
        ]
    );
    assert_eq!(
        kinds(&events),
        [
            "round_started",
            "context_budget",
            "request_sent",
            "response_received",
            "tool_executed",
            "tool_executed",
            "round_started",
            "context_budget",
            "request_sent",
            "response_received",
            "finished",
        ]
    );
}

#[test]
fn call_to_a_tool_never_offered_is_refused_with_the_neutral_text_and_the_others_run() {
    let registry = registry();
    let model = Scripted::new([
        calls([
            call("c1", "a_admin", json!({})),
            call("c2", "ghost", json!({})),
            call("c3", "a_read", json!({})),
        ]),
        answer("Done."),
    ]);
    let agent = Agent::new(&registry, &model).mark_results(false);
    let (end, events) = Host::new().start(&agent, "Go");
    assert_eq!(finished(end).status, RunStatus::Completed);
    assert_eq!(
        tool_results(&model.seen()[1].messages),
        [
            result("c1", "tool `a_admin` is not available", true),
            result("c2", "tool `ghost` is not available", true),
            result("c3", "ARead", false),
        ]
    );
    // The host sees which gate refused; the model never does.
    let executed = executed(&events);
    assert_eq!(denial(&executed[0].1), Some(Denial::AdminOnly));
    assert_eq!(denial(&executed[1].1), Some(Denial::NotRegistered));
    assert!(matches!(executed[2].1, CallResult::Output { .. }));
}

#[test]
fn bad_arguments_come_back_with_the_path_and_the_model_can_retry() {
    let registry = registry();
    let model = Scripted::new([
        calls([call("c1", "a_scoped", json!({"path": 5}))]),
        calls([call("c2", "a_scoped", json!({"path": "docs/a.md"}))]),
        answer("Read it."),
    ]);
    let agent = Agent::new(&registry, &model).mark_results(false);
    let (end, _) = Host::new().start(&agent, "Read docs/a.md");
    assert_eq!(finished(end).status, RunStatus::Completed);
    let seen = model.seen();
    let first = tool_results(&seen[1].messages);
    assert_eq!(first.len(), 1);
    let (id, text, is_error) = &first[0];
    assert_eq!(id, "c1");
    assert!(is_error);
    assert!(text.contains("/path"), "{text}");
    assert_eq!(
        tool_results(&seen[2].messages)[1],
        result("c2", "docs/a.md", false)
    );
}

#[test]
fn openai_arguments_are_normalized_before_the_call() {
    let registry = registry();
    // Strict mode sends `null` for an argument the model leaves out.
    let script = || {
        [
            calls([call("c1", "a_count", json!({"limit": null}))]),
            answer("Counted."),
        ]
    };
    let openai = Scripted::new(script()).openai();
    let (end, _) = Host::new().start(&Agent::new(&registry, &openai).mark_results(false), "Count");
    assert_eq!(finished(end).status, RunStatus::Completed);
    let seen = openai.seen();
    assert!(
        seen[0]
            .tools
            .iter()
            .flatten()
            .all(|tool| tool["type"] == "function")
    );
    assert_eq!(tool_results(&seen[1].messages), [result("c1", "3", false)]);

    // Other providers' arguments pass unchanged: `null` is not a number.
    let anthropic = Scripted::new(script());
    let (end, _) = Host::new().start(
        &Agent::new(&registry, &anthropic).mark_results(false),
        "Count",
    );
    assert_eq!(finished(end).status, RunStatus::Completed);
    let (_, text, is_error) = &tool_results(&anthropic.seen()[1].messages)[0];
    assert!(*is_error && text.contains("/limit"), "{text}");
}

// The round cap.

#[test]
fn cap_reached_with_calls_pending_ends_truncated_after_a_tool_free_closing_request() {
    let registry = registry();
    let model = Scripted::new([
        calls([call("c1", "a_read", json!({}))]),
        calls([call("c2", "a_read", json!({}))]),
        // Calls in the closing answer cannot run: no tools were offered.
        Ok(ModelResponse {
            text: "What I found so far.".into(),
            calls: vec![call("c3", "a_read", json!({}))],
            usage: Usage::default(),
            ..ModelResponse::default()
        }),
    ]);
    let agent = Agent::new(&registry, &model)
        .mark_results(false)
        .max_rounds(2);
    let (end, events) = Host::new().start(&agent, "Dig");
    let finished = finished(end);
    assert_eq!(finished.status, RunStatus::Truncated);
    assert_eq!(finished.answer.as_deref(), Some("What I found so far."));
    assert_eq!(finished.rounds, 3);
    let seen = model.seen();
    assert_eq!(seen.len(), 3);
    assert!(seen[0].tools.is_some() && seen[1].tools.is_some());
    assert_eq!(seen[2].tools, None);
    // The pending call's result is in the closing request, then the prompt.
    let closing = &seen[2].messages;
    assert_eq!(
        tool_results(closing).last(),
        Some(&result("c2", "ARead", false))
    );
    assert_eq!(closing.last(), Some(&Message::user(DEFAULT_CLOSING_PROMPT)));
    assert_eq!(
        finished.messages.last(),
        Some(&Message::Assistant {
            text: "What I found so far.".into(),
            calls: Vec::new()
        })
    );
    assert_eq!(executed(&events).len(), 2);
    assert!(matches!(
        events.iter().rev().nth(2),
        Some(Event::RequestSent { tools: None, .. })
    ));
}

#[test]
fn default_round_cap_is_five() {
    let registry = registry();
    let mut script: Vec<Reply> = (0..5)
        .map(|i| calls([call(&format!("c{i}"), "a_read", json!({}))]))
        .collect();
    script.push(answer("Enough."));
    let model = Scripted::new(script);
    let (end, _) = Host::new().start(&Agent::new(&registry, &model).mark_results(false), "Loop");
    assert_eq!(finished(end).status, RunStatus::Truncated);
    let seen = model.seen();
    assert_eq!(seen.len(), 6);
    assert!(seen[..5].iter().all(|s| s.tools.is_some()));
    assert_eq!(seen[5].tools, None);
}

#[test]
fn answer_in_the_last_round_completes_without_a_closing_request() {
    let registry = registry();
    let model = Scripted::new([calls([call("c1", "a_read", json!({}))]), answer("Done.")]);
    let agent = Agent::new(&registry, &model)
        .mark_results(false)
        .max_rounds(2);
    let (end, _) = Host::new().start(&agent, "Go");
    assert_eq!(finished(end).status, RunStatus::Completed);
    assert_eq!(model.seen().len(), 2);
}

#[test]
fn empty_grant_sends_no_tools_field() {
    let registry = registry();
    let mut host = Host::new();
    host.selection = Selection::Only(BTreeSet::new());
    let model = Scripted::new([
        // A model that calls a tool anyway is refused like any other.
        calls([call("c1", "a_read", json!({}))]),
        answer("Plain."),
    ]);
    let (end, events) = host.start(&Agent::new(&registry, &model).mark_results(false), "Hi");
    assert_eq!(finished(end).status, RunStatus::Completed);
    let seen = model.seen();
    assert!(seen.iter().all(|s| s.tools.is_none()));
    assert_eq!(
        tool_results(&seen[1].messages),
        [result("c1", "tool `a_read` is not available", true)]
    );
    let request = events
        .iter()
        .find(|e| matches!(e, Event::RequestSent { .. }))
        .unwrap();
    assert_eq!(serde_json::to_value(request).unwrap()["tools"], Value::Null);
}
