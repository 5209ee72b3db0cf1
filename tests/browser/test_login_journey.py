"""A newcomer logs in to the demo project in a real browser and sees the lead's screens."""

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
