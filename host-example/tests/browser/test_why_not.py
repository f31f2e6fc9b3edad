"""Why not: the playground and the tools page name, for each tool not
offered, the gate that refused it and why; an administrator may ask for
anyone, everyone else only for themselves."""

from conftest import screenshot, sign_in, url


def refused(page):
    return {
        row.get_attribute("data-tool"): row.get_attribute("data-gate")
        for row in page.query_selector_all("#why-not tr.refused")
    }


def offered_in_playground(page):
    return set(page.eval_on_selector_all("li.offered-tool", "els => els.map(e => e.dataset.tool)"))


def test_the_playground_says_why_a_tool_is_not_offered(page):
    sign_in(page, "admin")
    page.goto(url("/playground"))
    gates = refused(page)
    # The default trust zone (`internal`) holds back what reads personal data.
    assert gates.get("get_env") == "trust_zone", gates
    reason = page.inner_text("#why-not tr.refused[data-tool=get_env] td.reason")
    assert reason.startswith("trust zone:"), reason
    # Nothing both offered and explained as refused.
    assert not offered_in_playground(page) & set(gates)
    page.evaluate("document.getElementById('why-not').scrollIntoView()")
    screenshot(page, "why-not")


def test_an_administrator_asks_for_another_user(page):
    sign_in(page, "admin")
    page.goto(url("/tools"))
    assert "render_swatch" not in refused(page)
    page.select_option("#why-not select[name=for]", "clara")
    page.click("#why-not form.for-user button")
    page.wait_for_url(url("/tools?for=clara"))
    assert page.get_attribute("#why-not", "data-subject") == "clara"
    assert refused(page).get("render_swatch") == "admin"


def test_an_editor_sees_their_own_and_no_one_elses(page):
    sign_in(page, "clara")
    page.goto(url("/playground"))
    assert refused(page).get("render_swatch") == "admin"
    assert not page.is_visible("#why-not select[name=for]")
    response = page.goto(url("/playground?for=admin"))
    assert response.status == 403
