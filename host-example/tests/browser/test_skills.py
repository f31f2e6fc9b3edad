"""The skills page: a skill never approved is approved from the browser;
changed on disk, it shows which file changed and a line diff of its
SKILL.md, and is approved again."""

import os
import pathlib

from conftest import screenshot, sign_in, url

SKILL_MD = pathlib.Path(os.environ.get("SKILLS_DIR", "/nonexistent")) / "review" / "SKILL.md"


def state(page):
    return page.get_attribute("#skill-review", "data-state")


def test_a_changed_skill_shows_its_diff_and_is_approved_again(page):
    sign_in(page, "admin")
    page.goto(url("/skills"))
    assert state(page) == "never approved"
    page.click("#skill-review button")
    page.wait_for_url(url("/skills"))
    assert page.inner_text(".notice") == "Skill review approved."
    assert state(page) == "approved"

    SKILL_MD.write_text(SKILL_MD.read_text().replace("Read the page tree first.", "Read the page tree twice."))
    page.goto(url("/skills"))
    assert state(page) == "changed"
    assert "`SKILL.md` changed" in page.inner_text("#skill-review ul.changes")
    assert page.inner_text("#skill-review del.removed").strip() == "- Read the page tree first."
    assert page.inner_text("#skill-review ins.added").strip() == "+ Read the page tree twice."
    screenshot(page, "skills")
    page.click("#skill-review button")
    page.wait_for_url(url("/skills"))
    assert state(page) == "approved"


def test_an_editor_may_not_see_or_approve_skills(page):
    sign_in(page, "clara")
    assert page.goto(url("/skills")).status == 403
    csrf = page.get_attribute("nav input[name=csrf]", "value")
    assert page.request.post(url("/skills/review/approve"), form={"csrf": csrf}).status == 403
