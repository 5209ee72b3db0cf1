"""Every page against every kind of visitor: a page a role may not use shows nothing of itself, whether
reached through the router or by loading its file directly, and forged or stale sessions are no login.

The demo project is loaded once per session, the tokens made once per module, and each test gets a copy
of that database (logins write to it).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.login_tokens import session_token
from sqlalchemy import select
from sqlalchemy.orm import Session
from streamlit.testing.v1 import AppTest

from db.access import SESSION_ENDED
from db.users import create_user, reset_password
from db.engine import make_engine
from db.models import User
from db.workflows import deactivate_user
from tests.support.app_pages import PAGE_RUN_LIMIT_S
from tests.support.databases import copy_of, settle
from ui.common import PAGES

ROOT = Path(__file__).resolve().parents[2]
ROLES_OF = {"translator": {"translator"}, "annotator": {"annotator"}, "lead": {"lead"}, "admin": {"admin", "lead"},
            "admin-only": {"admin"}, "translator-annotator": {"translator", "annotator"}}
# The demo's accounts, and two made for these tests: an admin who is no lead, a translator who also tags.
LOGINS = {"translator": "asha", "annotator": "meera", "lead": "lead", "admin": "admin", "admin-only": "root",
          "translator-annotator": "kavya"}
# Visitors without a live login: nobody, a made-up token, a lead's token from before a password reset,
# and the token of a lead who has since been deactivated.
NO_LOGIN = ("nobody", "forged", "stale-after-reset", "stale-after-deactivation")
VISITORS = tuple(LOGINS) + NO_LOGIN
# Every page is loaded by each of these (the two-role person is checked by the router test only).
PAGE_VISITORS = tuple(v for v in VISITORS if v != "translator-annotator")
REFUSAL = "You do not have access to this page."
LOG_IN = "Please log in."


def may_open(visitor: str, roles: tuple[str, ...]) -> bool:
    """Exactly the roles a page lists: an admin is no lead, translator or annotator by being an admin."""
    return bool(ROLES_OF.get(visitor, set()) & set(roles))


def user_id(engine, username: str) -> int:
    with Session(engine) as s:
        return s.scalars(select(User.id).where(User.username == username)).one()


@pytest.fixture(scope="module")
def template(tmp_path_factory, demo_sqlite):
    """The demo database with one token per visitor."""
    path = tmp_path_factory.mktemp("access") / "template.db"
    engine = make_engine(copy_of(demo_sqlite, path))
    create_user(engine, "root", {"admin"}, "root-password-1")
    create_user(engine, "kavya", {"translator", "annotator"}, "kavya-password-1")
    tokens = {visitor: session_token(engine, username) for visitor, username in LOGINS.items()}
    tokens["nobody"] = None
    tokens["forged"] = "forged-token-" + "x" * 30
    lead = user_id(engine, "lead")
    tokens["stale-after-reset"] = session_token(engine, "lead")
    reset_password(engine, lead, "lead-demo-again", actor_id=lead)
    tokens["lead"] = session_token(engine, "lead")
    gone = create_user(engine, "old-lead", {"lead"}, "old-lead-password")
    tokens["stale-after-deactivation"] = session_token(engine, "old-lead")
    deactivate_user(engine, gone, actor_id=lead)
    settle(engine, path)
    return path, tokens


@pytest.fixture
def site(template, tmp_path, monkeypatch):
    """A fresh copy of the template database that the app uses, and the visitors' tokens."""
    path, tokens = template
    url = copy_of(path, tmp_path / "app.db")
    monkeypatch.setenv("DATABASE_URL", url)
    engine = make_engine(url)
    yield engine, tokens
    engine.dispose()


def visit(script: str, token: str | None) -> AppTest:
    at = AppTest.from_file(str(ROOT / script), default_timeout=PAGE_RUN_LIMIT_S)
    if token:
        at.session_state["session_token"] = token
    return at.run()


def rendered(node) -> list[str]:
    """The kinds of every element in a tree, layout blocks left out."""
    kinds = []
    for child in getattr(node, "children", {}).values():
        if type(child).__name__ not in ("SpecialBlock", "Block"):
            kinds.append(type(child).__name__)
        kinds += rendered(child)
    return kinds


