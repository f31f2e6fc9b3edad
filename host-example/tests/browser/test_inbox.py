"""The inbox over the host's middle layer: reject with a reason (the run
goes on and the model reads it), edit and approve (the tool checks the edit
and its proposal is shown before it is approved), each person's inbox and
runs are their own."""

import json
import re

from conftest import sign_in, url
from test_actions import call, start_action


def test_reject_with_a_reason_and_the_run_goes_on(page):
    sign_in(page, "clara")
    run = start_action(
        page, "/content/page/22", "update_page_metadata", 22,
        call("update_page_metadata", {"page": 22, "title": "Dealers"}),
    )
    page.goto(url("/approvals"))
    card = page.locator(f"article.card[data-run={run}]")
    card.locator("input[name=reason]").fill("keep the locator name")
    card.locator("button.reject").click()
    page.wait_for_url(url("/approvals"))
    notice = page.inner_text(".notice")
    assert notice.startswith("Rejected. The run answered: The tools answered"), notice
    decided = page.locator("table.decided tr", has_text="keep the locator name")
    assert decided.locator("td.status").inner_text() == "rejected"
    assert decided.locator("td.by").inner_text() == "clara"

    page.goto(url("/content/page/22"))
    assert page.inner_text("dd.title") == "Dealer locator"
    page.goto(url(f"/runs/{run}"))
    assert page.inner_text("dd.status") == "completed"
    assert "rejected by clara" in page.inner_text("table.proposals")


def test_an_edit_is_checked_shown_then_approved(browser):
    clara = browser.new_context().new_page()
    sign_in(clara, "clara")
    run = start_action(
        clara, "/content/page/23", "update_page_metadata", 23,
        call("update_page_metadata", {"page": 23, "title": "Questions"}),
    )
    # An action's run read the page as its editors wrote it: another person
    # decides (gate 9).
    page = browser.new_context().new_page()
    sign_in(page, "admin")
    page.goto(url("/approvals"))
    card = page.locator(f"article.card[data-run={run}]")
    card.locator("details.edit summary").click()

    # An edit the tool refuses is not shown for approval, and decides nothing.
    card.locator("textarea[name=arguments]").fill(json.dumps({"page": 23, "title": " "}))
    card.locator("button.check").click()
    page.wait_for_url(url("/approvals"))
    assert "Nothing was written" in page.inner_text(".notice")
    assert "`title` must have 1 to 255 characters" in page.inner_text(".notice")

    card = page.locator(f"article.card[data-run={run}]")
    card.locator("details.edit summary").click()
    card.locator("textarea[name=arguments]").fill(json.dumps({"page": 23, "title": "Frequent questions"}))
    card.locator("button.check").click()
    edited = page.locator("article.edited")
    assert edited.locator(".new").first.inner_text() == "Frequent questions"
    assert edited.locator(".replaces").first.inner_text() == "FAQ"
    edited.locator("button.approve").click()
    page.wait_for_url(url("/approvals"))
    assert page.inner_text(".notice").startswith("Approved and applied")

    page.goto(url("/content/page/23"))
    assert page.inner_text("dd.title") == "Frequent questions"


def test_an_editor_sees_only_their_runs_and_what_they_may_decide(browser):
    clara = browser.new_context().new_page()
    sign_in(clara, "clara")
    theirs = start_action(
        clara, "/content/page/20", "update_page_metadata", 20,
        call("update_page_metadata", {"page": 20, "nav_title": "Workshop"}),
    )

    nils = browser.new_context().new_page()
    sign_in(nils, "nils")
    mine = start_action(nils, "/content/page/17", "update_page_metadata", 17, "SAY Nothing to change.")
    nils.goto(url("/runs"))
    users = {cell.inner_text() for cell in nils.locator("table.runs td.user").all()}
    assert users == {"nils"}
    assert nils.locator(f"tr[data-run={mine}] td.answer").inner_text() == "Nothing to change."
    assert nils.locator(f"tr[data-run={theirs}]").count() == 0
    response = nils.goto(url(f"/runs/{theirs}"))
    assert response.status == 404

    # Nils may change nothing under the service pages: clara's proposal is
    # not in his inbox, and a forged decision on it is refused.
    nils.goto(url("/approvals"))
    assert nils.locator(f"article.card[data-run={theirs}]").count() == 0
    clara.goto(url("/approvals"))
    card = clara.locator(f"article.card[data-run={theirs}]")
    proposal = card.get_attribute("data-proposal")
    csrf = nils.locator("input[name=csrf]").first.get_attribute("value")
    answer = nils.request.post(
        url(f"/approvals/{proposal}/reject"), form={"csrf": csrf, "reason": "mine now"}
    )
    assert answer.ok
    # The post redirected to the inbox, which told the refusal.
    assert "you may not decide this proposal" in answer.text()
    clara.reload()
    assert clara.locator(f"article.card[data-run={theirs}]").count() == 1

    # An administrator sees every run.
    admin = browser.new_context().new_page()
    sign_in(admin, "admin")
    admin.goto(url("/runs"))
    assert admin.locator(f"tr[data-run={theirs}]").count() == 1
    assert admin.locator(f"tr[data-run={mine}]").count() == 1
    for context in {clara.context, nils.context, admin.context}:
        context.close()
