"""A batch survives a restart of the host: 20 runs started in the browser,
the real `host-example serve` killed (SIGKILL) while the sixth waits on the
model, started again on the same database and address; the batch goes on
from where it was and its report is complete, each record once.

Run by tests/browser_restart.rs, which names the binary (SERVE_BIN), the
address (SERVE_ADDR) and the database (HOST_DATABASE_URL); skipped when the
other browser tests run."""

import os
import re
import signal
import subprocess
import time

import pytest
from playwright.sync_api import expect

from conftest import MODEL_URL, sign_in, url

SERVE_BIN = os.environ.get("SERVE_BIN", "")

pytestmark = pytest.mark.skipif(not SERVE_BIN, reason="run by tests/browser_restart.rs")

# The 20 elements of petra's product pages (the first press's 20).
IDS = list(range(8, 23)) + list(range(26, 31))


def start_serve():
    process = subprocess.Popen(
        [SERVE_BIN, "serve", "--addr", os.environ["SERVE_ADDR"]],
        stdout=subprocess.PIPE,
        text=True,
    )
    line = process.stdout.readline()
    assert line.startswith("listening on"), line
    return process


def release(page):
    """Lets one run's held model request answer."""
    assert page.request.post(f"{MODEL_URL}/release/batch").status == 204


def done(page, report):
    page.goto(report)
    return int(page.inner_text("p.status span.done"))


def until_done(page, report, at_least, seconds=30):
    deadline = time.monotonic() + seconds
    while done(page, report) < at_least:
        assert time.monotonic() < deadline, f"fewer than {at_least} records done"
        time.sleep(0.2)


def test_a_batch_of_20_survives_a_restart_of_serve(page):
    serve = start_serve()
    try:
        sign_in(page, "petra")
        page.goto(url("/actions/batch?tool=create_translation_draft&from=8"))
        page.fill("textarea[name=ids]", " ".join(str(i) for i in IDS))
        # Every run's first request waits for a release: the test decides
        # how far the batch gets before the kill.
        page.fill("textarea[name=note]", "HOLD batch\nSAY Nothing to translate today.")
        page.click("button.preview")
        assert page.locator("ul.runnable li").count() == 20
        page.click("button.start")
        page.wait_for_url(re.compile(r".*/actions/batch/report/job-[0-9a-f]+$"))
        report = page.url
        assert page.get_attribute("p.status", "data-status") in ("queued", "running")
        assert page.inner_text("p.status span.total") == "20"
        for n in range(1, 6):
            release(page)
            until_done(page, report, n)
        # The sixth run is stored and waits on the model: kill the host.
        time.sleep(0.5)
        serve.send_signal(signal.SIGKILL)
        serve.wait()

        serve = start_serve()
        # The session is in the database: still signed in; the report too.
        assert done(page, report) == 5
        deadline = time.monotonic() + 120
        while done(page, report) < 20:
            assert time.monotonic() < deadline, "the batch did not finish after the restart"
            # A release may go to the killed process's request, which the
            # model still holds: release again until the next one is done.
            release(page)
            time.sleep(0.3)
        expect(page.locator("p.status")).to_have_attribute("data-status", "done", timeout=10_000)
        rows = page.locator("table.batch tbody tr")
        assert rows.count() == 20
        assert sorted(int(row.get_attribute("data-record")) for row in rows.all()) == IDS
        counts = {
            row.get_attribute("data-kind"): int(row.locator("td.count").inner_text())
            for row in page.locator("table.counts tr").all()
        }
        # The run the kill interrupted is failed with the reason, unless it
        # was not stored yet (then it ran after the restart).
        assert counts["unchanged"] + counts["failed"] == 20, counts
        assert counts["failed"] <= 1, counts
        failed = page.locator("table.batch tbody tr", has=page.locator("td.kind", has_text="failed"))
        for row in failed.all():
            assert "the host process working on this run stopped" in row.inner_text()
    finally:
        serve.kill()
        serve.wait()
