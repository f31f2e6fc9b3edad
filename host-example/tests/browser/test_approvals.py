"""The approvals inbox: a proposal made by a gated call appears as a card,
an editor with rights on the record approves it, and the content browser
shows the change; markup in a proposal is shown as text."""

from conftest import screenshot, sign_in, url


def test_an_editor_approves_and_the_record_changes(page):
    sign_in(page, "clara")
    page.goto(url("/content/page/20"))
    assert page.inner_text("dd.title") == "Repairs"

    page.goto(url("/approvals"))
    card = page.locator("article.card", has_text="Repairs and servicing")
    assert card.locator(".tool").inner_text() == "update_page_metadata"
    assert card.locator(".requester").inner_text() == "ops"
    assert card.locator(".new").first.inner_text() == "Repairs and servicing"
    assert card.locator(".replaces").first.inner_text() == "Repairs"
    screenshot(page, "approvals")
    card.locator("button.approve").click()
    page.wait_for_url(url("/approvals"))
    assert page.inner_text(".notice").startswith("Approved")
    assert page.locator("article.card", has_text="Repairs and servicing").count() == 0
    decided = page.locator("table.decided tr", has_text="page 20")
    assert "approved" in decided.inner_text() and "clara" in decided.inner_text()

    page.goto(url("/content/page/20"))
    assert page.inner_text("dd.title") == "Repairs and servicing"
    screenshot(page, "content")


def test_markup_in_a_proposal_is_text(page):
    sign_in(page, "admin")
    page.goto(url("/approvals"))
    card = page.locator("article.card", has_text="<script>")
    assert card.count() == 1
    assert "<img src=x onerror=" in card.locator(".new").first.inner_text()
    assert card.locator("script, img").count() == 0
    assert page.evaluate("window.__pwned") is None


def test_an_editor_without_rights_cannot_approve(page):
    sign_in(page, "petra")
    page.goto(url("/approvals"))
    card = page.locator("article.card", has_text="<script>")
    card.locator("input[name=reason]").fill("not like this")
    card.locator("button.reject").click()
    page.wait_for_url(url("/approvals"))
    # A rejection needs no rights on the record; it records who and why.
    assert page.inner_text(".notice").startswith("Rejected")
    decided = page.locator("table.decided tr", has_text="not like this")
    assert "petra" in decided.inner_text() and "rejected" in decided.inner_text()
