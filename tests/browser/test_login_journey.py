"""Logging in through a real browser: the session lives in an HttpOnly cookie, never in the address bar;
a reload keeps it, another browser given the same URL is not logged in; logout, a password change and a
deactivation end it in every tab, and a tab left open writes nothing on its next click and says why."""

import re

import pytest
from journey_steps import login, screenshot
from playwright.sync_api import expect
from sqlalchemy import select
from sqlalchemy.orm import Session

ENDED = "Your session ended"


@pytest.fixture(scope="module")
def shared_demo(demo_sqlite, tmp_path_factory, start_module_app):
    """(server, engine) on a demo copy that this module's read-only tests share: they only log in (a login
    adds a session, a wrong password one failure, well under the throttle's free tries) and read. Tests
    that end sessions, change accounts, count login audit rows or need a fresh server start their own."""
    from db.engine import make_engine
    from tests.support.databases import copy_of

    url = copy_of(demo_sqlite, tmp_path_factory.mktemp("login-shared") / "app.db")
    engine = make_engine(url)
    yield start_module_app(url), engine
    engine.dispose()


def _url(server, path: str = "") -> str:
    return f"{server.url.rstrip('/')}/{path}"


def _user_ids(engine) -> dict[str, int]:
    from db.models import User

    with Session(engine) as s:
        return dict(s.execute(select(User.username, User.id)).all())


def test_lead_logs_in_and_sees_the_corpus(shared_demo, browser_page):
    server, _ = shared_demo
    page = browser_page
    login(page, server.url, "lead", "lead-demo-pass")
    page.get_by_role("link", name="Sentences", exact=True).click()
    page.get_by_text("13 sentences shown").wait_for()
    page.locator("mark").first.wait_for()
    screenshot(page, "login-lead-sentences")


def test_wrong_password_shows_an_error_in_the_browser(shared_demo, browser_page):
    server, _ = shared_demo
    page = browser_page
    page.goto(server.url)
    page.get_by_role("textbox", name="Username").fill("lead")
    page.get_by_role("textbox", name="Password").fill("not-the-password")
    page.get_by_role("button", name="Log in", exact=True).click()
    page.get_by_text("unknown user or wrong password").wait_for()


def test_the_address_bar_holds_no_credential_a_reload_stays_and_another_browser_is_not_logged_in(
        shared_demo, browser_page, chromium):
    server, _ = shared_demo
    page = browser_page
    visited, shown = [], []
    page.on("request", lambda request: visited.append(request.url) if request.is_navigation_request() else None)
    page.on("framenavigated", lambda frame: shown.append(frame.url) if frame == page.main_frame else None)
    login(page, server.url, "lead", "lead-demo-pass")
    page.get_by_role("link", name="Sentences", exact=True).click()
    page.get_by_text("13 sentences shown").wait_for()
    assert "?" not in page.url and "session" not in page.url
    (cookie,) = [c for c in page.context.cookies() if c["name"] == "corpus_session"]
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and cookie["path"] == "/"
    assert page.evaluate("document.cookie").find("corpus_session") == -1  # scripts cannot read it
    # the one-use login code went to /auth/session (which answered with a redirect), and the history
    # keeps no entry holding it
    assert any("/auth/session?code=" in u for u in visited)
    assert shown and not [u for u in shown if "code=" in u or "session=" in u]
    page.reload()
    page.get_by_role("button", name="Log out").wait_for()
    page.get_by_text("13 sentences shown").wait_for()
    other = chromium.new_context()
    try:
        stranger = other.new_page()
        stranger.set_default_timeout(45000)
        stranger.goto(page.url)
        stranger.get_by_role("button", name="Log in", exact=True).wait_for()
        expect(stranger.get_by_role("button", name="Log out")).to_have_count(0)
        expect(stranger.get_by_text("13 sentences shown")).to_have_count(0)
        for code_url in (u for u in visited if "/auth/session?code=" in u):  # a copied code URL is spent
            stranger.goto(code_url)
            stranger.get_by_role("button", name="Log in", exact=True).or_(stranger.get_by_text("does not log anyone in")).wait_for()
            assert not [c for c in other.cookies() if c["name"] == "corpus_session"]
    finally:
        other.close()


