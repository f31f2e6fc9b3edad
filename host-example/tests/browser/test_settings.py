"""The settings pages: each concern on its own page, saved with the command
line's checks (a value that does not fit is refused and nothing stored),
a model configuration tested from the page, and a trust zone raised in the
browser changing what the playground offers at once."""

from conftest import screenshot, sign_in, url


def offered_in_playground(page):
    page.goto(url("/playground"))
    return set(page.eval_on_selector_all("li.offered-tool", "els => els.map(e => e.dataset.tool)"))


def save(page, slug, key, value, choice=False):
    page.goto(url(f"/settings/{slug}"))
    form = f"#setting-{key}"
    if choice:
        page.select_option(f"{form} select[name=value]", value)
    else:
        page.fill(f"{form} textarea[name=value]", value)
    page.click(f"{form} button")
    page.wait_for_url(url(f"/settings/{slug}"))
    return page.inner_text(".notice")


def test_raising_the_trust_zone_changes_the_playground_offer(page):
    sign_in(page, "admin")
    assert "get_env" not in offered_in_playground(page)
    assert save(page, "trust-zone", "trust_zone", "confidential", choice=True) == "Saved trust_zone."
    screenshot(page, "settings")
    assert "get_env" in offered_in_playground(page)
    assert save(page, "trust-zone", "trust_zone", "internal", choice=True) == "Saved trust_zone."
    assert "get_env" not in offered_in_playground(page)


def test_a_value_that_does_not_fit_is_refused_and_nothing_stored(page):
    sign_in(page, "admin")
    page.goto(url("/settings/sites"))
    before = page.input_value("#setting-sites textarea")
    notice = save(page, "sites", "sites", "ftp://example.com")
    assert notice.startswith("Not saved: setting `sites`"), notice
    assert page.input_value("#setting-sites textarea") == before
    notice = save(page, "models", "models", '{"large": {"model": "x"}}')
    assert notice.startswith("Not saved: setting `models`"), notice


def test_a_model_configuration_is_tested_from_the_page(page):
    sign_in(page, "admin")
    page.goto(url("/settings/models"))
    page.click("#model-tests button:has-text('the default')")
    assert page.get_attribute("#test-result", "data-ok") == "true"
    assert "the model answered" in page.inner_text("#test-result")
    # One that reaches nothing: the error, on the page.
    broken = '{"broken": {"base_url": "http://127.0.0.1:9/v1", "model": "x", "max_retries": 0, "timeout_secs": 5}}'
    page.goto(url("/settings/models"))
    saved = page.input_value("#setting-models textarea")
    assert save(page, "models", "models", broken) == "Saved models."
    page.click("#model-tests button:has-text('Test broken')")
    assert page.get_attribute("#test-result", "data-ok") == "false"
    assert "did not answer" in page.inner_text("#test-result")
    assert save(page, "models", "models", saved) == "Saved models."


def test_an_editor_gets_403_on_every_settings_page_and_form(page):
    sign_in(page, "clara")
    assert not page.is_visible("nav a[href='/settings']")
    csrf = page.get_attribute("nav input[name=csrf]", "value")
    for path in ["/settings", "/settings/models", "/settings/trust-zone", "/settings/skills", "/settings/sites", "/settings/access"]:
        assert page.goto(url(path)).status == 403, path
    for route, form in [
        ("/settings/trust-zone", {"key": "trust_zone", "value": "personal"}),
        ("/settings/models/test", {"model": ""}),
    ]:
        response = page.request.post(url(route), form={**form, "csrf": csrf})
        assert response.status == 403, route
