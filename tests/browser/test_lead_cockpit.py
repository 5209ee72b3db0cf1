"""The lead's cockpit in a real browser: from login, the lowest-agreement sentence's detail, the next
disagreement and the next undecided final translation are each at most two clicks away; three final
translations in a row take one key press each; roles show only the pages a person can use."""

from __future__ import annotations

import re

from journey_steps import login, screenshot
from playwright.sync_api import expect
from sqlalchemy import select
from sqlalchemy.orm import Session

from db.models import FinalChoice, User
from tests.support.tagging_fixtures import add_sentence, add_translation, add_user

# Three sentences with two submitted aware translations each and no final choice: "undecided".
UNDECIDED = [
    ("9001", "The waiter was friendly", ["waiter"], "वेटर दोस्ताना था", "वेटर मिलनसार था"),
    ("9002", "The soup was cold", ["soup"], "सूप ठंडा था", "सूप ठंडा सा था"),
    ("9003", "The bill came quickly", ["bill"], "बिल जल्दी आया", "बिल तुरंत आ गया"),
]


def _users(engine) -> dict[str, int]:
    with Session(engine) as s:
        return dict(s.execute(select(User.username, User.id)).all())


def _with_undecided_sentences(engine) -> dict[int, list[int]]:
    """sentence row id → its translations' ids."""
    users = _users(engine)
    made = {}
    for n, (sid, text, aspects, first, second) in enumerate(UNDECIDED):
        sentence = add_sentence(engine, sid, text, aspects, ordinal=9000 + n)
        made[sentence] = [add_translation(engine, sentence, "aware", users["asha"], first, minutes=n),
                          add_translation(engine, sentence, "aware", users["ravi"], second, minutes=n)]
    return made


def _settled(page) -> None:
    """The script run has finished: no "Running" status, no element left over from the previous run."""
    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0)
    expect(page.locator("[data-stale=true]")).to_have_count(0)


def _final_choices(engine, sentence_ids: list[int]) -> int:
    with Session(engine) as s:
        return len(set(s.scalars(select(FinalChoice.sentence_id).where(FinalChoice.sentence_id.in_(sentence_ids)))))


def _url(server) -> str:
    return server.url.rstrip("/")


def test_from_login_each_place_that_needs_the_lead_is_at_most_two_clicks_away(demo_db, start_app, browser_page):
    undecided = _with_undecided_sentences(demo_db)
    server = start_app(str(demo_db.url.render_as_string(hide_password=False)))
    page = browser_page
    login(page, server.url, "lead", "lead-demo-pass")

    # (a) lowest-agreement sentence: Dashboard, then its link.
    page.get_by_role("link", name="Dashboard", exact=True).click()
    page.get_by_role("link", name=re.compile(r"^Open the lowest")).click()
    page.get_by_role("heading", name=re.compile(r"^Sentence ")).wait_for()
    page.get_by_role("heading", name="Hindi translations").wait_for()
    screenshot(page, "cockpit-lowest-agreement-sentence")

    # (b) next disagreement: one click on Home's line opens the first open one.
    page.get_by_role("link", name="Home", exact=True).click()
    page.get_by_role("link", name=re.compile(r"disagreements? to adjudicate")).click()
    page.get_by_role("heading", name="Adjudication").wait_for()
    expect(page.get_by_role("button", name=re.compile(r"^Accept .+'s version")).first).to_be_visible()
    assert "show=open" in page.url

    # (c) next undecided final translation: one click on Home's line.
    page.get_by_role("link", name="Home", exact=True).click()
    page.get_by_role("link", name=re.compile(r"3 sentences without a final translation")).click()
    page.get_by_text(UNDECIDED[0][1]).wait_for()
    assert "show=undecided" in page.url

    # Three finals in a row: one key press each (1 = the automatic pick), the next sentence opens itself.
    for n, ((_, text, *_rest), (sentence, translations)) in enumerate(zip(UNDECIDED, undecided.items())):
        page.get_by_text(text).wait_for()
        for translation in translations:  # this sentence's own buttons, not the last one's
            page.locator(f".st-key-final_choose_{sentence}_{translation}").wait_for()
        _settled(page)
        page.locator("body").press("1")
        following = UNDECIDED[n + 1][1] if n + 1 < len(UNDECIDED) else "Every translated sentence has a final choice"
        page.get_by_text(following).first.wait_for()
        assert _final_choices(demo_db, list(undecided)) == n + 1
    screenshot(page, "cockpit-finals-done")


def test_a_lead_cannot_reach_the_users_page_to_grant_admin(demo_db, start_app, browser_page):
    server = start_app(str(demo_db.url.render_as_string(hide_password=False)))
    page = browser_page
    login(page, server.url, "lead", "lead-demo-pass")
    page.get_by_role("link", name="Dashboard", exact=True).wait_for()
    for admin_page in ("Users", "Backup", "Project settings"):
        expect(page.get_by_role("link", name=admin_page, exact=True)).to_have_count(0)
    page.goto(f"{_url(server)}/users")
    page.get_by_role("button", name="Log out").wait_for()
    expect(page.get_by_role("checkbox", name="admin")).to_have_count(0)
    expect(page.get_by_role("button", name=re.compile("Create"))).to_have_count(0)


def test_an_admin_without_the_lead_role_sees_only_the_admin_pages(demo_db, start_app, browser_page):
    add_user(demo_db, "root", "admin", password="root-demo-pass-1")
    server = start_app(str(demo_db.url.render_as_string(hide_password=False)))
    page = browser_page
    login(page, server.url, "root", "root-demo-pass-1")
    page.get_by_role("link", name="Users", exact=True).wait_for()
    for work_page in ("Translate", "Tag aspects", "Dashboard", "Final translations", "Adjudication"):
        expect(page.get_by_role("link", name=work_page, exact=True)).to_have_count(0)
    expect(page.get_by_text("No translation tasks yet")).to_have_count(0)
    expect(page.get_by_text("View", exact=False).filter(has_text=re.compile(r"View \d+ more"))).to_have_count(0)
