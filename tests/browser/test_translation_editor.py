"""The translation editor in a real browser: letters typed while the server saves or reruns are never lost,
the aspect map is made on token positions without a server rerun, keys work from anywhere in the task,
and a wrong word or a name costs one pick."""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import pytest
from journey_steps import enter_as, screenshot, settle
from playwright.sync_api import expect
from sqlalchemy import select
from sqlalchemy.orm import Session

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from db.models import AspectAlignment, SourceSentence, Translation  # noqa: E402
from db.translation import Draft, save_translation  # noqa: E402
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

    sent = 0  # messages the page has sent the server (each a rerun request: a widget value, a commit)

    def _route(self, ws) -> None:
        server = ws.connect_to_server()
        self.page_side = ws
        server.on_message(self._from_server)

        def from_page(message) -> None:
            self.sent += 1
            server.send(message)

        ws.on_message(from_page)

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
    page.get_by_test_id("item-key").filter(has_text="sentence K-1").wait_for()
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
    page.get_by_test_id("item-key").filter(has_text="sentence K-2").wait_for()  # the next task's editor
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


def refuse_look_ups(page, word: str, times: int) -> list[str]:
    """The first ``times`` look-ups of ``word`` answered 429, as a loaded server answers a session whose earlier
    look-ups still wait; the list of refused URLs grows as they come."""
    refused: list[str] = []

    def busy(route):
        if len(refused) < times:
            refused.append(route.request.url)
            route.fulfill(status=429, headers={"Retry-After": "1"}, json={"error": "too many look-ups"})
        else:
            route.continue_()

    page.route(re.compile(rf"/api/suggest\?.*q={word}(&|$)"), busy)
    return refused


def test_a_word_the_busy_server_refused_to_look_up_is_converted_when_asked_again(two_tasks, start_app, browser_page):
    """A loaded server answers a session's look-ups 429 while earlier ones wait (prefetches of a word's first
    letters, typed slowly): the refused word is asked for again, not left in Roman letters."""
    url, engine = two_tasks
    page = browser_page
    box = open_first(page, start_app(url), engine)
    refused = refuse_look_ups(page, "hai", 1)
    type_keys(page, FIRST + " ")
    expect(box).to_have_value(FIRST_HI + " ", timeout=WAIT)
    assert len(refused) == 1


def test_the_last_word_the_busy_server_refused_is_converted_before_the_submit(two_tasks, start_app, browser_page):
    """Ctrl+Enter right after the last word: its look-up is refused twice (a prefetch while typing and the
    submit's own), and the submitted text is still all Devanagari."""
    url, engine = two_tasks
    page = browser_page
    open_first(page, start_app(url), engine)
    refused = refuse_look_ups(page, "hai", 2)
    type_keys(page, FIRST)
    page.keyboard.press("Control+Enter")
    page.get_by_test_id("item-key").filter(has_text="sentence K-2").wait_for()
    wait_for_stored(page, engine, "K-1", FIRST_HI)
    assert len(refused) == 2


def test_words_typed_after_submit_survive_a_conversion_that_comes_back_after_the_submit(
        two_tasks, start_app, browser_page):
    """A busy server answers a word's look-up only after Submit & next went out without it (the submit waits 2.5 s
    for it): the text went as it was, and the words typed into the editor before the next task's arrives still
    move to the next task. (The late conversion changed the old editor's text, and what was typed after it was
    no longer seen as typed after the submit: it was dropped.)"""
    url, engine = two_tasks
    page = browser_page
    replies = ReplyHold(page)
    open_first(page, start_app(url), engine)
    held = []  # the word's look-ups, unanswered until the test lets them through

    def hold(route) -> None:
        held.append(route)

    page.route(re.compile(r"/api/suggest\?.*q=achha(&|$)"), hold)
    type_keys(page, FIRST)
    replies.hold()  # the next task's editor waits: what is typed now lands in this one
    page.keyboard.press("Control+Enter")
    wait_for_stored(page, engine, "K-1", "मेरा कीबोर्ड बहुत achha है")  # sent without the word's candidates
    type_keys(page, " " + TWO)
    assert held, "the word was never looked up"
    for route in held:  # the busy server answers at last
        route.continue_()
    page.wait_for_timeout(1000)  # the answers are in
    replies.release()
    page.get_by_test_id("item-key").filter(has_text="sentence K-2").wait_for()
    expect(editor_box(page)).to_have_value("मेरा कीबोर्ड ", timeout=WAIT)
    wait_for_stored(page, engine, "K-2", "मेरा कीबोर्ड")
    assert stored(engine, "K-1") == "मेरा कीबोर्ड बहुत achha है"


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