def test_an_old_session_link_logs_nobody_in(shared_demo, browser_page):
    """Earlier versions put the token in ?session=; such a link (from a history or a log) is ignored."""
    from tests.support.login_tokens import session_token

    server, demo_db = shared_demo
    page = browser_page
    page.goto(_url(server, f"?session={session_token(demo_db, 'lead')}"))
    page.get_by_role("button", name="Log in", exact=True).wait_for()
    expect(page).not_to_have_url(re.compile("session="))
    expect(page.get_by_role("button", name="Log out")).to_have_count(0)


def test_a_translator_typing_lead_urls_sees_no_lead_content(shared_demo, browser_page):
    server, _ = shared_demo
    page = browser_page
    login(page, server.url, "asha", "asha-demo-pass")
    assert page.get_by_role("link", name="Adjudication").count() == 0
    for path, lead_heading in (("adjudicate", "Adjudication"), ("dashboard", "Agreement dashboard"),
                               ("users", "Users")):
        page.goto(_url(server, path))
        page.get_by_role("button", name="Log out").wait_for()
        page.get_by_role("heading", name="Hello", exact=False).first.wait_for()
        assert page.get_by_role("heading", name=lead_heading, exact=True).count() == 0
        assert page.locator("[data-testid='stMetric'], [data-testid='stDataFrame']").filter(
            has_text="kappa").count() == 0
    screenshot(page, "login-translator-lead-url")


def test_a_lead_url_as_a_fresh_servers_first_request_shows_a_translator_nothing(demo_db, start_app, browser_page):
    """A server's very first run can take Streamlit's old pages/ folder route and run the page file
    itself, before app.py: the page's own role check must hold there too."""
    from tests.support.login_tokens import session_token

    server = start_app(str(demo_db.url.render_as_string(hide_password=False)))
    page = browser_page
    page.context.add_cookies([{"name": "corpus_session", "value": session_token(demo_db, "asha"),
                               "url": server.url, "httpOnly": True, "sameSite": "Strict"}])
    page.goto(_url(server, "adjudicate"))
    page.get_by_text("You do not have access to this page.").or_(
        page.get_by_role("heading", name="Hello", exact=False)).first.wait_for()
    assert page.get_by_role("heading", name="Adjudication", exact=True).count() == 0
    assert page.locator("[data-testid='stDataFrame'], [data-testid='stMetric']").filter(
        has_text="kappa").count() == 0


@pytest.mark.parametrize("trusted, seen", [(None, "local"), ("127.0.0.1", "203.0.113.77")])
def test_x_forwarded_for_counts_only_from_a_configured_proxy(demo_db, start_app, chromium, monkeypatch,
                                                              trusted, seen):
    """Without CORPUS_TRUSTED_PROXIES nobody can pose as another client to the login throttle; with the
    proxy named, the address it forwards is the client's."""
    from db.models import AuditEvent

    if trusted:
        monkeypatch.setenv("CORPUS_TRUSTED_PROXIES", trusted)
    else:
        monkeypatch.delenv("CORPUS_TRUSTED_PROXIES", raising=False)
    server = start_app(str(demo_db.url.render_as_string(hide_password=False)))
    context = chromium.new_context(extra_http_headers={"X-Forwarded-For": "203.0.113.77"})
    try:
        page = context.new_page()
        page.set_default_timeout(45000)
        login(page, server.url, "lead", "lead-demo-pass")
    finally:
        context.close()
    with Session(demo_db) as s:
        clients = s.scalars(select(AuditEvent.detail["client"].as_string()).where(AuditEvent.action == "login")).all()
    assert clients == [seen]


def _open_translate_task(page) -> None:
    page.get_by_role("link", name="Translate").click()
    page.get_by_role("heading", name="Blind translation").wait_for()


