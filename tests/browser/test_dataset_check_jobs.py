"""The Dataset check never waits on training: the lead asks for the CRF baseline, the page shows the job queued
or running at once, and the report appears by itself when the job (run by the server's job thread) ends."""

from __future__ import annotations

import pytest
from journey_steps import enter_as, page_text
from playwright.sync_api import expect
from sqlalchemy.orm import Session

pytestmark = pytest.mark.browser


def test_the_dataset_check_shows_the_baseline_job_and_updates_when_it_ends(database, start_app, browser_page):
    from bench.synthetic import build_corpus
    from db import jobs
    from db.models import User, UserRole
    from db.schema import default_project

    url, engine = database
    build_corpus(engine, 40)
    with Session(engine) as session:
        session.add(User(username="boss", display_name="Boss", roles=[UserRole(role="lead")]))
        session.commit()
    server = start_app(url)
    page = browser_page
    enter_as(page, server, "boss", "dataset_check")
    page.get_by_role("heading", name="Dataset check").wait_for()
    page.get_by_text("Run the baseline to see span precision").wait_for()
    # Every change of the page counts the job's boxes: the state shows in one place, never twice.
    page.evaluate("""() => {
        const count = () => { window.__jobBoxes = Math.max(window.__jobBoxes || 0,
            document.querySelectorAll('.st-key-check_baseline_job').length); };
        new MutationObserver(count).observe(document.body, {childList: true, subtree: true, attributes: true});
    }""")
    page.get_by_role("button", name="Run the baseline").click()
    state = page.locator(".st-key-check_baseline_job")
    try:
        # The click's run shows the job queued or running, and returns: nothing here waits for the CRF.
        expect(state).to_contain_text("The baseline is ", timeout=20000)
        first = state.inner_text()
        assert " is queued for " in first or " is running for " in first, first
        # Without another click, the page reruns when the job ends and shows the report.
        expect(state).to_contain_text("The baseline finished", timeout=120000)
        page.get_by_text("trained on the train split, scored on the test split").first.wait_for(timeout=30000)
    except AssertionError:
        print(page_text(page))
        raise
    assert page.evaluate("window.__jobBoxes") == 1
    [job] = jobs.history(engine, default_project(engine))
    assert (job.kind, job.state, job.attempts) == ("dataset-baseline", "done", 1)
    assert set(job.result) >= {"en", "hi", "signature"}
