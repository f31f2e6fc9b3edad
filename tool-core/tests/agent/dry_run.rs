//! Dry runs and the context budget.

use super::*;

#[test]
fn a_dry_run_assembles_the_first_request_exactly_without_asking_the_model() {
    let registry = registry();
    let host = Host::new();
    let messages = vec![Message::system("Be brief."), Message::user("Count")];
    let idle = Scripted::new([]).openai();
    let dry = Agent::new(&registry, &idle)
        .mark_results(false)
        .dry_run(messages.clone(), host.inputs());
    assert!(idle.seen().is_empty(), "a dry run asks no model");
    assert_eq!(dry.messages, messages);
    let names: Vec<&str> = dry.grant.tool_names().collect();
    assert!(names.contains(&"a_count") && !names.contains(&"a_admin"));

    // A real run sends exactly that as its first request.
    let model = Scripted::new([answer("Three.")]).openai();
    let end = block_on(Agent::new(&registry, &model).mark_results(false).start(
        messages,
        host.inputs(),
        &host.cx(),
        &mut (),
    ));
    let _ = finished(end);
    let seen = model.seen();
    assert_eq!(seen[0].messages, dry.messages);
    assert_eq!(seen[0].tools, dry.tools);
    assert!(
        dry.tools
            .as_ref()
            .is_some_and(|tools| tools[0]["type"] == "function"),
        "the tools are in the model's provider's form"
    );
}

#[test]
fn a_dry_run_with_nothing_granted_offers_no_tools_field() {
    let registry = registry();
    let mut host = Host::new();
    host.selection = Selection::Only(BTreeSet::new());
    let model = Scripted::new([]);
    let dry = Agent::new(&registry, &model)
        .mark_results(false)
        .dry_run(vec![Message::user("Hi")], host.inputs());
    assert_eq!(dry.tools, None);
    assert_eq!(dry.budget.tool_schemas, 0);
}

#[test]
fn every_round_opens_with_a_context_budget_whose_parts_sum_to_its_total() {
    let registry = registry();
    let host = Host::new();
    let model = Scripted::new([calls([call("c1", "a_read", json!({}))]), answer("Read.")]);
    let skills = "## Skill: tidy\nKeep titles short.";
    let system = format!("You work on a site.\n\n{skills}");
    let window = ContextWindow::new(10_000, 1_000);
    let agent = Agent::new(&registry, &model)
        .mark_results(false)
        .context_window(window)
        .skill_bytes(skills.len());
    let mut events = Vec::new();
    let end = block_on(agent.start(
        vec![Message::system(system.clone()), Message::user("Read it")],
        host.inputs(),
        &host.cx(),
        &mut events,
    ));
    let _ = finished(end);
    let budgets: Vec<(u32, ContextBudget)> = events
        .iter()
        .filter_map(|event| match event {
            Event::ContextBudget { round, budget } => Some((*round, *budget)),
            _ => None,
        })
        .collect();
    assert_eq!(
        budgets.iter().map(|(round, _)| *round).collect::<Vec<_>>(),
        [1, 2]
    );
    let seen = model.seen();
    for ((_, budget), request) in budgets.iter().zip(&seen) {
        assert_eq!(budget.limits, window);
        assert_eq!(window.safety_margin, 1_000);
        let tools: u64 = request
            .tools
            .iter()
            .flatten()
            .map(|tool| estimate_tokens(&tool.to_string()))
            .sum();
        assert_eq!(budget.tool_schemas, tools);
        assert!(budget.tool_schemas > 0);
        assert_eq!(budget.skills, estimate_tokens(skills));
        assert_eq!(
            budget.system_prompt + budget.skills,
            MESSAGE_OVERHEAD_TOKENS + estimate_tokens(&system)
        );
        assert_eq!(
            budget.total(),
            budget.system_prompt + budget.skills + budget.tool_schemas + budget.transcript
        );
        assert_eq!(
            budget.left(),
            10_000 - 1_000 - 1_000 - budget.total() as i64
        );
    }
    // The transcript grows by the call and its result.
    assert_eq!(
        budgets[0].1.transcript,
        MESSAGE_OVERHEAD_TOKENS + estimate_tokens("Read it")
    );
    assert!(budgets[1].1.transcript > budgets[0].1.transcript);
    // The budget is sent before its request, after the round starts.
    let kinds = kinds(&events);
    assert_eq!(
        &kinds[..3],
        ["round_started", "context_budget", "request_sent"]
    );
}

#[test]
fn a_request_larger_than_the_window_has_negative_room_left() {
    let budget = ContextBudget::estimate(
        ContextWindow::new(100, 20),
        &[Message::user("x".repeat(400))],
        None,
        0,
    );
    assert_eq!(budget.transcript, MESSAGE_OVERHEAD_TOKENS + 100);
    assert_eq!(budget.left(), 100 - 20 - 10 - 104);
}