def _translations_of(engine, user_id: int) -> list[tuple]:
    from db.models import Translation

    with Session(engine) as s:
        return sorted(s.execute(select(Translation.id, Translation.text, Translation.status, Translation.version)
                                .where(Translation.translator_id == user_id)).all())


def _change_password_in(page, old: str, new: str) -> None:
    page.get_by_role("link", name="My account").click()
    page.get_by_role("textbox", name="Current password").fill(old)
    page.get_by_role("textbox", name=re.compile("^New password \\(")).fill(new)
    page.get_by_role("textbox", name="New password again").fill(new)
    page.get_by_role("button", name="Change password").click()


@pytest.mark.parametrize("ending", ["logout", "password change", "deactivation"])
def test_the_session_ends_in_every_tab_and_an_open_tab_writes_nothing_and_says_why(
        demo_db, start_app, browser_page, ending):
    server = start_app(str(demo_db.url.render_as_string(hide_password=False)))
    ids = _user_ids(demo_db)
    tab_a = browser_page
    login(tab_a, server.url, "asha", "asha-demo-pass")
    tab_b = tab_a.context.new_page()
    tab_b.set_default_timeout(45000)
    tab_b.goto(server.url)
    tab_b.get_by_role("button", name="Log out").wait_for()  # the second tab shares the cookie
    _open_translate_task(tab_b)
    before = _translations_of(demo_db, ids["asha"])

    if ending == "logout":
        tab_a.get_by_role("button", name="Log out").click()
        tab_a.get_by_role("button", name="Log in", exact=True).wait_for()
        assert not [c for c in tab_a.context.cookies() if c["name"] == "corpus_session"]
    elif ending == "password change":
        _change_password_in(tab_a, "asha-demo-pass", "asha-new-password-7")
        tab_a.get_by_text("Password changed").or_(tab_a.get_by_role("heading", name="Hello", exact=False)).first.wait_for()
        tab_a.get_by_role("button", name="Log out").wait_for()  # this tab carries on with a new session
    else:
        from db.workflows import deactivate_user

        deactivate_user(demo_db, ids["asha"], actor_id=ids["lead"])

    tab_b.bring_to_front()
    tab_b.get_by_role("textbox", name="Your Hindi translation").fill("यह अनुवाद सहेजा नहीं जाना चाहिए")
    tab_b.get_by_role("button", name="Submit & next").click()
    tab_b.get_by_text(ENDED).first.wait_for()
    tab_b.get_by_role("button", name="Log in", exact=True).wait_for()
    screenshot(tab_b, f"session-ended-{ending.replace(' ', '-')}")
    assert _translations_of(demo_db, ids["asha"]) == before
    if ending == "password change":
        tab_a.reload()
        tab_a.get_by_role("button", name="Log out").wait_for()  # the tab that changed it stays logged in


def test_a_deep_link_on_a_fresh_server_opens_through_the_router(demo_sqlite, tmp_path, start_app, browser_page):
    """The first request a server gets may be a bookmark of a page: it opens that page inside the router
    (the person's pages in the sidebar, Log out), never the page file alone with every file listed."""
    from db.engine import make_engine
    from tests.support.databases import copy_of
    from tests.support.login_tokens import login_token

    url = copy_of(demo_sqlite, tmp_path / "app.db")
    engine = make_engine(url)
    server = start_app(url)
    page = browser_page
    page.context.add_cookies([{"name": "corpus_session", "value": login_token(engine, "meera"), "url": server.url}])
    page.goto(_url(server, "tag"))
    page.get_by_role("heading", name="Tag aspects").wait_for()
    page.get_by_role("button", name="Log out").wait_for()
    nav = page.get_by_test_id("stSidebarNav")
    expect(nav.get_by_role("link", name="Tag aspects")).to_be_visible()
    for file_only in ("app", "users", "dashboard"):  # what the page folder alone lists
        expect(nav.get_by_role("link", name=file_only, exact=True)).to_have_count(0)
    engine.dispose()