@pytest.mark.parametrize("visitor", PAGE_VISITORS)
@pytest.mark.parametrize("page", [p[0] for p in PAGES], ids=[Path(p[0]).stem for p in PAGES])
def test_a_page_file_loaded_directly_shows_itself_only_to_the_roles_it_is_for(site, page, visitor):
    _, tokens = site
    roles = next(p[3] for p in PAGES if p[0] == page)
    at = visit(page, tokens[visitor])
    messages = [e.value for e in at.error] + [w.value for w in at.warning]
    if may_open(visitor, roles):
        # allowed pages are checked where they run, under the router (home links to its sibling pages)
        at = visit("app.py", tokens[visitor]).switch_page(page).run()
        assert not at.exception, at.exception
        messages = [e.value for e in at.error] + [w.value for w in at.warning]
        assert REFUSAL not in messages and LOG_IN not in messages
        assert at.title, "an allowed page renders its title"
        return
    assert not at.exception, at.exception
    if visitor in NO_LOGIN:
        assert rendered(at._tree) == ["Warning"] and messages == [LOG_IN]
        assert "session" not in at.query_params
    else:
        assert rendered(at._tree) == ["Error"] and messages == [REFUSAL]


@pytest.mark.parametrize("visitor", VISITORS)
def test_the_router_offers_exactly_the_pages_a_role_may_open(site, visitor):
    _, tokens = site
    at = visit("app.py", tokens[visitor])
    assert not at.exception, at.exception
    offered = set()
    for page, *_ in PAGES:
        try:
            at.switch_page(page)
        except ValueError:  # not registered with st.navigation for this visitor: no URL reaches it
            continue
        offered.add(page)
    assert offered == {p[0] for p in PAGES if may_open(visitor, p[3])}
    if visitor in NO_LOGIN:
        assert [t.label for t in at.text_input] == ["Username", "Password"]
        assert "session" not in at.query_params


def test_a_lead_page_opened_through_the_router_by_a_translator_shows_only_home(site):
    _, tokens = site
    at = visit("app.py", tokens["translator"])
    with pytest.raises(ValueError):
        at.switch_page("pages/adjudicate.py")
    assert [t.value[:5] for t in at.title] == ["Hello"]
    assert not at.dataframe and not any("Adjudication" in t.value for t in at.title)


def test_a_deactivated_translator_is_logged_out_on_their_next_click(site):
    engine, tokens = site
    at = visit("app.py", tokens["translator"])
    assert at.title[0].value.startswith("Hello")
    deactivate_user(engine, user_id(engine, "asha"), actor_id=user_id(engine, "lead"))
    at.run()
    assert not at.exception, at.exception
    # AppTest reruns the page it finished on (the browser reruns app.py, which then shows the login form)
    assert rendered(at.main) == ["Warning"] and at.warning[0].value == SESSION_ENDED
    assert "session" not in at.query_params and "user" not in at.session_state
    fresh = visit("app.py", tokens["translator"])
    assert [t.label for t in fresh.text_input] == ["Username", "Password"]


def test_a_deactivated_translator_on_the_translate_page_sees_only_a_login_prompt(site):
    engine, tokens = site
    at = visit("pages/translate.py", tokens["translator"])
    assert [t.value for t in at.title] == ["Translate"]
    deactivate_user(engine, user_id(engine, "asha"), actor_id=user_id(engine, "lead"))
    at.run()
    assert rendered(at._tree) == ["Warning"] and at.warning[0].value == SESSION_ENDED  # says why


def test_a_password_reset_ends_an_admin_session_that_is_already_open(site):
    engine, tokens = site
    at = visit("pages/users.py", tokens["admin"])
    assert [t.value for t in at.title] == ["Users"]
    admin = user_id(engine, "admin")
    reset_password(engine, admin, "yet-another-password", actor_id=admin)
    at.run()
    assert rendered(at._tree) == ["Warning"] and at.warning[0].value == SESSION_ENDED
