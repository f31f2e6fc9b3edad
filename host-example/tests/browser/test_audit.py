"""The audit page: an editor's run whose model calls a tool she is not
granted leaves a gate's refusal, which the filter finds by that gate; each
row links to its run; the filtered rows export as JSON Lines."""

import json

from conftest import screenshot, sign_in, url


def test_the_filter_finds_a_refusal_by_gate(page, browser):
    clara = browser.new_context().new_page()
    sign_in(clara, "clara")
    clara.goto(url("/playground"))
    clara.fill("textarea[name=prompt]", 'CALL get_env {"name": "HOME"}')
    clara.click("button.run")
    clara.wait_for_selector("#inspector[data-done=true]")
    clara.context.close()

    sign_in(page, "admin")
    page.goto(url("/audit?actor=clara&decision=denied"))
    gates = page.eval_on_selector_all("tr.entry[data-gate]", "els => els.map(e => e.dataset.gate)")
    assert gates, page.inner_text("main")
    gate = gates[0]
    page.goto(url("/audit"))
    page.fill("form.audit-filter input[name=gate]", gate)
    page.fill("form.audit-filter input[name=actor]", "clara")
    page.click("form.audit-filter button")
    rows = page.locator("tr.entry")
    assert rows.count() >= 1
    assert set(page.eval_on_selector_all("tr.entry", "els => els.map(e => e.dataset.gate)")) == {gate}
    screenshot(page, "audit")
    # The row names its run, and links to it.
    link = page.locator("tr.entry a[href^='/runs/']").first
    href = link.get_attribute("href")
    page.click(f"tr.entry a[href='{href}']")
    page.wait_for_url(url(href))

    page.go_back()
    response = page.request.get(url(page.get_attribute("#export", "href")))
    assert response.status == 200
    lines = [json.loads(line) for line in response.text().splitlines()]
    assert lines and all(line["gate"] == gate and line["actor"] == "clara" for line in lines)


def test_a_bad_date_is_said_and_an_editor_gets_403(page):
    sign_in(page, "admin")
    page.goto(url("/audit?from=yesterday"))
    assert "not a date" in page.inner_text("[role=alert]")
    assert page.request.get(url("/audit/export?from=2024-02-30")).status == 400
    page.goto(url("/audit?kind=write&decision=refused&tool=signin"))
    assert page.locator("tr.entry").count() >= 1, "failed sign-ins are audited"
    sign_in(page, "clara")
    assert page.goto(url("/audit")).status == 403
    assert page.request.get(url("/audit/export")).status == 403
