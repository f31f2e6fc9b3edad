"""Budgets: an administrator gives petra 1,000 tokens a day on the people
page; petra's next run in the playground stops before its first request,
`stopped by the budget` with the reason; the people page shows the budget
beside what was spent."""

from conftest import sign_in, url


def test_a_daily_budget_stops_the_run_before_its_request(page, browser):
    sign_in(page, "admin")
    page.goto(url("/users"))
    form = "div.budget[data-name=petra] form.budget-form"
    page.fill(f"{form} input[name=tokens_per_day]", "1000")
    page.click(f"{form} button")
    page.wait_for_url(url("/users"))
    assert page.inner_text(".notice") == "Budget of petra saved."
    assert "of 1000" in page.inner_text("div.budget[data-name=petra] dd.day-tokens")

    petra = browser.new_context().new_page()
    sign_in(petra, "petra")
    petra.goto(url("/playground"))
    petra.fill("textarea[name=prompt]", "SAY hello")
    petra.click("button.run")
    petra.wait_for_selector("#inspector[data-done=true]")
    assert petra.inner_text("#summary [data-field=status]") == "stopped by the budget"
    reason = petra.inner_text("#steps li.answer")
    assert "petra's budget is 1000 tokens a day" in reason, reason
    petra.context.close()

    # Back to the default (no limit), and a wrong number is refused.
    page.goto(url("/users"))
    page.fill(f"{form} input[name=tokens_per_day]", "many")
    page.click(f"{form} button")
    assert "not a number" in page.inner_text(".notice")
    page.check(f"{form} input[name=use_default]")
    page.click(f"{form} button")
    assert page.inner_text(".notice") == "Budget of petra saved."
    assert "(no limit)" in page.inner_text("div.budget[data-name=petra] dd.day-tokens")
