"""The tools page: switching a group off takes its tools out of what a new
run is offered; switching it back on returns them."""

from conftest import screenshot, sign_in, url


def offered_in_playground(page):
    page.goto(url("/playground"))
    return set(page.eval_on_selector_all("li.offered-tool", "els => els.map(e => e.dataset.tool)"))


def test_switching_a_group_off_removes_its_tools(page):
    sign_in(page, "admin")
    page.goto(url("/tools"))
    screenshot(page, "tools")
    group = "structure"
    tools = page.eval_on_selector_all(
        f"#group-{group} tr.tool[data-offered=true]", "els => els.map(e => e.dataset.tool)"
    )
    assert tools, "the group offers tools before it is switched off"
    assert set(tools) <= offered_in_playground(page)

    page.goto(url("/tools"))
    page.select_option(f"#group-{group} form.switch select[name=state]", "disabled")
    page.click(f"#group-{group} form.switch button")
    page.wait_for_url(url("/tools"))
    assert f"Group {group} saved." in page.inner_text(".notice")
    assert page.get_attribute(f"#group-{group}", "data-enabled") == "false"
    assert "no effect while group" in page.inner_text(f"#group-{group} td.state")
    assert not set(tools) & offered_in_playground(page)
    screenshot(page, "playground")

    page.goto(url("/tools"))
    page.select_option(f"#group-{group} form.switch select[name=state]", "unset")
    page.click(f"#group-{group} form.switch button")
    page.wait_for_url(url("/tools"))
    assert set(tools) <= offered_in_playground(page)


def test_a_dry_run_shows_the_request_without_calling_a_model(page):
    sign_in(page, "admin")
    page.goto(url("/playground"))
    page.fill("textarea[name=prompt]", "List the pages <b>now</b>")
    page.check("input[name=groups][value=structure]")
    page.click("text=Dry run")
    request = page.inner_text("pre.request")
    assert "List the pages <b>now</b>" in request
    assert '"get_pagetree"' in request or "get_pagetree" in request


def approval(page, tool):
    cell = f"tr.tool[data-tool={tool}] td.approval"
    return {
        name: page.get_attribute(cell, f"data-{name}")
        for name in ["approvers", "approvers-from", "required", "required-from"]
    }


def save_policy(page, form, approvers, required):
    page.select_option(f"{form} select[name=approvers]", approvers)
    page.select_option(f"{form} select[name=required]", required)
    page.click(f"{form} button")
    page.wait_for_url(url("/tools"))


def test_approval_policies_show_where_they_come_from_and_are_set_beside_state(page):
    sign_in(page, "admin")
    page.goto(url("/tools"))
    tool, group = "update_page_metadata", "editing"
    assert approval(page, tool) == {
        "approvers": "anyone",
        "approvers-from": "default",
        "required": "1",
        "required-from": "default",
    }
    # The group's policy reaches its tool...
    save_policy(page, f"#group-{group} form.policy", "admins", "2")
    assert f"Approval policy of group {group} saved." in page.inner_text(".notice")
    assert approval(page, tool) == {
        "approvers": "admins",
        "approvers-from": "group",
        "required": "2",
        "required-from": "group",
    }
    # ...and the tool's own part wins, part by part.
    row = f"tr.tool[data-tool={tool}] form.policy"
    save_policy(page, row, "others", "")
    assert f"Approval policy of tool {tool} saved." in page.inner_text(".notice")
    assert approval(page, tool) == {
        "approvers": "others",
        "approvers-from": "tool",
        "required": "2",
        "required-from": "group",
    }
    assert "others (tool), 2 required (group)" in page.inner_text(f"tr.tool[data-tool={tool}] td.approval")
    screenshot(page, "tools-policy")
    # Unset again: the defaults.
    save_policy(page, row, "", "")
    save_policy(page, f"#group-{group} form.policy", "", "")
    assert approval(page, tool)["approvers-from"] == "default"

