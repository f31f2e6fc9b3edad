"""Who may open what: signing in and out, 403 for editors on admin pages,
the sign-in page for visitors, and CSRF on every form."""

from conftest import screenshot, sign_in, url


def test_a_visitor_is_sent_to_sign_in(page):
    for path in ["/approvals", "/tools", "/playground", "/content"]:
        page.goto(url(path))
        assert page.url == url("/signin"), path


def test_a_wrong_password_is_refused(page):
    page.goto(url("/signin"))
    page.fill("input[name=name]", "admin")
    page.fill("input[name=password]", "not the password")
    page.click("button[type=submit]")
    assert "wrong password" in page.inner_text("[role=alert]")
    screenshot(page, "signin")


def test_an_administrator_signs_in_and_out(page):
    sign_in(page, "admin")
    assert page.is_visible("nav a[href='/tools']")
    cookie = next(c for c in page.context.cookies() if c["name"] == "host_session")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    assert len(cookie["value"]) == 64
    page.click("nav button")
    page.wait_for_url(url("/signin"))
    page.goto(url("/approvals"))
    assert page.url == url("/signin")


def test_an_editor_may_not_open_admin_pages(page):
    sign_in(page, "clara")
    assert not page.is_visible("nav a[href='/tools']")
    response = page.goto(url("/tools"))
    assert response.status == 403
    assert "for administrators" in page.inner_text("main")


def test_a_post_without_the_csrf_token_is_refused(page):
    sign_in(page, "admin")
    form = {"group": "system", "state": "disabled", "egress": "none"}
    refused = page.request.post(url("/tools/group"), form=form)
    assert refused.status == 403
    wrong = page.request.post(url("/tools/group"), form={**form, "csrf": "0" * 64})
    assert wrong.status == 403
    page.goto(url("/tools"))
    assert page.get_attribute("#group-system", "data-enabled") == "true"