# ----------------------------------------------------------------------------- the aspect map

MAP_SOURCE = "The table by the table was next to the power socket."
MAP_HINDI = "टेबल के पास वाली टेबल पावर सॉकेट के पास थी।"  # टेबल 0 … टेबल 4, पावर 5 सॉकेट 6


@pytest.fixture
def aware_task(database):
    url, engine = database
    asha = add_user(engine, "asha", "translator")
    sid = add_sentence(engine, "T-1", MAP_SOURCE, ["table", "power socket"], domain="laptop")
    blind = assign(engine, asha, sid, "blind")
    assign(engine, asha, sid, "aware")
    save_translation(engine, asha, blind, Draft("मेज़ के पास मेज़ थी।"), expected_version=0, action="submit")
    return url, engine


def tokens(page):
    return page.locator('[data-testid="translation-editor"] [data-token-index]')


def test_the_first_of_two_equal_words_maps_and_a_two_word_aspect_takes_two_clicks_without_a_rerun(
        aware_task, start_app, browser_page):
    url, engine = aware_task
    page = browser_page
    relay = ReplyHold(page)
    enter_as(page, start_app(url), "asha", "translate")
    page.get_by_role("heading", name="Aspect-aware translation").wait_for()
    box = editor_box(page)
    expect(box).to_be_focused(timeout=WAIT)
    page.keyboard.insert_text(MAP_HINDI)  # typed with a Hindi keyboard (or pasted): no conversion
    expect(tokens(page)).to_have_count(11, timeout=WAIT)  # drawn in the browser, before any save
    page.get_by_test_id("save-state").filter(has_text="Draft saved at").wait_for()  # the text's autosave came back
    settle(page)
    runs, sent = page.evaluate("window.__finishedRuns"), relay.sent

    tokens(page).nth(0).click()  # the first टेबल for “table” (the first term is active)
    page.get_by_role("button", name="2. “power socket”").click()  # choose the next term: not a mapping
    tokens(page).nth(5).click()
    tokens(page).nth(6).click(modifiers=["Shift"])  # पावर सॉकेट: two actions
    expect(tokens(page).nth(6)).to_have_attribute("data-selected", "1")
    page.wait_for_timeout(300)
    assert (page.evaluate("window.__finishedRuns"), relay.sent) == (runs, sent)  # no server round trip
    row = page.locator('[data-testid="term-row"]')
    expect(row.nth(0).get_by_test_id("term-words")).to_have_text("→ टेबल")
    expect(row.nth(1).get_by_test_id("term-words")).to_have_text("→ पावर सॉकेट")
    screenshot(page, "editor-map")

    page.keyboard.press("Control+Enter")  # right after a mapping click: submits
    page.get_by_text("You have submitted everything in your queue").wait_for()
    with Session(engine) as session:
        tr = session.scalars(select(Translation).where(Translation.phase == "aware")).one()
        links = {a.aspect_term_id: a for a in tr.aspect_links}
        assert tr.status == "submitted" and tr.text == MAP_HINDI
        spans = sorted((a.start, a.end) for a in links.values())
    assert spans == [(0, 4), (MAP_HINDI.index("पावर"), MAP_HINDI.index("सॉकेट") + len("सॉकेट"))]
    assert MAP_HINDI[0:4] == "टेबल" and MAP_HINDI.index("टेबल", 1) != 0  # the first टेबल, not the second


