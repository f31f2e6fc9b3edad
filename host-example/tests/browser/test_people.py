"""The people page: add a user, set a password, make a token (shown once)
that works at /mcp until it is revoked, make and unmake an administrator
(never the last one); an editor gets 403 on the page and every route."""

from conftest import screenshot, sign_in, url

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}},
}


def mcp_status(page, token):
    response = page.request.post(
        url("/mcp"),
        data=INITIALIZE,
        headers={
            "authorization": f"Bearer {token}",
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
        },
    )
    return response.status


def notice(page):
    return page.inner_text(".notice")


def test_add_a_user_and_set_their_password(page, browser):
    sign_in(page, "admin")
    page.goto(url("/users"))
    page.fill("form.add-user input[name=name]", "tomas")
    page.fill("form.add-user input[name=password]", "first password")
    page.click("form.add-user button")
    page.wait_for_url(url("/users"))
    assert notice(page) == "User tomas added."
    assert page.get_attribute("#user-tomas", "data-admin") == "false"
    page.fill("#user-tomas input[name=password]", "second password")
    page.click("#user-tomas button:has-text('Set password')")
    assert notice(page) == "Password of tomas set."
    # A name that cannot be one is refused with the rule.
    page.fill("form.add-user input[name=name]", "no spaces")
    page.click("form.add-user button")
    assert "invalid user name" in notice(page)

    other = browser.new_context().new_page()
    sign_in(other, "tomas", "second password")
    other.context.close()


def test_a_token_made_in_the_browser_works_until_revoked(page):
    sign_in(page, "admin")
    page.goto(url("/users"))
    page.click("#user-petra button:has-text('Make a token')")
    token = page.inner_text("#token-value")
    assert len(token) == 64
    screenshot(page, "people")
    assert mcp_status(page, token) == 200
    page.goto(url("/users"))
    # Only its id is listed, never the token.
    assert token not in page.content()
    ids = page.eval_on_selector_all("#user-petra tr.token", "els => els.map(e => e.dataset.id)")
    assert len(ids) == 1
    page.click(f"#user-petra tr.token[data-id='{ids[0]}'] button")
    page.wait_for_url(url("/users"))
    assert notice(page) == f"Token {ids[0]} of petra revoked."
    assert mcp_status(page, token) == 401


def test_make_and_unmake_an_administrator_but_never_the_last(page):
    sign_in(page, "admin")
    page.goto(url("/users"))
    page.click("#user-nils button:has-text('Make administrator')")
    assert notice(page) == "nils is an administrator."
    assert page.get_attribute("#user-nils", "data-admin") == "true"
    page.click("#user-nils button:has-text('Unmake administrator')")
    assert notice(page) == "nils is no longer an administrator."
    # Every other administrator unmade, the last one stays.
    others = page.eval_on_selector_all(
        "article.person[data-admin=true]", "els => els.map(e => e.dataset.name)"
    )
    others.remove("admin")
    for name in others:
        page.click(f"#user-{name} button:has-text('Unmake administrator')")
        assert notice(page) == f"{name} is no longer an administrator."
    page.click("#user-admin button:has-text('Unmake administrator')")
    assert "last administrator" in notice(page)
    assert page.get_attribute("#user-admin", "data-admin") == "true"
    for name in others:
        page.click(f"#user-{name} button:has-text('Make administrator')")
        assert notice(page) == f"{name} is an administrator."


def test_an_editor_gets_403_on_the_page_and_every_route(page):
    sign_in(page, "clara")
    assert not page.is_visible("nav a[href='/users']")
    csrf = page.get_attribute("nav input[name=csrf]", "value")
    assert page.goto(url("/users")).status == 403
    for route, form in [
        ("/users/add", {"name": "mallory", "password": "x"}),
        ("/users/clara/password", {"password": "x"}),
        ("/users/admin/token", {}),
        ("/users/clara/token", {}),
        ("/users/admin/tokens/000000000000/revoke", {}),
        ("/users/clara/admin", {"admin": "on"}),
        ("/users/admin/unlock", {}),
    ]:
        response = page.request.post(url(route), form={**form, "csrf": csrf})
        assert response.status == 403, route
