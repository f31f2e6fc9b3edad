"""Sign-in that resists guessing: twenty wrong passwords lock a name for a
while, and the page says the same for a wrong password, a name that does
not exist and a locked name, even when the password is right. The guesser
comes through the trusted proxy (127.0.0.1) with its own forwarded address,
so the other tests' sign-ins are not held back."""

import pytest

from conftest import sign_in, url


@pytest.fixture
def guesser(browser):
    context = browser.new_context(extra_http_headers={"X-Forwarded-For": "203.0.113.50"})
    page = context.new_page()
    yield page
    context.close()


def attempt(page, name, password):
    page.goto(url("/signin"))
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", password)
    with page.expect_navigation() as navigation:
        page.click("button[type=submit]")
    return navigation.value.status, page.inner_text("[role=alert]")


def test_twenty_wrong_passwords_lock_a_name_with_one_message(guesser):
    status, unknown = attempt(guesser, "no-such-person", "demo")
    assert status == 401
    answers = {attempt(guesser, "nils", "not the password") for _ in range(20)}
    assert answers == {(401, unknown)}
    # The right password during the lock: the same answer.
    assert attempt(guesser, "nils", "demo") == (401, unknown)


def test_an_administrator_lifts_the_lock_in_the_browser(page, browser):
    sign_in(page, "admin")
    page.goto(url("/users"))
    assert page.is_visible("#locks li.lock[data-name=nils]")
    page.click("#locks li.lock[data-name=nils] button")
    page.wait_for_url(url("/users"))
    assert page.inner_text(".notice") == "Sign-in of nils unlocked."
    assert not page.is_visible("#locks")
    # From another address (the guesser's own stays held back a while).
    context = browser.new_context(extra_http_headers={"X-Forwarded-For": "203.0.113.51"})
    nils = context.new_page()
    sign_in(nils, "nils")
    context.close()
