"""Steps shared by the browser journeys (a module, not conftest: two conftest modules would collide on import)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

# Counts the script runs the page has seen finish (the app's data-test-script-state turning to notRunning), so a
# test can wait for the run its own click started rather than guess how long the server takes to begin it (a
# loaded CI machine took longer than a fixed pause, and the test read the previous run's page).
RUN_WATCH = """
(() => {
  window.__finishedRuns = 0;
  new MutationObserver(changes => {
    for (const c of changes) {
      if (c.target.getAttribute('data-test-script-state') === 'notRunning' && c.oldValue !== 'notRunning') {
        window.__finishedRuns += 1;
      }
    }
  }).observe(document, {subtree: true, attributes: true, attributeOldValue: true,
                        attributeFilter: ['data-test-script-state']});
})();
"""
_IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'


def watch_runs(context) -> None:
    """Every page of ``context`` counts its finished script runs (see ``after_rerun``)."""
    context.add_init_script(RUN_WATCH)


def settle(page) -> None:
    """Wait a moment, then until the app is idle: enough after a step whose run has surely begun (the page
    already shows its first result); after a click, ``after_rerun`` waits for the very run the click started."""
    page.wait_for_timeout(150)
    page.locator(_IDLE).wait_for(state="attached")


def after_rerun(page, action: Callable[[], object]) -> None:
    """Do ``action`` (a click or key that reruns the script), then wait until a run that finished after it has
    left the page idle: what the test reads next is what the server drew for that action."""
    page.locator(_IDLE).wait_for(state="attached")
    before = page.evaluate("window.__finishedRuns")
    action()
    page.wait_for_function(
        "n => window.__finishedRuns > n && document.querySelector('[data-testid=\"stApp\"]')"
        ".getAttribute('data-test-script-state') === 'notRunning'", arg=before)


def choose(page, box, option: str, tries: int = 3) -> None:
    """Pick ``option`` in the select box ``box`` (a locator): once the page is idle, as a person waits for the
    page before opening a menu. A rerun that redraws the box closes its menu under the pointer (a loaded CI run
    saw the option detached for 45 s), and a person opens it again; so does this, ``tries`` times at most."""
    from playwright.sync_api import Error as BrowserError

    for attempt in range(tries):
        page.locator(_IDLE).wait_for(state="attached")
        box.click()
        try:
            page.get_by_role("option", name=option, exact=True).click(timeout=10_000)
            return
        except BrowserError:
            if attempt == tries - 1:
                raise
            page.keyboard.press("Escape")


def fresh(page):
    """The elements the current script run has drawn: while a rerun is on its way Streamlit keeps the previous
    run's elements on the page, marked stale, so a button can briefly be there twice."""
    return page.locator('[data-testid="stElementContainer"][data-stale="false"]')


def page_text(page, limit: int = 3000) -> str:
    """What a failed test's page showed, for the log (a CI run keeps no screenshots)."""
    try:
        return page.locator('[data-testid="stMain"]').inner_text(timeout=2000)[:limit]
    except Exception as exc:  # the page itself may be what failed
        return f"(no text: {exc})"


def screenshot(page, name: str, *, always: bool = False) -> None:
    """A full-page picture in test-artifacts/ when CORPUS_TEST_SCREENSHOTS is set, and always for a failure
    (``always``): each one makes the browser draw the whole page again, and CI keeps none of them."""
    if not (always or os.environ.get("CORPUS_TEST_SCREENSHOTS")):
        return
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def enter_as(page, server, username: str, path: str) -> None:
    """Open ``path`` of ``server`` (an AppServer) logged in as ``username``, with the session cookie the login
    form would have set, made in the server's database: for tests whose subject is not the login (the form
    has its own tests in test_login_journey.py, and the journeys log in through it). Saves each test the
    login page, the form's round trip and a reload."""
    from db.engine import make_engine
    from tests.support.login_tokens import login_token
    from ui.auth_routes import SESSION_COOKIE

    engine = make_engine(server.database_url)
    try:
        token = login_token(engine, username)
    finally:
        engine.dispose()
    page.context.add_cookies([{"name": SESSION_COOKIE, "value": token, "url": server.url}])
    page.goto(f"{server.url.rstrip('/')}/{path}")
    page.get_by_role("button", name="Log out").wait_for()


def login(page, base_url: str, username: str, password: str) -> None:
    """Log in through the real login form."""
    page.goto(base_url)
    page.get_by_role("textbox", name="Username").fill(username)
    page.get_by_role("textbox", name="Password").fill(password)
    page.get_by_role("button", name="Log in", exact=True).click()
    page.get_by_role("button", name="Log out").wait_for()


def map_term(page, n: int, term: str, hindi: str | None, why: str = "") -> None:
    """In the translation editor's map: the ``n``-th term rendered by the Hindi words ``hindi`` (the first place
    they stand together in the text), or dropped with ``why`` when ``hindi`` is None. No server round trip."""
    editor = page.get_by_test_id("translation-editor")
    if hindi is None:
        editor.get_by_role("checkbox", name=f"“{term}” is dropped in my translation").check()
        editor.get_by_role("textbox", name=f"Why was “{term}” dropped?").fill(why)
        return
    editor.get_by_role("button", name=f"{n}. “{term}”", exact=True).click()
    words = hindi.split()
    texts = editor.locator("[data-token-index]").all_inner_texts()
    hits = [i for i in range(len(texts)) if texts[i:i + len(words)] == words]
    assert hits, (words, texts, page.get_by_role("textbox", name="Your Hindi translation").input_value())
    first = hits[0]
    editor.locator(f'[data-token-index="{first}"]').click()
    if len(words) > 1:
        editor.locator(f'[data-token-index="{first + len(words) - 1}"]').click(modifiers=["Shift"])
    editor.locator(f'[data-token-index="{first}"]').wait_for()
