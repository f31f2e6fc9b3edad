"""Fixtures for the browser tests: Debian's chromium through Playwright
(never Playwright's own browser download), the server's base URL from
tests/browser.rs, and signing in."""

import os
import pathlib

import pytest
from playwright.sync_api import sync_playwright

BASE_URL = os.environ.get("BASE_URL", "http://127.0.0.1:8080")
# The scripted model's API root (tests/support/scripted_model.rs).
MODEL_URL = os.environ.get("MODEL_URL", "")
# axe-core's script (tests/browser/install.sh installs it, pinned).
AXE_JS = os.environ.get("AXE_JS", "")
SCREENSHOTS = pathlib.Path(os.environ.get("SCREENSHOTS", pathlib.Path(__file__).parents[3] / "docs" / "images"))
ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1200, "height": 800})
    page = context.new_page()
    yield page
    context.close()


def url(path):
    return BASE_URL + path


def sign_in(page, name, password="demo"):
    page.goto(url("/signin"))
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_url(url("/approvals"))
    assert page.inner_text("nav .who").startswith("Signed in as " + name)


def screenshot(page, name):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=False)


def release_model(page, name):
    """Lets the scripted model answer the prompt that said `HOLD <name>`."""
    response = page.request.post(f"{MODEL_URL}/release/{name}")
    assert response.status == 204


def axe_violations(page):
    """The serious and critical violations axe-core finds on the page as it
    is. The script goes in through the DevTools protocol (page.evaluate),
    which the pages' Content-Security-Policy does not govern, so the pages
    are checked with their real policy on."""
    page.evaluate(pathlib.Path(AXE_JS).read_text())
    found = page.evaluate("async () => (await axe.run(document)).violations")
    return [
        {"id": v["id"], "impact": v["impact"], "targets": [n["target"] for n in v["nodes"]][:5], "help": v["help"]}
        for v in found
        if v["impact"] in ("serious", "critical")
    ]
