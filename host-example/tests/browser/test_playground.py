"""The playground: a dry run shows what would be sent; a run against the
scripted model (tests/support/scripted_model.rs) streams its steps live
into the inspector and ends with the answer; whatever the model writes is
text; a switched-off group is gone; an editor is offered only what the
gates offer them, as on the command line."""

from conftest import release_model, screenshot, sign_in, url

HOSTILE = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'


def picker_tools(page, group):
    return page.eval_on_selector_all(
        f"fieldset.group[data-group={group}] li.offered-tool", "els => els.map(e => e.dataset.tool)"
    )


def step_kinds(page):
    return page.eval_on_selector_all("#steps li.step", "els => els.map(e => e.className.split(' ')[1])")


def test_a_dry_run_shows_the_tools_offered(page):
    sign_in(page, "admin")
    page.goto(url("/playground"))
    structure = picker_tools(page, "structure")
    assert "list_tables" in structure
    page.fill("textarea[name=prompt]", "Which tables are there?")
    # The group's box ticks each of its tools.
    page.check("input.group-box[value=structure]")
    ticked = page.eval_on_selector_all("input.tool-box:checked", "els => els.map(e => e.value)")
    assert sorted(ticked) == sorted(structure)
    page.uncheck("input.tool-box[value=list_tables]")
    assert page.eval_on_selector("input.group-box[value=structure]", "e => e.indeterminate")
    page.check("input.tool-box[value=list_tables]")
    page.click("button.dry")
    offered = page.eval_on_selector_all("li.dry-tool", "els => els.map(e => e.dataset.tool)")
    assert sorted(offered) == sorted(structure)
    request = page.inner_text("pre.request")
    assert '"model": "scripted"' in request and "Which tables are there?" in request
    assert '"name": "list_tables"' in request
    assert "Estimated total" in page.inner_text("table.budget")
    # Nothing was asked of the model, so nothing ran.
    assert page.locator("#inspector").count() == 0
    screenshot(page, "playground-dry-run")


def test_the_model_configuration_is_picked(page):
    sign_in(page, "admin")
    page.goto(url("/playground"))
    options = page.eval_on_selector_all("select[name=model] option", "els => els.map(e => e.value)")
    assert options == ["", "second"]
    page.fill("textarea[name=prompt]", "Hello")
    page.select_option("select[name=model]", "second")
    page.click("button.dry")
    assert '"model": "second"' in page.inner_text("pre.request")
    assert page.input_value("select[name=model]") == "second"


def test_a_group_switched_off_is_gone_from_the_playground(page):
    sign_in(page, "admin")
    page.goto(url("/playground"))
    groups = page.eval_on_selector_all("fieldset.group", "els => els.map(e => e.dataset.group)")
    group = next(g for g in groups if g != "structure")
    assert picker_tools(page, group)

    def switch(state):
        page.goto(url("/tools"))
        page.select_option(f"#group-{group} form.switch select[name=state]", state)
        page.click(f"#group-{group} form.switch button")
        page.wait_for_url(url("/tools"))

    switch("disabled")
    page.goto(url("/playground"))
    assert page.locator(f"fieldset.group[data-group={group}]").count() == 0
    assert not set(picker_tools(page, group))
    switch("unset")
    page.goto(url("/playground"))
    assert picker_tools(page, group)


def test_a_run_streams_its_steps_live_and_ends_with_the_answer(page):
    sign_in(page, "admin")
    page.goto(url("/playground"))
    page.fill("textarea[name=prompt]", "HOLD live-run\nCALL list_tables {}")
    page.check("input[name=capture_raw]")
    page.click("button.run")
    page.wait_for_url(url("/playground/live/*"))
    # The model holds its first answer: the run is visibly under way.
    page.wait_for_selector("#steps li.waiting")
    assert step_kinds(page) == ["budget", "request", "waiting"]
    assert page.inner_text("#summary [data-field=status]") == "running"
    assert page.locator("#steps li.answer").count() == 0
    budget = page.inner_text("#steps li.budget")
    for line in ["Window", "Output reserve", "Safety margin", "Tool schemas", "Estimated total", "Left"]:
        assert line in budget
    release_model(page, "live-run")
    page.wait_for_selector("#steps li.stored")
    assert step_kinds(page) == [
        "budget", "request", "response", "tool", "exposure", "budget", "request", "response", "answer",
        "stored",
    ]
    assert page.inner_text("#steps li.tool h3").startswith("Tool list_tables")
    # What the call brought in: internal data, so the run's exposure rose.
    assert "exposure after list_tables" in page.inner_text("#steps li.exposure")
    assert "internal data" in page.inner_text("#steps li.exposure")
    assert page.inner_text(".answer-text").startswith("The tools answered:")
    assert page.inner_text("#summary [data-field=status]") == "completed"
    assert page.inner_text("#summary [data-field=rounds]") == "2"
    assert page.inner_text("#summary [data-field=tool_calls]") == "1"
    assert page.inner_text("#summary [data-field=cost]") not in ("unknown", "–")
    # The scripted model returns its reasoning; the raw answer was kept.
    assert page.locator("#steps li.response details pre.thinking").count() == 2
    assert page.locator("#steps li.response details pre.raw").count() == 2
    page.locator("#steps li.response details").first.click()
    page.locator("#inspector").scroll_into_view_if_needed()
    page.evaluate("document.getElementById('inspector').scrollIntoView()")
    screenshot(page, "playground-run")


