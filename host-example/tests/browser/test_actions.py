"""Actions on records: a writing tool started from the content browser is
one ordinary run whose proposal waits in the inbox; an editor approves it,
the run goes on to its answer, and the record changes. On several records:
ids pasted, a preview with an estimate, at most 20 runs per press, and a
report counting them."""

import json
import re

from playwright.sync_api import expect

from conftest import screenshot, sign_in, url

NEW_DESCRIPTION = "Five years on every frame, ten on e-bike motors."


def start_action(page, record_path, tool, record, note):
    """Opens the action `tool` on `record` at `record_path`, writes `note`
    and starts it; returns the run's id from the page it lands on."""
    page.goto(url(record_path))
    action = page.locator(f"details.action[data-tool={tool}][data-record='{record}']")
    action.locator("summary").click()
    action.locator("textarea[name=note]").fill(note)
    action.locator("button.start").click()
    page.wait_for_url(re.compile(r".*/runs/run-[0-9a-f]+$"))
    return page.url.rsplit("/", 1)[1]


def call(tool, arguments):
    return f"CALL {tool} {json.dumps(arguments)}"


def test_an_action_proposes_another_person_approves_and_the_record_changes(browser):
    page = browser.new_context().new_page()
    sign_in(page, "clara")
    page.goto(url("/content/page/21"))
    assert page.inner_text("dd.description") == "Five years on every frame."
    page.locator("details.action[data-tool=update_page_metadata] summary").first.click()
    page.locator("details.action[data-tool=update_page_metadata] textarea").first.fill(
        "Mention the motors.\n" + call("update_page_metadata", {"page": 21, "description": NEW_DESCRIPTION})
    )
    screenshot(page, "actions")
    page.locator("details.action[data-tool=update_page_metadata] button.start").first.click()
    page.wait_for_url(re.compile(r".*/runs/run-[0-9a-f]+$"))
    run = page.url.rsplit("/", 1)[1]
    assert "The run proposed" in page.inner_text(".notice")
    assert page.inner_text("dd.status") == "suspended"
    assert "page 21" in page.inner_text("pre.prompt")
    assert "Mention the motors." in page.inner_text("pre.prompt")

    # The prompt quotes the page as its editors wrote it: the run read
    # untrusted content, so the person who asked cannot approve it herself.
    page.goto(url("/approvals"))
    card = page.locator(f"article.card[data-run={run}]")
    assert card.locator(".tool").inner_text() == "update_page_metadata"
    assert card.locator(".requester").inner_text() == "clara"
    assert card.locator(".new").first.inner_text() == NEW_DESCRIPTION
    assert card.locator(".replaces").first.inner_text() == "Five years on every frame."
    assert "untrusted content entered the run through `prompt`" in card.locator(".held").inner_text()
    screenshot(page, "inbox")
    card.locator("button.approve").click()
    page.wait_for_url(url("/approvals"))
    assert "approver other than the person who asked" in page.inner_text(".notice")
    assert page.locator(f"article.card[data-run={run}]").count() == 1

    admin = browser.new_context().new_page()
    sign_in(admin, "admin")
    admin.locator(f"article.card[data-run={run}] button.approve").click()
    admin.wait_for_url(url("/approvals"))
    notice = admin.inner_text(".notice")
    assert notice.startswith("Approved and applied"), notice
    assert "The run answered: The tools answered" in notice, notice
    assert admin.locator(f"article.card[data-run={run}]").count() == 0

    admin.goto(url(f"/runs/{run}"))
    assert admin.inner_text("dd.status") == "completed"
    assert admin.inner_text("dd.answer").startswith("The tools answered")
    assert "approved by admin" in admin.inner_text("table.proposals")

    page.goto(url("/content/page/21"))
    assert page.inner_text("dd.description") == NEW_DESCRIPTION


def test_an_action_on_a_record_not_yours_does_not_start(page):
    sign_in(page, "clara")
    # Page 2 is not clara's to change: the form forged for it is refused with
    # the words of a page that does not exist.
    for record in (2, 999999):
        page.goto(url("/content/page/21"))
        form = page.locator("details.action[data-tool=update_page_metadata] form").first
        form.evaluate(f"f => f.querySelector('input[name=record]').value = '{record}'")
        page.locator("details.action[data-tool=update_page_metadata] summary").first.click()
        form.locator("button.start").click()
        page.wait_for_url(url("/content/page/21"))
        assert page.inner_text(".notice") == (
            "the run was not started: not found or not permitted"
        )


def test_several_records_25_pasted_20_started_and_counted(page):
    sign_in(page, "petra")
    page.goto(url("/content/page/3"))
    first = page.locator("details.action[data-tool=create_translation_draft]").first
    first.locator("summary").click()
    first.locator("a.several").click()
    page.wait_for_url(re.compile(r".*/actions/batch\?tool=create_translation_draft&from=\d+$"))

    # 25 elements of the product pages, petra's (23 to 25 are on a deleted page).
    ids = list(range(8, 23)) + list(range(26, 36))
    page.fill("textarea[name=ids]", " ".join(str(i) for i in ids))
    page.fill("textarea[name=note]", "SAY Nothing to translate today.")
    page.click("button.preview")
    assert page.locator("ul.runnable li").count() == 25
    assert page.locator("table.skipped tbody tr").count() == 0
    assert page.locator("p.cut").count() == 0
    assert page.inner_text("dd.requests") == "50 to 150"
    # The scripted model's configuration has prices but no output ceiling.
    assert page.inner_text("dd.cost").startswith("unknown")
    assert "0.00" not in page.inner_text("dl.estimate")
    assert page.inner_text("button.start") == "Start 20 element run(s)"
    screenshot(page, "batch-preview")

    page.click("button.start")
    page.wait_for_url(re.compile(r".*/actions/batch/report/job-[0-9a-f]+$"))
    # The worker runs the batch; the page reloads itself until it is done.
    expect(page.locator("p.status")).to_have_attribute("data-status", "done", timeout=60_000)
    counts = {
        row.get_attribute("data-kind"): int(row.locator("td.count").inner_text())
        for row in page.locator("table.counts tr").all()
    }
    assert counts == {"proposed": 0, "unchanged": 20, "failed": 0, "guardrail": 0, "cancelled": 0}
    assert page.locator("table.batch tbody tr").count() == 20
    assert "not started yet: 31, 32, 33, 34, 35" in page.inner_text("p.next-press")
    assert page.locator("p.kept").count() == 0
    screenshot(page, "batch-report")

    page.goto(url("/runs"))
    assert page.locator("table.runs td.user", has_text="petra").count() >= 20


def test_a_paste_past_100_ids_is_cut_and_the_skipped_say_why(page):
    sign_in(page, "petra")
    page.goto(url("/actions/batch?tool=create_translation_draft&from=8"))
    pasted = ["8", "8", "abc", "43"] + [str(i) for i in range(1000, 1101)]
    page.fill("textarea[name=ids]", "\n".join(pasted))
    page.click("button.preview")
    assert "5 more were cut" in page.inner_text("p.cut")
    assert page.locator("ul.runnable li").count() == 1
    why = {
        row.locator("td code").inner_text(): row.locator("td.why").inner_text()
        for row in page.locator("table.skipped tbody tr").all()[:3]
    }
    assert why == {
        "8": "listed before",
        "abc": "not a number",
        # Element 43 is on a news page: not petra's, told as missing.
        "43": "not found or not permitted",
    }
