"""An admin's Users tab left open after the admin was deactivated elsewhere (issue 31, N2), in a real
browser: clicking "Create user" creates nothing and the page says the session ended."""

from __future__ import annotations

import re

from journey_steps import login, screenshot
from sqlalchemy import func, select
from sqlalchemy.orm import Session

ENDED = "Your session ended"


def test_a_deactivated_admins_open_users_tab_creates_nothing_and_says_the_session_ended(
        demo_db, start_app, browser_page):
    from db.models import User
    from db.workflows import deactivate_user

    server = start_app(str(demo_db.url.render_as_string(hide_password=False)))
    with Session(demo_db) as session:
        admin = session.scalar(select(User.id).where(User.username == "admin"))
    page = browser_page
    login(page, server.url, "admin", "admin-demo-pass")
    page.get_by_role("link", name="Users", exact=True).click()
    page.get_by_role("heading", name="New user").wait_for()
    page.get_by_role("textbox", name="Username").fill("mallory")
    page.get_by_role("textbox", name=re.compile("^Password \\(at least")).fill("mallory-known-pw-1")
    deactivate_user(demo_db, admin, actor_id=None)  # elsewhere: the command line, another admin
    page.get_by_role("button", name="Create user").click()
    page.get_by_text(ENDED).first.wait_for()
    screenshot(page, "users-tab-session-ended")
    with Session(demo_db) as session:
        assert session.scalar(select(func.count()).select_from(User).where(User.username == "mallory")) == 0