def test_a_write_call_suspends_the_run_with_its_proposal(page):
    sign_in(page, "admin")
    page.goto(url("/playground"))
    page.fill("textarea[name=prompt]", 'CALL update_page_metadata {"page": 2, "title": "Proposed in the playground"}')
    page.click("button.run")
    page.wait_for_selector("#steps li.stored")
    assert step_kinds(page) == ["budget", "request", "response", "tool", "suspended", "stored"]
    suspended = page.inner_text("#steps li.suspended")
    assert "update_page_metadata waits for an approval" in suspended
    assert "Proposed in the playground" in suspended
    assert page.inner_text("#summary [data-field=status]") == "suspended"
    # It waits in the inbox like any run's proposal.
    page.goto(url("/approvals"))
    assert page.locator("article.card", has_text="Proposed in the playground").count() == 1


def test_a_model_answer_with_markup_is_text(page):
    sign_in(page, "admin")
    page.goto(url("/playground"))
    page.fill("textarea[name=prompt]", "SAY " + HOSTILE)
    page.click("button.run")
    page.wait_for_selector("#steps li.answer")
    assert page.inner_text(".answer-text") == HOSTILE
    assert page.locator("#steps script, #steps img, main img").count() == 0
    page.wait_for_selector("#inspector[data-done=true]")
    assert page.evaluate("window.__pwned") is None
    # The form shows the prompt again, as text too.
    assert page.input_value("textarea[name=prompt]") == "SAY " + HOSTILE


def test_an_editor_is_offered_only_their_tools(page):
    sign_in(page, "clara")
    response = page.goto(url("/playground"))
    assert response.status == 200
    offered = page.eval_on_selector_all("li.offered-tool", "els => els.map(e => e.dataset.tool)")
    assert offered, "an editor is offered some tools"
    # Tools that need an administrator are not among them.
    for admin_only in ["read_source", "list_users", "get_env"]:
        assert admin_only not in offered, admin_only
    page.fill("textarea[name=prompt]", "SAY hello")
    page.click("button.run")
    page.wait_for_selector("#steps li.answer")
    assert page.inner_text(".answer-text") == "hello"


def test_a_tools_image_is_shown_inline_from_the_servers_data_url(page):
    sign_in(page, "admin")
    page.goto(url("/playground"))
    page.fill("textarea[name=prompt]", 'CALL render_swatch {"colour": "red"}')
    page.click("button.run")
    page.wait_for_url(url("/playground/live/*"))
    page.wait_for_selector("#steps li.stored")
    image = page.locator("#steps li.tool img.result-image")
    assert image.count() == 1
    assert image.get_attribute("src").startswith("data:image/png;base64,iVBORw0KGgo")
    # Decoded by the browser: the page's Content-Security-Policy admits it.
    page.wait_for_function("() => document.querySelector('img.result-image').complete")
    assert image.evaluate("img => img.naturalWidth") == 1
    screenshot(page, "playground-image")



def test_a_calls_progress_is_shown_while_it_runs(page):
    sign_in(page, "admin")
    page.goto(url("/playground"))
    page.fill("textarea[name=prompt]", "CALL count_to_three {}")
    page.click("button.run")
    page.wait_for_url(url("/playground/live/*"))
    page.wait_for_selector("#steps li.stored")
    step = page.locator("#steps li.progress")
    assert step.count() == 1
    bar = step.locator("progress")
    assert bar.get_attribute("aria-label") == "progress of count_to_three"
    # The newest report, as the call ended.
    assert bar.evaluate("bar => [bar.value, bar.max]") == [3, 3]
    assert step.locator(".progress-text").inner_text() == "3 of 3 · counted 3"


def test_a_text_result_reads_as_text_with_its_line_breaks(page):
    sign_in(page, "admin")
    page.goto(url("/playground"))
    page.fill("textarea[name=prompt]", "CALL get_pagetree {}")
    page.click("button.run")
    page.wait_for_selector("#inspector[data-done=true]")
    text = page.inner_text("#steps li.tool pre.result-text")
    assert len(text.splitlines()) > 3, text
    assert "\\n" not in text and '"text"' not in text, text


def test_an_administrator_watches_another_users_live_run_and_an_editor_may_not(browser):
    # The rule of every stored run (may_see_run): the user it acts for and
    # administrators; anyone else finds no such run.
    clara = browser.new_context().new_page()
    sign_in(clara, "clara")
    clara.goto(url("/playground"))
    clara.fill("textarea[name=prompt]", "HOLD watched-run\nSAY watched")
    clara.click("button.run")
    clara.wait_for_url(url("/playground/live/*"))
    live = clara.url
    petra = browser.new_context().new_page()
    sign_in(petra, "petra")
    assert petra.goto(live).status == 404
    admin = browser.new_context().new_page()
    sign_in(admin, "admin")
    assert admin.goto(live).status == 200
    admin.wait_for_selector("#steps li.waiting")
    release_model(admin, "watched-run")
    admin.wait_for_selector("#steps li.answer")
    assert admin.inner_text(".answer-text") == "watched"
    for page in (clara, petra, admin):
        page.context.close()


def test_a_run_without_a_prompt_is_refused_in_the_form_with_the_apps_words(page):
    # The same rule, and the same words, as the command line's `run`.
    sign_in(page, "admin")
    page.goto(url("/playground"))
    page.fill("textarea[name=prompt]", "   ")
    page.click("button.run")
    assert "write a prompt first" in page.inner_text("main")
    assert "/playground/live/" not in page.url
