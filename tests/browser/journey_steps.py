"""Steps shared by the browser journeys (a module, not conftest: two conftest modules would collide on import)."""

from __future__ import annotations

from pathlib import Path

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


def screenshot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def login(page, base_url: str, username: str, password: str) -> None:
    """Log in through the real login form."""
    page.goto(base_url)
    page.get_by_role("textbox", name="Username").fill(username)
    page.get_by_role("textbox", name="Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("button", name="Log out").wait_for()
