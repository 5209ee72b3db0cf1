"""Typing Hindi phonetically in the translate editor, in a real browser: words turn into Devanagari as
they are typed, candidates are picked by number, names stay Roman with Esc, Devanagari passes through,
Ctrl+Enter submits, and text typed but not yet saved comes back after a refresh."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
from journey_steps import enter_as, screenshot
from websocket_hold import SendHold
from playwright.sync_api import expect
from sqlalchemy import select
from sqlalchemy.orm import Session

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from db.models import Translation  # noqa: E402
from db.typing import learned_forms, suggest_for  # noqa: E402
from tests.support.translation_fixtures import add_sentence, add_user, assign, project_id  # noqa: E402

pytestmark = pytest.mark.browser
WAIT = 30000  # ms an expectation waits: the page reruns slowly on a loaded machine

PHRASE = "mera keyboard bahut achha hai"
HINDI = "मेरा कीबोर्ड बहुत अच्छा है"


@pytest.fixture
def typing_db(database):
    url, engine = database
    asha = add_user(engine, "asha", "translator")
    for n, (text, term) in enumerate((("My keyboard is very good.", "keyboard"),
                                      ("The Sony screen is sharp.", "screen")), start=1):
        assign(engine, asha, add_sentence(engine, f"K-{n}", text, [term], domain="laptop", ordinal=n), "blind")
    return url, engine


def model_ready(page, server_url: str, engine) -> None:
    """Wait until the server's typing model is loaded (the first look-up reads it: seconds on a busy
    machine), so the test types against a warm server, as translators mostly do."""
    from tests.support.login_tokens import session_token

    token = session_token(engine, "asha")
    r = page.request.get(f"{server_url}/api/suggest?q=namaste", headers={"X-Corpus-Session": token}, timeout=120000)
    assert r.status == 200, r.status


def open_editor(page, server, engine=None):
    if engine is not None:
        model_ready(page, server.url, engine)
    enter_as(page, server, "asha", "translate")
    page.get_by_role("heading", name="Blind translation").wait_for()
    editor = page.get_by_role("textbox", name="Your Hindi translation")
    editor.wait_for()
    return editor


def stored_text(engine) -> list[str]:
    with Session(engine) as session:
        return list(session.scalars(select(Translation.text).order_by(Translation.id)))


def wait_for_stored(engine, expected: list[str]) -> None:
    """Poll the database until it holds ``expected``: a "Draft saved at" line already on the page may be an
    earlier autosave's, so the stored text itself is what a test waits for."""
    deadline = time.monotonic() + WAIT / 1000
    while stored_text(engine) != expected and time.monotonic() < deadline:
        time.sleep(0.05)
    assert stored_text(engine) == expected


def test_roman_words_become_hindi_as_typed_and_ctrl_enter_submits(typing_db, start_app, browser_page):
    url, engine = typing_db
    page = browser_page
    editor = open_editor(page, start_app(url), engine)
    expect(editor).to_be_focused(timeout=WAIT)  # the task opens ready to type
    keys = 0
    for ch in PHRASE:  # one keystroke per character, spaces included
        page.keyboard.press(ch if ch != " " else "Space")
        keys += 1
    # Each space converted its word (the first ones once the model has loaded, a few seconds after start).
    expect(editor).to_have_value(HINDI[: HINDI.rindex(" ") + 1] + "hai", timeout=30000)
    expect(page.get_by_role("option").first).to_contain_text("है", timeout=WAIT)  # the last word's candidates, under the caret
    screenshot(page, "phonetic-1-typed")
    page.keyboard.press("Control+Enter")
    keys += 1
    page.get_by_text("Submitted. Here is your next task.").wait_for()
    assert stored_text(engine) == [HINDI]
    assert keys == len(PHRASE) + 1
    with Session(engine) as session:
        assert session.scalars(select(Translation.status)).one() == "submitted"
    learned = {(f.roman, f.devanagari) for f in learned_forms(engine, project_id(engine))}
    assert learned == set(zip(PHRASE.split(), HINDI.split()))
    expect(page.get_by_role("textbox", name="Your Hindi translation")).to_be_focused(timeout=WAIT)  # the next task, ready


def test_a_number_key_picks_another_spelling_which_is_learned_for_the_project(typing_db, start_app, browser_page):
    url, engine = typing_db
    page = browser_page
    editor = open_editor(page, start_app(url), engine)
    page.keyboard.type("mera")
    second = page.get_by_role("option").nth(1)
    expect(second).to_be_visible(timeout=WAIT)
    form = second.inner_text().split("\n")[-1].strip().lstrip("2").strip()
    page.keyboard.press("2")
    expect(editor).to_have_value(form, timeout=WAIT)
    editor.blur()  # leaving the editor saves (with what was picked)
    page.get_by_text("Draft saved at").wait_for()
    wait_for_stored(engine, [form])
    assert suggest_for(engine, project_id(engine), "mera")[0] == form  # first next time, in this project


