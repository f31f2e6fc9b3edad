"""Every page for everyone: axe-core (pinned) finds no serious or critical
violation on any page; the pages work from the keyboard (a skip link
first, every control reachable); the layout holds on a narrow screen."""

import pytest

from conftest import axe_violations, sign_in, url

ADMIN_PAGES = [
    "/approvals",
    "/runs",
    "/content",
    "/content/files",
    "/tools",
    "/playground",
    "/users",
    "/settings",
    "/settings/models",
    "/settings/trust-zone",
    "/settings/skills",
    "/settings/sites",
    "/settings/access",
    "/skills",
    "/audit",
    "/overview",
]


def test_the_sign_in_page_has_no_serious_violations(page):
    page.goto(url("/signin"))
    assert axe_violations(page) == []


@pytest.mark.parametrize("path", ADMIN_PAGES)
def test_no_page_has_serious_violations(page, path):
    sign_in(page, "admin")
    page.goto(url(path))
    assert axe_violations(page) == [], path


def test_a_run_page_and_an_editors_pages_have_no_serious_violations(page):
    sign_in(page, "clara")
    page.goto(url("/playground"))
    page.fill("textarea[name=prompt]", "SAY hello")
    page.click("button.run")
    page.wait_for_selector("#inspector[data-done=true]")
    assert axe_violations(page) == []
    page.goto(url("/runs"))
    page.click("main a[href^='/runs/run-']")
    assert axe_violations(page) == []


def test_the_keyboard_reaches_the_content_first(page):
    sign_in(page, "admin")
    page.goto(url("/users"))
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Skip to the content"
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    # The first control of the page itself, not the navigation.
    assert page.evaluate("document.activeElement.closest('main') !== null")


@pytest.mark.parametrize("path", ["/users", "/tools", "/audit", "/overview", "/settings/models", "/playground"])
def test_the_layout_holds_on_a_narrow_screen(browser, path):
    context = browser.new_context(viewport={"width": 375, "height": 740})
    page = context.new_page()
    sign_in(page, "admin")
    page.goto(url(path))
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    context.close()
    assert overflow <= 1, f"{path} is {overflow}px wider than the screen"


def test_axe_finds_what_it_should(page):
    # The check itself, on a page with a control nobody labelled.
    page.set_content("<!doctype html><html lang=en><title>t</title><main><input></main></html>")
    assert "label" in [v["id"] for v in axe_violations(page)]
