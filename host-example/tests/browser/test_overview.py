"""The overview: its SVG charts, drawn on the server, show the calls a test
made (a run calling get_pagetree today) and the tokens it spent; the page
runs no script and loads nothing from elsewhere."""

from conftest import screenshot, sign_in, url


def test_the_charts_show_the_calls_a_test_made(page):
    sign_in(page, "admin")
    page.goto(url("/overview?days=7"))
    before = page.eval_on_selector_all(
        "#chart-calls rect[data-series=get_pagetree]", "els => els.map(e => Number(e.dataset.value))"
    )
    page.goto(url("/playground"))
    page.fill("textarea[name=prompt]", "CALL get_pagetree {}")
    page.click("button.run")
    page.wait_for_selector("#inspector[data-done=true]")

    page.goto(url("/overview?days=7"))
    after = page.eval_on_selector_all(
        "#chart-calls rect[data-series=get_pagetree]", "els => els.map(e => Number(e.dataset.value))"
    )
    assert sum(after) == sum(before) + 1, (before, after)
    assert page.locator("#chart-tokens rect").count() >= 1
    assert page.locator("#chart-refusals rect").count() >= 1
    assert page.locator("script").count() == 0
    screenshot(page, "overview")


def test_a_period_that_is_not_offered_is_refused(page):
    sign_in(page, "admin")
    response = page.goto(url("/overview?days=3"))
    assert response.status == 400
    assert "choose 7, 30 or 90" in page.inner_text("[role=alert]")
    sign_in(page, "clara")
    assert page.goto(url("/overview")).status == 403