def test_alt_u_marks_the_sentence_untranslatable_from_the_word_strip(aware_task, start_app, browser_page):
    url, engine = aware_task
    page = browser_page
    enter_as(page, start_app(url), "asha", "translate")
    page.get_by_role("heading", name="Aspect-aware translation").wait_for()
    expect(editor_box(page)).to_be_focused(timeout=WAIT)
    page.keyboard.insert_text(MAP_HINDI)
    tokens(page).nth(4).click()
    page.keyboard.press("Alt+u")
    untranslatable = page.get_by_role("checkbox", name="This sentence is untranslatable (Alt+U)")
    expect(untranslatable).to_be_checked()
    page.get_by_role("combobox", name="Reason").select_option("idiom")
    page.get_by_role("button", name="Save draft").click()
    deadline = time.monotonic() + WAIT / 1000
    while time.monotonic() < deadline:
        with Session(engine) as session:
            tr = session.scalars(select(Translation).where(Translation.phase == "aware")).first()
            # the autosave after Alt+U may store the flag before the reason is chosen: wait for the reason too
            if tr is not None and tr.untranslatable and tr.untranslatable_reason == "idiom":
                break
        page.wait_for_timeout(100)
    assert (tr.untranslatable, tr.untranslatable_reason) == (True, "idiom")


# ----------------------------------------------------------------------------- cheap corrections


def test_a_wrong_word_is_fixed_with_backspace_and_one_pick(two_tasks, start_app, browser_page):
    url, engine = two_tasks
    page = browser_page
    box = open_first(page, start_app(url), engine)
    type_keys(page, "mera ")
    expect(box).to_have_value("मेरा ", timeout=WAIT)
    page.keyboard.press("Backspace")  # 1: the list of मेरा comes back
    options = page.get_by_role("option")
    expect(options.last).to_have_text(re.compile(r"mera$"), timeout=WAIT)  # the Roman word is always offered
    second = options.nth(1).inner_text().split("\n")[-1].strip().lstrip("2").strip()
    page.keyboard.press("2")  # 2: another spelling
    expect(box).to_have_value(second, timeout=WAIT)
    assert second != "मेरा"
    wait_for_stored(page, engine, "K-1", second)
    page.keyboard.press("Escape")
    box.click(position={"x": 24, "y": 20})  # a click on the word opens its list again
    expect(page.get_by_role("option").last).to_have_text(re.compile(r"mera$"), timeout=WAIT)


@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_a_name_is_kept_in_roman_by_picking_it_from_the_list(two_tasks, start_app, chromium, device):
    url, engine = two_tasks
    if device == "phone":
        context = chromium.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True,
                                       locale="en-US")
    else:
        context = chromium.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
    page = context.new_page()
    page.set_default_timeout(45000)
    try:
        box = open_first(page, start_app(url), engine)
        type_keys(page, "Sony")
        name = page.get_by_role("option").last
        expect(name).to_have_text(re.compile(r"Sony$"), timeout=WAIT)
        if device == "phone":
            name.tap()
        else:
            name.click()
        expect(box).to_have_value("Sony", timeout=WAIT)
        type_keys(page, " ki screen")
        expect(box).to_have_value("Sony की screen", timeout=WAIT)
        type_keys(page, " {Brooklyn} se")  # braces keep a name in Roman too, without the braces
        expect(box).to_have_value(re.compile(r"^Sony की \S+ Brooklyn se$"), timeout=WAIT)
        if device == "phone":  # a virtual keyboard sends input events only (no key codes): they convert too
            page.keyboard.insert_text(" achha ")
            expect(box).to_have_value(re.compile(r" अच्छा $"), timeout=WAIT)
        screenshot(page, f"editor-name-{device}")
    finally:
        context.close()


def test_a_sentence_ends_with_a_danda(two_tasks, start_app, browser_page):
    url, engine = two_tasks
    page = browser_page
    box = open_first(page, start_app(url), engine)
    type_keys(page, "mera keyboard achha hai.")
    expect(box).to_have_value("मेरा कीबोर्ड अच्छा है।", timeout=WAIT)
    page.keyboard.press("Control+Enter")
    page.get_by_test_id("item-key").filter(has_text="sentence K-2").wait_for()
    assert stored(engine, "K-1") == "मेरा कीबोर्ड अच्छा है।"


# ----------------------------------------------------------------------------- the ITRANS box's Insert

ITRANS_DRAFT = "एक दो तीन"


