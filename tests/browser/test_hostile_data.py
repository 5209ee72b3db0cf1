"""Imported and user-typed strings are inert on every page: a sentence, an aspect term, a username, a
display name and a glossary entry that carry Markdown images, HTML, Streamlit directives, LaTeX and links
make no browser load anything from another origin, run no script, and render no image or link of theirs.

Each page is walked by the role that may open it; the network is watched for the whole walk
(Playwright counts every request whose origin is not the server's: it must stay 0).
"""

from __future__ import annotations

import sys
from pathlib import Path
from urllib.parse import urlparse

import pytest
from journey_steps import login, screenshot

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from db.users import create_user  # noqa: E402
from db.engine import make_engine, transaction  # noqa: E402
from db.models import GlossaryTerm  # noqa: E402
from tests.support.databases import copy_of  # noqa: E402
from tests.support.translation_fixtures import add_sentence, assign, project_id  # noqa: E402

OUTSIDE = "127.0.0.1:9"
HOSTILE = (f"![x](http://{OUTSIDE}/md.png) <img src=http://{OUTSIDE}/img.png onerror=window.__pwned=1> "
           f"<script>window.__pwned=1</script> :red[red] :material/warning: $$\\frac{{a}}{{b}}$$ "
           f"[click](http://{OUTSIDE}/link) http://{OUTSIDE}/auto **bold** # heading")
HOSTILE_NAME = f"![u](http://{OUTSIDE}/user.png)"  # usernames take no spaces
PASSWORD = "hostile-user-pass"

# The pages this walk covers and who opens them (the lead's pages as the lead).
OWN_PAGES = ["Home", "My account", "Users"]
HEADINGS = {"Home": "Hello", "Assignments": "Translation assignments", "Backup": "Backup and restore",
            "Dashboard": "Agreement dashboard", "Export": "Export dataset", "Statistics": "Corpus statistics"}
OTHER_LEAD_PAGES = ["Dashboard", "Assignments", "Adjudication", "Final translations", "Export", "Import",
                    "Sentences", "Statistics", "Audit a dataset", "Project settings", "Backup"]


@pytest.fixture(scope="module")
def hostile_server(demo_sqlite, tmp_path_factory, start_module_app):
    """The demo project with the hostile strings, under one app server that the module's tests share (a walk
    only reads)."""
    url = copy_of(demo_sqlite, tmp_path_factory.mktemp("hostile") / "app.db")
    demo_db = make_engine(url)
    sentence = add_sentence(demo_db, f"h-{HOSTILE_NAME}", f"The food was fine. {HOSTILE}", ["food"],
                            ordinal=99)
    user = create_user(demo_db, HOSTILE_NAME, {"translator", "annotator"}, PASSWORD, display_name=HOSTILE)
    assign(demo_db, user, sentence, "blind")
    with transaction(demo_db) as session:
        session.add(GlossaryTerm(project_id=project_id(demo_db), english=HOSTILE[:200], hindi=HOSTILE[:200],
                                 rule="transliterate"))
    demo_db.dispose()
    return start_module_app(url)


@pytest.fixture(scope="module")
def logged_in(hostile_server, chromium):
    """One browser context per person, logged in once under a Watch set before the login and kept for the module:
    each test walks its pages in that person's tab, and every check covers all that the tab loaded so far (a
    login costs more renderer CPU than a walk of one page)."""
    tabs: dict[str, tuple] = {}
    contexts = []

    def tab(username: str, password: str):
        if username not in tabs:
            context = chromium.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
            contexts.append(context)
            page = context.new_page()
            page.set_default_timeout(45000)
            watch = Watch(page, hostile_server.url)
            login(page, hostile_server.url, username, password)
            tabs[username] = page, watch
        return tabs[username]

    yield tab
    for context in contexts:
        context.close()


class Watch:
    """Every request the page makes to another origin, and whether any script of the data ran."""

    def __init__(self, page, server_url: str):
        self.page, self.origin, self.outside = page, urlparse(server_url).netloc, []
        page.on("request", self._seen)

    def _seen(self, request) -> None:
        url = urlparse(request.url)
        if url.scheme in ("http", "https", "ws", "wss") and url.netloc != self.origin:
            self.outside.append(request.url)

    def check(self, where: str) -> None:
        page = self.page
        assert page.evaluate("window.__pwned === undefined"), f"a script of the data ran on {where}"
        planted = page.locator(f"img[src*='{OUTSIDE}'], a[href*='{OUTSIDE}'], script:has-text('__pwned')")
        assert planted.count() == 0, f"{where} rendered an element of the data: {planted.first.evaluate('e => e.outerHTML')}"
        assert page.locator("[data-testid='stException']").count() == 0, f"{where} shows an exception"
        assert self.outside == [], f"{where} loaded from another origin: {self.outside}"


def _walk(page, watch: Watch, titles: list[str], shots: str) -> list[str]:
    """Open each page by its navigation link; returns the titles it could not find (none expected)."""
    missing = []
    for title in titles:
        link = page.get_by_role("link", name=title, exact=True)
        if link.count() == 0:
            more = page.get_by_text("View ", exact=False).filter(has_text="more")
            if more.count():
                more.first.click()
        if link.count() == 0:
            missing.append(title)
            continue
        link.first.click()
        page.get_by_role("heading", name=HEADINGS.get(title, title), exact=title != "Home").first.wait_for()
        page.locator("[data-test-script-state='notRunning']").wait_for()  # the page's run has finished
        if title == "Translate":
            page.get_by_text("The food was fine", exact=False).first.wait_for()
        watch.check(title)
        screenshot(page, f"hostile-{shots}-{title.lower().replace(' ', '-')}")
    return missing


def test_the_hostile_users_own_pages_load_nothing_from_outside(logged_in):
    page, watch = logged_in(HOSTILE_NAME, PASSWORD)
    page.get_by_role("heading", name="Hello", exact=False).first.wait_for()
    watch.check("Home")
    assert _walk(page, watch, ["Home", "My account"], "translator") == []


def test_the_leads_own_pages_with_hostile_data_load_nothing_from_outside(logged_in):
    page, watch = logged_in("admin", "admin-demo-pass")
    assert _walk(page, watch, OWN_PAGES, "lead") == []
    page.get_by_role("combobox", name="User").click()
    page.keyboard.type(HOSTILE_NAME[:4])
    page.keyboard.press("Enter")
    page.get_by_role("button", name="Deactivate", exact=False).wait_for()
    screenshot(page, "hostile-lead-users-chosen")
    watch.check("Users, the hostile user chosen")


@pytest.mark.parametrize("title", OTHER_LEAD_PAGES)
def test_the_other_lead_pages_with_hostile_data_load_nothing_from_outside(logged_in, title):
    page, watch = logged_in("admin", "admin-demo-pass")
    assert _walk(page, watch, [title], "lead") == []


@pytest.mark.parametrize("title", ["Translate", "Tag aspects"])
def test_the_work_pages_with_hostile_data_load_nothing_from_outside(logged_in, title):
    """The hostile user's own blind task is on the hostile sentence."""
    page, watch = logged_in(HOSTILE_NAME, PASSWORD)
    assert _walk(page, watch, [title], "translator") == []
