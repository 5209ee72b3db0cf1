"""Logging in through a real browser: a lead sees the lead's screens; a translator typing their URLs sees none, and a deactivated translator is sent back to the login form."""

from journey_steps import login, screenshot


def test_lead_logs_in_and_sees_the_corpus(demo_db, start_app, browser_page):
    server = start_app(str(demo_db.url.render_as_string(hide_password=False)))
    page = browser_page
    login(page, server.url, "lead", "lead-demo")
    page.get_by_role("link", name="Sentences").click()
    page.get_by_text("13 sentences shown").wait_for()
    page.locator("mark").first.wait_for()
    screenshot(page, "login-lead-sentences")
    page.reload()
    page.get_by_role("button", name="Log out").wait_for()  # the login survives a refresh


def test_wrong_password_shows_an_error_in_the_browser(demo_db, start_app, browser_page):
    server = start_app(str(demo_db.url.render_as_string(hide_password=False)))
    page = browser_page
    page.goto(server.url)
    page.get_by_role("textbox", name="Username").fill("lead")
    page.get_by_role("textbox", name="Password").fill("not-the-password")
    page.get_by_role("button", name="Log in").click()
    page.get_by_text("unknown user or wrong password").wait_for()


def _session_of(page) -> str:
    from urllib.parse import parse_qs, urlparse

    return parse_qs(urlparse(page.url).query)["session"][0]


def test_a_translator_typing_lead_urls_sees_no_lead_content(demo_db, start_app, browser_page):
    server = start_app(str(demo_db.url.render_as_string(hide_password=False)))
    page = browser_page
    login(page, server.url, "asha", "asha-demo")
    token = _session_of(page)
    assert page.get_by_role("link", name="Adjudication").count() == 0
    for path, lead_heading in (("adjudicate", "Adjudication"), ("dashboard", "Agreement dashboard"),
                               ("users", "Users")):
        page.goto(f"{server.url.rstrip('/')}/{path}?session={token}")
        page.get_by_role("button", name="Log out").wait_for()
        page.get_by_role("heading", name="Hello", exact=False).first.wait_for()
        assert page.get_by_role("heading", name=lead_heading, exact=True).count() == 0
        assert page.locator("[data-testid='stMetric'], [data-testid='stDataFrame']").filter(
            has_text="kappa").count() == 0
    screenshot(page, "login-translator-lead-url")


def test_a_deactivated_translator_is_sent_to_the_login_form(demo_db, start_app, browser_page):
    from sqlalchemy import select
    from sqlalchemy.orm import Session

    from db.models import User
    from db.users import deactivate_user

    server = start_app(str(demo_db.url.render_as_string(hide_password=False)))
    page = browser_page
    login(page, server.url, "asha", "asha-demo")
    with Session(demo_db) as s:
        ids = dict(s.execute(select(User.username, User.id)).all())
    deactivate_user(demo_db, ids["asha"], actor_id=ids["lead"])
    page.reload()
    page.get_by_role("button", name="Log in").wait_for()
    assert page.get_by_role("button", name="Log out").count() == 0
    assert "session=" not in page.url


def test_a_lead_url_as_a_fresh_servers_first_request_shows_a_translator_nothing(demo_db, start_app, browser_page):
    """A server's very first run can take Streamlit's old pages/ folder route and run the page file
    itself, before app.py: the page's own role check must hold there too."""
    from login_tokens import session_token

    server = start_app(str(demo_db.url.render_as_string(hide_password=False)))
    page = browser_page
    page.goto(f"{server.url.rstrip('/')}/adjudicate?session={session_token(demo_db, 'asha')}")
    page.get_by_text("You do not have access to this page.").or_(
        page.get_by_role("heading", name="Hello", exact=False)).first.wait_for()
    assert page.get_by_role("heading", name="Adjudication", exact=True).count() == 0
    assert page.locator("[data-testid='stDataFrame'], [data-testid='stMetric']").filter(
        has_text="kappa").count() == 0