@pytest.fixture
def itrans_task(database):
    """One blind task with a stored draft, on a project whose typing scheme is ITRANS (the Roman box)."""
    from dataclasses import replace

    from db.project_settings import load_settings
    from db.settings_change import save_settings
    from tests.support.translation_fixtures import project_id

    url, engine = database
    asha = add_user(engine, "asha", "translator")
    save_settings(engine, project_id(engine),
                  replace(load_settings(engine, project_id(engine)), transliteration_scheme="itrans"), None)
    aid = assign(engine, asha, add_sentence(engine, "K-1", "One two three.", ["two"], domain="laptop"), "blind")
    save_translation(engine, asha, aid, Draft(ITRANS_DRAFT), expected_version=0, action="save")
    return url, engine


def insert_roman(page, roman: str) -> None:
    """Type ``roman`` in the ITRANS box (Enter previews it), then press Insert."""
    from corpus.transliterate import to_devanagari

    idle = page.locator('[data-testid="stApp"][data-test-script-state="notRunning"]')
    box = page.get_by_role("textbox", name="Roman")
    box.click()  # leaving the editor: it tells the page where its caret is
    idle.wait_for(state="attached")
    box.fill(roman)
    box.press("Enter")
    page.get_by_text("Preview: " + to_devanagari(roman, "itrans")).wait_for()
    idle.wait_for(state="attached")
    page.get_by_role("button", name="Insert into translation").click()


def test_insert_replaces_the_selection_made_by_moving_the_caret_without_an_edit(itrans_task, start_app,
                                                                                 browser_page):
    url, engine = itrans_task
    page = browser_page
    enter_as(page, start_app(url), "asha", "translate")
    page.get_by_test_id("item-key").filter(has_text="sentence K-1").wait_for()
    box = editor_box(page)
    expect(box).to_have_value(ITRANS_DRAFT, timeout=WAIT)
    box.click()
    page.keyboard.press("End")
    type_keys(page, " ")  # an edit: its autosave tells the page the caret was at the end
    wait_for_stored(page, engine, "K-1", ITRANS_DRAFT)  # stored text is trimmed
    page.wait_for_timeout(500)
    page.keyboard.press("Control+Home")  # then only the caret moves: no edit, no save
    page.keyboard.press("Shift+ArrowRight")
    page.keyboard.press("Shift+ArrowRight")  # "एक" selected
    insert_roman(page, "chAra")
    expect(box).to_have_value("चार दो तीन ", timeout=WAIT)  # the selection replaced, not the old caret's place
    wait_for_stored(page, engine, "K-1", "चार दो तीन")
    box.click()
    page.keyboard.press("End")
    for _ in range(4):
        page.keyboard.press("ArrowLeft")  # the caret right after "दो" (ArrowLeft moves a letter with its sign)
    insert_roman(page, "pA.Ncha")
    expect(box).to_have_value("चार दो पाँच तीन ", timeout=WAIT)  # at the caret, a space put before it
    wait_for_stored(page, engine, "K-1", "चार दो पाँच तीन")


# ----------------------------------------------------------------------------- N10: kept text after the session ended

def kept_keys(page) -> list[str]:
    return page.evaluate("""() => Object.keys(localStorage).filter((k) => k.startsWith("corpus-tool:unsaved-text:"))""")


def test_text_unsaved_when_the_session_ended_elsewhere_is_discarded_from_this_browser_after_asking(
        itrans_task, start_app, browser_page):
    from db.workflows import deactivate_user

    url, engine = itrans_task
    page = browser_page
    enter_as(page, start_app(url), "asha", "translate")
    page.get_by_test_id("item-key").filter(has_text="sentence K-1").wait_for()
    box = editor_box(page)
    expect(box).to_have_value(ITRANS_DRAFT, timeout=WAIT)
    lead = add_user(engine, "lena", "lead")
    with Session(engine) as session:
        asha = session.scalars(select(Translation.translator_id)).first()
    deactivate_user(engine, asha, actor_id=lead)  # the session ends elsewhere
    box.click()
    page.keyboard.press("End")
    type_keys(page, " chAra")  # kept in this browser at once; its autosave is refused
    assert kept_keys(page) and all(k.startswith(f"corpus-tool:unsaved-text:{asha}:") for k in kept_keys(page))
    question = page.get_by_test_id("kept-text-question")
    question.get_by_role("button", name="Discard the kept text").click(timeout=WAIT)
    question.get_by_text("Discarded: this browser no longer keeps your unsaved text.").wait_for(timeout=WAIT)
    assert kept_keys(page) == []
    assert stored(engine, "K-1") == ITRANS_DRAFT


