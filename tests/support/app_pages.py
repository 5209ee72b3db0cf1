"""Pages under AppTest, opened as a logged-in user: the one way the page tests log in and open a page.

The database is the ``app_engine`` fixture (tests/conftest.py), or ``demo_db``: a fresh migrated SQLite
copy of the test's own that DATABASE_URL points at. AppTest has no cookies, so the login is the session
token a login leaves in session state.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from sqlalchemy import Engine
from streamlit.testing.v1 import AppTest

from db.engine import make_engine
from tests.support.databases import copy_of, settle
from tests.support.login_tokens import login_token

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app.py"
# How long one page run may take before AppTest calls it hung: a cap for a page that never ends, not a speed
# check (speed belongs in bench/). Generous, so a machine with both cores busy still passes.
PAGE_RUN_LIMIT_S = 300


def open_file(engine: Engine, user: int | str | None, page: str, *, timeout: float = PAGE_RUN_LIMIT_S,
              state: dict | None = None) -> AppTest:
    """Run ``page``'s own file (e.g. "pages/backup.py", what a typed URL reaches), as ``user`` or nobody,
    with ``state`` put in session state first."""
    at = AppTest.from_file(str(ROOT / page), default_timeout=timeout)
    if user is not None:
        at.session_state["session_token"] = login_token(engine, user)
    for key, value in (state or {}).items():
        at.session_state[key] = value
    return at.run()


def open_page(engine: Engine, user: int | str, page: str, *, timeout: float = PAGE_RUN_LIMIT_S, token: str | None = None,
              query: dict[str, str] | None = None) -> AppTest:
    """Open ``page`` through the app's navigation as ``user`` (or with the login ``token``), the address
    carrying ``query``; the page must run without an exception."""
    at = AppTest.from_file(str(APP), default_timeout=timeout)
    at.session_state["session_token"] = token or login_token(engine, user)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    at.run()
    at.switch_page(page)
    at.run()
    assert not at.exception, at.exception
    return at


def built_once(tmp_path_factory, migrated_sqlite: Path, build: Callable[[Engine], dict]) -> tuple[Path, dict]:
    """A module's project built once into a file (``build`` gets a migrated engine, returns the ids the
    tests need); each test then gets a copy through ``copied``, so a test that writes changes only its own."""
    path = tmp_path_factory.mktemp("built") / "template.db"
    engine = make_engine(copy_of(migrated_sqlite, path))
    ids = build(engine)
    settle(engine, path)
    return path, ids


def copied(template: Path, tmp_path: Path, monkeypatch) -> Engine:
    """A copy of a built project that the app uses (DATABASE_URL); dispose it after the test."""
    url = copy_of(template, tmp_path / "app.db")
    monkeypatch.setenv("DATABASE_URL", url)
    return make_engine(url)
