"""The translation editor in a real browser: letters typed while the server saves or reruns are never lost,
the aspect map is made on token positions without a server rerun, keys work from anywhere in the task,
and a wrong word or a name costs one pick."""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import pytest
from journey_steps import enter_as, screenshot
from playwright.sync_api import expect
from sqlalchemy import select
from sqlalchemy.orm import Session

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from db.models import AspectAlignment, SourceSentence, Translation  # noqa: E402
from tests.support.translation_fixtures import add_sentence, add_user, assign  # noqa: E402

pytestmark = pytest.mark.browser
WAIT = 30000  # ms an expectation waits: the page reruns slowly on a loaded machine

FIRST = "mera keyboard bahut achha hai"
FIRST_HI = "मेरा कीबोर्ड बहुत अच्छा है"
TWO, THREE = "mera keyboard ", "bahut achha hai "
FIVE_HI = "मेरा कीबोर्ड बहुत अच्छा है"


@pytest.fixture
def two_tasks(database):
    url, engine = database
    asha = add_user(engine, "asha", "translator")
    for n, text in enumerate(("My keyboard is very good.", "The keyboard is good."), start=1):
        assign(engine, asha, add_sentence(engine, f"K-{n}", text, ["keyboard"], domain="laptop", ordinal=n), "blind")
    return url, engine


def model_ready(page, server_url: str, engine) -> None:
    """Wait until the server's typing model is loaded, so the test types against a warm server."""
    from tests.support.login_tokens import session_token

    token = session_token(engine, "asha")
    r = page.request.get(f"{server_url}/api/suggest?q=namaste", headers={"X-Corpus-Session": token}, timeout=120000)
    assert r.status == 200, r.status


def stored(engine, sentence_id: str) -> str | None:
    with Session(engine) as session:
        return session.scalars(
            select(Translation.text).join(SourceSentence, Translation.sentence_id == SourceSentence.id)
            .where(SourceSentence.sentence_id == sentence_id)).first()


def wait_for_stored(page, engine, sentence_id: str, expected: str) -> None:
    """Poll the database (waiting through the page, so the test's websocket relay keeps running)."""
    deadline = time.monotonic() + WAIT / 1000
    while stored(engine, sentence_id) != expected and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    assert stored(engine, sentence_id) == expected


class ReplyHold:
    """Holds back what the server sends the page (a slow, loaded server): the page's messages still go
    through, so an autosave reaches the server at once and its rerun's result arrives when released."""

    def __init__(self, page):
        self.holding = False
        self.held: list = []
        self.page_side = None
        page.route_web_socket(re.compile(r"/_stcore/stream"), self._route)

    def _route(self, ws) -> None:
        server = ws.connect_to_server()
        self.page_side = ws
        server.on_message(self._from_server)

    def _from_server(self, message) -> None:
        if self.holding:
            self.held.append(message)
        else:
            self.page_side.send(message)

    def hold(self) -> None:
        self.holding = True

    def release(self) -> None:
        self.holding = False
        held, self.held = self.held, []
        for message in held:
            self.page_side.send(message)


def slow_round_trip(page, replies: ReplyHold, typed_meanwhile: str) -> None:
    """The autosave of what is typed goes out after the pause; its rerun's answer comes back only after
    ``typed_meanwhile`` has been typed, as on a loaded server (1–2 s a rerun)."""
    replies.hold()
    page.wait_for_timeout(2000)  # through the autosave (sent after a 1.5 s pause)
    type_keys(page, typed_meanwhile)
    page.wait_for_timeout(300)
    replies.release()


def editor_box(page):
    return page.get_by_role("textbox", name="Your Hindi translation")


def open_first(page, server, engine):
    model_ready(page, server.url, engine)
    enter_as(page, server, "asha", "translate")
    page.get_by_text("sentence K-1").wait_for()
    box = editor_box(page)
    expect(box).to_be_focused(timeout=WAIT)
    return box


def type_keys(page, text: str) -> None:
    for ch in text:
        page.keyboard.press(ch if ch != " " else "Space")


def test_words_typed_right_after_submit_and_next_survive_the_next_tasks_first_autosave(
        two_tasks, start_app, browser_page):
    url, engine = two_tasks
    page = browser_page
    replies = ReplyHold(page)
    open_first(page, start_app(url), engine)
    type_keys(page, FIRST)
    page.keyboard.press("Control+Enter")
    page.get_by_text("sentence K-2").wait_for()
    box = editor_box(page)
    expect(box).to_be_focused(timeout=WAIT)
    type_keys(page, TWO)  # at once, while the page may still be settling after the submit
    slow_round_trip(page, replies, THREE)  # typed on through the next task's first autosave
    expect(box).to_have_value(FIVE_HI + " ", timeout=WAIT)
    expect(box).to_be_focused()
    wait_for_stored(page, engine, "K-2", FIVE_HI)
    page.wait_for_timeout(2000)  # nothing comes back to overwrite it
    expect(box).to_have_value(FIVE_HI + " ")
    assert stored(engine, "K-1") == FIRST_HI
    screenshot(page, "editor-typed-after-submit")


def test_words_typed_after_an_ordinary_autosave_survive_and_focus_stays(two_tasks, start_app, browser_page):
    url, engine = two_tasks
    page = browser_page
    replies = ReplyHold(page)
    box = open_first(page, start_app(url), engine)
    type_keys(page, TWO)
    slow_round_trip(page, replies, THREE)  # typed on through the autosave of the first two words
    expect(box).to_have_value(FIVE_HI + " ", timeout=WAIT)
    wait_for_stored(page, engine, "K-1", FIVE_HI)
    page.wait_for_timeout(2000)
    expect(box).to_have_value(FIVE_HI + " ")
    expect(box).to_be_focused()


def test_words_typed_while_another_widget_reruns_the_page_survive(two_tasks, start_app, browser_page):
    url, engine = two_tasks
    page = browser_page
    box = open_first(page, start_app(url), engine)
    type_keys(page, TWO)
    page.wait_for_timeout(2000)
    page.get_by_role("tab", name="Glossary").click()
    lookup = page.get_by_role("textbox", name="Look up a word")
    lookup.fill("bread")
    lookup.press("Enter")  # a rerun caused by another widget
    box.click()
    page.keyboard.press("End")
    type_keys(page, THREE)  # typed while that rerun is on its way
    expect(box).to_have_value(FIVE_HI + " ", timeout=WAIT)
    wait_for_stored(page, engine, "K-1", FIVE_HI)
    page.wait_for_timeout(2000)
    expect(box).to_have_value(FIVE_HI + " ")
