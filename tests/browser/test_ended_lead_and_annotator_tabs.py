"""A lead's Assignments tab and an annotator's tag page left open after the session ended in another browser
(issue 31, N2), in a real browser: the lead's click creates no assignment and the annotator's Reopen leaves
her annotation submitted and its gold label in force; each page says the session ended. (The admin's Users
tab is in test_ended_admin_tab.py.)"""

from __future__ import annotations

import re

from journey_steps import choose, login, page_text, screenshot, watch_runs
from playwright.sync_api import Error as BrowserError
from playwright.sync_api import expect
from sqlalchemy import func, select
from sqlalchemy.orm import Session

ENDED = "Your session ended"


def _other_browser(page):
    """A page in a browser context of its own (its own cookies): another person's, or the same person's
    other browser."""
    context = page.context.browser.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
    watch_runs(context)
    other = context.new_page()
    other.set_default_timeout(45000)
    return other


def _wait_until_it_says_the_session_ended(page, picture: str) -> None:
    """Wait for the page's "session ended" warning; on a timeout, fail with what the page shows instead."""
    try:
        page.get_by_text(ENDED).first.wait_for()
    except BrowserError:
        screenshot(page, f"{picture}-failed", always=True)
        raise AssertionError(page_text(page)) from None
    screenshot(page, picture)


def _admin_deactivates(page, base_url: str, username: str) -> None:
    """On the Users page, as an admin: pick ``username``, Deactivate, yes; until the page says it is done."""
    login(page, base_url, "admin", "admin-demo-pass")
    page.get_by_role("link", name="Users", exact=True).click()
    choose(page, page.get_by_role("combobox", name="User"), username)
    page.get_by_role("button", name=f"Deactivate {username}…").click()
    page.get_by_role("button", name=f"Yes, deactivate {username}").click()
    page.get_by_text(f"Deactivated {username}.").wait_for()


def test_a_deactivated_leads_open_assignments_tab_creates_no_assignment_and_says_the_session_ended(
        demo_db, start_app, browser_page):
    from db.models import TranslationAssignment, User

    server = start_app(str(demo_db.url.render_as_string(hide_password=False)))
    page = browser_page
    login(page, server.url, "lead", "lead-demo-pass")
    page.goto(f"{server.url.rstrip('/')}/assign?phase=aware&show=unassigned")
    assign = page.get_by_role("button", name=re.compile(r"^Assign these [1-9]\d* sentence\(s\) in the aware phase"))
    assign.wait_for()
    with Session(demo_db) as session:
        before = session.scalar(select(func.count()).select_from(TranslationAssignment))

    admin = _other_browser(page)
    try:
        _admin_deactivates(admin, server.url, "lead")
    finally:
        admin.context.close()
    with Session(demo_db) as session:
        assert session.scalar(select(User.active).where(User.username == "lead")) is False

    expect(page.get_by_text(ENDED)).to_have_count(0)
    assign.click()
    _wait_until_it_says_the_session_ended(page, "assign-tab-session-ended")
    with Session(demo_db) as session:
        assert session.scalar(select(func.count()).select_from(TranslationAssignment)) == before


def _submitted_with_gold(engine, username: str) -> tuple[int, int, int, int]:
    """(translation id, annotation id, its version, id of the gold decision in force) of the first of
    ``username``'s submitted annotations whose item has gold in force (its latest decision is no withdrawal)."""
    from db.models import Adjudication, Annotation, TaggingItem, User

    with Session(engine) as session:
        user = session.scalar(select(User.id).where(User.username == username))
        for annotation in session.scalars(select(Annotation).where(
                Annotation.annotator_id == user, Annotation.status == "submitted").order_by(Annotation.id)):
            latest = session.scalars(select(Adjudication).where(Adjudication.item_id == annotation.item_id)
                                     .order_by(Adjudication.id.desc())).first()
            if latest is not None and latest.source != "withdrawn":
                item = session.get(TaggingItem, annotation.item_id)
                return item.translation_id, annotation.id, annotation.version, latest.id
    raise AssertionError(f"the demo has no submitted annotation of {username} with gold in force")


def test_an_annotators_reopen_after_she_logged_out_elsewhere_keeps_it_submitted_and_its_gold_and_says_so(
        demo_db, start_app, browser_page):
    from db.models import Adjudication, Annotation

    translation, annotation_id, version, gold = _submitted_with_gold(demo_db, "meera")
    server = start_app(str(demo_db.url.render_as_string(hide_password=False)))
    page = browser_page
    login(page, server.url, "meera", "meera-demo-pass")
    page.goto(f"{server.url.rstrip('/')}/tag?item={translation}")
    reopen = page.get_by_role("button", name="Reopen for editing")
    reopen.wait_for()

    elsewhere = _other_browser(page)  # her other browser: logging out there ends every session of hers
    try:
        login(elsewhere, server.url, "meera", "meera-demo-pass")
        elsewhere.get_by_role("button", name="Log out").click()
        elsewhere.get_by_role("button", name="Log in", exact=True).wait_for()
    finally:
        elsewhere.context.close()

    expect(page.get_by_text(ENDED)).to_have_count(0)
    reopen.click()
    _wait_until_it_says_the_session_ended(page, "reopen-session-ended")
    with Session(demo_db) as session:
        annotation = session.get(Annotation, annotation_id)
        assert (annotation.status, annotation.version) == ("submitted", version)
        latest = session.scalars(select(Adjudication).where(Adjudication.item_id == annotation.item_id)
                                 .order_by(Adjudication.id.desc())).first()
        assert latest.id == gold, (latest.id, latest.source)  # no decision since: none withdrew it
