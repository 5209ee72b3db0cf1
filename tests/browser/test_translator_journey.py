"""A translator's day in a real browser: log in, pick the ITRANS converter and insert its output, submit
the blind translation, then the aware one with its aspect map, and find both stored, on SQLite and on PostgreSQL
(the browser journey that runs on both: the whole method's journey, test_full_journey.py, runs on SQLite).
(Phonetic typing in the editor itself: test_phonetic_typing.py.)"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from journey_steps import choose, enter_as, fresh, login, map_term, screenshot
from websocket_hold import SendHold
from playwright.sync_api import expect
from sqlalchemy import select
from sqlalchemy.orm import Session

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from db.models import AspectAlignment, Revision, Translation  # noqa: E402
from tests.support.translation_fixtures import PASSWORD, add_sentence, add_user, assign  # noqa: E402

pytestmark = pytest.mark.browser
WAIT = 30000  # ms an expectation waits: the page reruns slowly on a loaded machine

SOURCE = "The battery life of this Lenovo is great."
ROMAN = "is {Lenovo} kI baiTarI lAif bahuta achChI hai."
BLIND = "इस Lenovo की बैटरी लाइफ़ बहुत अच्छी है।"
AWARE = "इस Lenovo की बैटरी लाइफ़ शानदार है।"


def translator_setup(url, engine):
    sid = add_sentence(engine, "L-42", SOURCE, ["battery life"], domain="laptop", split="test")
    asha = add_user(engine, "asha", "translator")
    assign(engine, asha, sid, "blind")
    assign(engine, asha, sid, "aware")
    return url, engine


@pytest.fixture
def translator_db(database):
    return translator_setup(*database)


@pytest.fixture
def translator_any_db(any_database):
    return translator_setup(*any_database)


def test_translator_types_roman_submits_blind_then_aware_with_aspect_map(translator_any_db, start_app, browser_page):
    url, engine = translator_any_db
    server = start_app(url)
    page = browser_page
    login(page, server.url, "asha", PASSWORD)
    page.get_by_role("link", name="Translate").click()
    page.get_by_role("heading", name="Blind translation").wait_for()
    expect(page.get_by_text("battery life", exact=False)).to_have_count(1, timeout=WAIT)  # only inside the sentence
    assert page.locator("mark").count() == 0

    choose(page, page.get_by_role("combobox", name="Scheme"), "ITRANS")  # the old converter, one scheme among others
    roman = page.get_by_role("textbox", name="Roman")
    roman.fill(ROMAN)
    roman.press("Enter")
    page.get_by_text("Preview: " + BLIND).wait_for()
    screenshot(page, "translator-1-blind-preview")
    page.get_by_role("button", name="Insert into translation").click()
    editor = page.get_by_role("textbox", name="Your Hindi translation")
    expect(editor).to_have_value(BLIND, timeout=WAIT)
    screenshot(page, "translator-2-blind-inserted")
    fresh(page).get_by_role("button", name="Submit & next").click()
    page.get_by_role("heading", name="Aspect-aware translation").wait_for()
    page.get_by_text("Submitted. Here is your next task.").wait_for()
    page.get_by_test_id("item-key").filter(has_text="sentence L-42 · aware").wait_for()  # the editor of that task
    editor = page.get_by_role("textbox", name="Your Hindi translation")
    expect(editor).to_be_focused(timeout=WAIT)  # the next task opens ready to type
    editor.fill(AWARE)  # pasted Devanagari: its words are selectable at once, in the browser
    map_term(page, 1, "battery life", "बैटरी लाइफ़")
    screenshot(page, "translator-3-aware-map")
    fresh(page).get_by_role("button", name="Submit & next").click()
    page.get_by_text("You have submitted everything in your queue").wait_for()
    screenshot(page, "translator-4-done")

    with Session(engine) as session:
        rows = {t.phase: t for t in session.scalars(select(Translation))}
        assert rows["blind"].text == BLIND and rows["blind"].status == "submitted"
        assert rows["aware"].text == AWARE and rows["aware"].status == "submitted"
        link = session.scalars(select(AspectAlignment)).one()
        assert AWARE[link.start:link.end] == "बैटरी लाइफ़"
        assert rows["aware"].guidelines_version and rows["aware"].time_spent_s > 0
        actions = [r.action for r in session.scalars(select(Revision).order_by(Revision.id))]
        assert actions.count("submit") == 2 and "autosave" in actions


def kept_in_browser(page, text: str) -> None:
    """Wait until the page's guard has kept the typed text in localStorage (it mounts after the editor)."""
    page.wait_for_function(
        "t => Object.keys(localStorage).some(k => k.startsWith('corpus-tool:unsaved-text:') && "
        "JSON.parse(localStorage.getItem(k)).text === t)", arg=text,
    )


def test_text_typed_but_not_yet_saved_survives_a_refresh(translator_db, start_app, browser_page):
    url, engine = translator_db
    server = start_app(url)
    page = browser_page
    sends = SendHold(page)
    enter_as(page, server, "asha", "translate")
    page.get_by_role("heading", name="Blind translation").wait_for()
    editor = page.get_by_role("textbox", name="Your Hindi translation")
    sends.hold()  # whatever the page sends from here on (its autosave) never reaches the server
    editor.fill(BLIND)  # typed, and the page is reloaded before any save arrived
    kept_in_browser(page, BLIND)
    page.wait_for_timeout(2000)  # past the autosave's pause: it went out, and was held
    with Session(engine) as session:
        assert session.scalars(select(Translation)).first() is None  # the server never got it
    page.reload()
    page.get_by_role("heading", name="Blind translation").wait_for()
    # Nothing newer was saved: the kept text is back by itself, saved, with a banner that can undo it.
    page.get_by_text(f"Restored {len(BLIND)} characters this browser kept").wait_for()
    page.get_by_role("button", name="Undo").wait_for()
    screenshot(page, "translator-unsaved-restored")
    expect(page.get_by_role("textbox", name="Your Hindi translation")).to_have_value(BLIND, timeout=WAIT)
    expect(page.get_by_role("textbox", name="Your Hindi translation")).to_be_focused(timeout=WAIT)
    page.get_by_text(re.compile(r"^Draft saved at ")).wait_for()
    with Session(engine) as session:
        (row,) = session.scalars(select(Translation)).all()
        assert (row.text, row.status) == (BLIND, "draft")
    page.reload()  # once saved, nothing is offered again
    page.get_by_role("heading", name="Blind translation").wait_for()
    expect(page.get_by_role("textbox", name="Your Hindi translation")).to_have_value(BLIND, timeout=WAIT)
    expect(page.get_by_text("this browser kept")).to_have_count(0, timeout=WAIT)
    more = BLIND + " और"  # typing on top of the saved draft is kept again, against the new stored text
    sends.hold()
    page.get_by_role("textbox", name="Your Hindi translation").fill(more)
    kept_in_browser(page, more)
    page.reload()
    page.get_by_role("heading", name="Blind translation").wait_for()
    page.get_by_text(f"Restored {len(more)} characters this browser kept").wait_for()
    expect(page.get_by_role("textbox", name="Your Hindi translation")).to_have_value(more, timeout=WAIT)