def test_esc_keeps_a_name_in_roman_and_devanagari_passes_through(typing_db, start_app, browser_page):
    url, engine = typing_db
    page = browser_page
    editor = open_editor(page, start_app(url), engine)
    page.keyboard.type("Sony")
    expect(page.get_by_role("listbox", name="Suggestions")).to_be_visible(timeout=WAIT)
    page.keyboard.press("Escape")
    expect(page.get_by_role("listbox", name="Suggestions")).to_be_hidden(timeout=WAIT)
    page.keyboard.type(" ki ")
    expect(editor).to_have_value("Sony की ", timeout=WAIT)
    page.keyboard.insert_text("स्क्रीन तेज़")  # pasted or typed with a Hindi keyboard: not a Roman word
    page.keyboard.press("Space")
    expect(editor).to_have_value("Sony की स्क्रीन तेज़ ", timeout=WAIT)
    page.keyboard.press("Control+.")  # plain Roman from here
    page.keyboard.type("sharp ")
    expect(editor).to_have_value("Sony की स्क्रीन तेज़ sharp ", timeout=WAIT)
    page.keyboard.press("Control+.")  # and phonetic Hindi again
    page.keyboard.type("hai.")  # the project's danda setting is on: the full stop ends the sentence with ।
    expect(editor).to_have_value("Sony की स्क्रीन तेज़ sharp है।", timeout=WAIT)
    screenshot(page, "phonetic-2-names-and-paste")
    editor.blur()
    page.get_by_text("Draft saved at").wait_for()
    wait_for_stored(engine, ["Sony की स्क्रीन तेज़ sharp है।"])


def test_text_typed_but_not_yet_saved_is_offered_back_after_a_refresh(typing_db, start_app, browser_page):
    url, engine = typing_db
    page = browser_page
    sends = SendHold(page)
    editor = open_editor(page, start_app(url), engine)
    sends.hold()  # the autosave of what follows never reaches the server
    page.keyboard.type("mera ")
    expect(editor).to_have_value("मेरा ", timeout=WAIT)
    page.wait_for_timeout(2000)  # past the autosave's pause: it went out, and was held
    assert stored_text(engine) == []  # the server never got it
    page.reload()
    page.get_by_role("heading", name="Blind translation").wait_for()
    page.get_by_text("Restored 5 characters this browser kept").wait_for()  # by itself: nothing newer was saved
    expect(page.get_by_role("textbox", name="Your Hindi translation")).to_have_value("मेरा ", timeout=WAIT)
    page.get_by_text("Draft saved at").wait_for()
    wait_for_stored(engine, ["मेरा"])
    page.reload()  # once saved, nothing is offered again
    page.get_by_role("heading", name="Blind translation").wait_for()
    expect(page.get_by_role("textbox", name="Your Hindi translation")).to_have_value("मेरा", timeout=WAIT)
    expect(page.get_by_text("this browser kept")).to_have_count(0, timeout=WAIT)


def test_two_tabs_of_one_task_keep_their_own_unsaved_text(typing_db, start_app, browser_page):
    """Each tab's kept copy is its own: what a second tab types never replaces the first tab's."""
    url, engine = typing_db
    first = browser_page
    first_sends = SendHold(first)
    server = start_app(url)
    open_editor(first, server, engine)
    second = first.context.new_page()
    second_sends = SendHold(second)
    second.goto(first.url)
    second.get_by_role("heading", name="Blind translation").wait_for()
    second_editor = second.get_by_role("textbox", name="Your Hindi translation")
    second_editor.wait_for()

    first_sends.hold()
    first.get_by_role("textbox", name="Your Hindi translation").focus()
    first.keyboard.type("mera ")
    expect(first.get_by_role("textbox", name="Your Hindi translation")).to_have_value("मेरा ", timeout=WAIT)
    second_sends.hold()
    second_editor.focus()
    second.keyboard.type("achha ")
    expect(second_editor).to_have_value("अच्छा ", timeout=WAIT)

    first.reload()
    first.get_by_role("heading", name="Blind translation").wait_for()
    first.get_by_text("Restored 5 characters this browser kept").wait_for()
    expect(first.get_by_role("textbox", name="Your Hindi translation")).to_have_value("मेरा ", timeout=WAIT)
    first.get_by_text("Draft saved at").wait_for()
    second.reload()
    second.get_by_role("heading", name="Blind translation").wait_for()
    expect(second.get_by_role("textbox", name="Your Hindi translation")).to_have_value("मेरा", timeout=WAIT)
    assert stored_text(engine) == ["मेरा"]