# ----------------------------------------------------------------------------- N6: a save while an import writes

def test_a_save_during_an_import_says_busy_keeps_the_text_and_is_stored_in_the_background_once_it_ends(
        itrans_task, start_app, browser_page):
    import sqlite3

    from db.engine import ProjectBusy

    url, engine = itrans_task
    page = browser_page
    enter_as(page, start_app(url), "asha", "translate")
    page.get_by_test_id("item-key").filter(has_text="sentence K-1").wait_for()
    box = editor_box(page)
    expect(box).to_have_value(ITRANS_DRAFT, timeout=WAIT)
    importer = sqlite3.connect(url.removeprefix("sqlite:///"), isolation_level=None)
    importer.execute("BEGIN IMMEDIATE")  # another process writing, as `import-work` does
    try:
        box.click()
        page.keyboard.press("End")
        type_keys(page, " chAra")  # its autosave meets the lock
        busy = page.get_by_text(ProjectBusy.MESSAGE)
        busy.wait_for(timeout=WAIT)
        expect(box).to_have_value(ITRANS_DRAFT + " chAra")  # the work stays in the editor
        assert importer.execute("SELECT text FROM translations").fetchall() == [(ITRANS_DRAFT,)]  # nothing stored
    finally:
        importer.execute("ROLLBACK")
        importer.close()
    # Nothing typed or clicked since: the page's background retry stores it and the message goes.
    wait_for_stored(page, engine, "K-1", ITRANS_DRAFT + " chAra")
    expect(busy).to_have_count(0, timeout=WAIT)
    expect(box).to_have_value(ITRANS_DRAFT + " chAra")


def test_text_kept_after_asking_comes_back_for_the_same_user_only(itrans_task, start_app, browser_page):
    from db.auth import end_session
    from ui.auth_routes import SESSION_COOKIE

    url, engine = itrans_task
    page = browser_page
    server = start_app(url)
    enter_as(page, server, "asha", "translate")
    page.get_by_test_id("item-key").filter(has_text="sentence K-1").wait_for()
    box = editor_box(page)
    expect(box).to_have_value(ITRANS_DRAFT, timeout=WAIT)
    token = next(c["value"] for c in page.context.cookies() if c["name"] == SESSION_COOKIE)
    assert end_session(engine, token) is not None  # logged out in another tab
    box.click()
    page.keyboard.press("End")
    type_keys(page, " chAra")
    question = page.get_by_test_id("kept-text-question")
    question.get_by_role("button", name="Keep it for when I log in again").click(timeout=WAIT)
    question.get_by_text("Kept: your unsaved text comes back").wait_for(timeout=WAIT)
    assert kept_keys(page)
    # Another translator logs in in this browser: her editor shows her own text, never asha's kept copy.
    ravi = add_user(engine, "ravi", "translator")
    with Session(engine) as session:
        sid = session.scalars(select(SourceSentence.id).where(SourceSentence.sentence_id == "K-1")).one()
    assign(engine, ravi, sid, "blind")
    enter_as(page, server, "ravi", "translate")
    page.get_by_test_id("item-key").filter(has_text="sentence K-1").wait_for()
    expect(editor_box(page)).to_have_value("", timeout=WAIT)
    page.wait_for_timeout(1000)
    expect(editor_box(page)).to_have_value("")
    # asha logs in again: her kept text is put back (and saved).
    enter_as(page, server, "asha", "translate")
    page.get_by_test_id("item-key").filter(has_text="sentence K-1").wait_for()
    expect(editor_box(page)).to_have_value(ITRANS_DRAFT + " chAra", timeout=WAIT)
    wait_for_stored(page, engine, "K-1", ITRANS_DRAFT + " chAra")
