"""Logins and accounts: passwords hashed and held to a policy, the same message for every failure so
nobody learns which accounts exist or are deactivated, and no input that makes a visitor see a traceback."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from corpus.passwords import MIN_PASSWORD_LENGTH, common_passwords, password_problems, username_problems
from db import auth
from db.auth import LoginFailed, authenticate, change_password, resume_session, start_session
from db.users import create_user, reset_password
from db.models import User
from db.workflows import deactivate_user
from tests.support.app_pages import PAGE_RUN_LIMIT_S

ROOT = Path(__file__).resolve().parents[2]
T0 = datetime(2026, 3, 1, 9, 0, 0)
GENERIC = "unknown user or wrong password"


def refusal(engine, username: str, password: str, now: datetime = T0, client: str | None = None) -> str:
    with pytest.raises(LoginFailed) as caught:
        authenticate(engine, username, password, now=now, client=client)
    return str(caught.value)


def user_id(engine, username: str) -> int:
    with Session(engine) as s:
        return s.scalars(select(User.id).where(User.username == username)).one()


@pytest.fixture
def asha(any_engine):
    create_user(any_engine, "asha", {"translator"}, "asha-password")
    return any_engine


def test_passwords_are_stored_as_bcrypt_hashes(asha):
    with Session(asha) as s:
        stored = s.scalars(select(User.password_hash).where(User.username == "asha")).one()
    assert stored != "asha-password" and stored.startswith("$2")


def test_a_deactivated_account_is_not_revealed_to_a_wrong_password(asha):
    deactivate_user(asha, user_id(asha, "asha"), actor_id=None)
    assert refusal(asha, "asha", "wrong-password") == GENERIC
    assert refusal(asha, "asha", "asha-password") == "this account is deactivated"


def test_a_user_without_a_password_gets_the_generic_message(asha):
    create_user(asha, "ravi", {"translator"}, None)
    assert refusal(asha, "ravi", "") == GENERIC


def test_an_unknown_user_costs_a_bcrypt_check_too(asha, monkeypatch):
    """Answering unknown names without bcrypt would let response time tell which names exist."""
    checked = []
    real = auth.check_password
    monkeypatch.setattr(auth, "check_password", lambda pw, h: checked.append(h) or real(pw, h))
    refusal(asha, "nobody", "whatever-1")
    assert len(checked) == 1 and checked[0].startswith("$2")


@pytest.mark.parametrize("password", ["x" * 73, "अ" * 25, "asha-password" + "\x00"])
def test_a_password_bcrypt_cannot_take_is_a_wrong_password_not_a_crash(asha, password):
    assert refusal(asha, "asha", password) == GENERIC


def test_a_password_that_shares_its_first_72_bytes_with_the_right_one_is_wrong(any_engine):
    right = "p" * 72
    create_user(any_engine, "long", {"translator"}, right)
    assert authenticate(any_engine, "long", right, now=T0).username == "long"
    assert refusal(any_engine, "long", right + "-and-more") == GENERIC


@pytest.mark.parametrize("username", ["asha\x00", "as\x00ha", "new\nline", "tab\tname", "\x1b[31m"])
def test_a_username_with_control_characters_is_a_failed_login_not_a_crash(asha, username):
    assert refusal(asha, username, "asha-password") == GENERIC


@pytest.mark.parametrize("password, problem", [
    ("12345678", "at least 10"),
    ("password123", "commonly used"),
    ("Qwertyuiop", "commonly used"),
    ("x" * 73, "at most 72 bytes"),
    ("अआइईउऊएऐओऔकखगघ" * 2, "at most 72 bytes"),
    ("newuser-name", "cannot be the username"),
])
def test_the_password_policy_table(password, problem):
    assert any(problem in p for p in password_problems(password, "newuser-name"))


def test_a_long_uncommon_password_passes_the_policy():
    assert password_problems("correct horse battery", "asha") == []
    assert MIN_PASSWORD_LENGTH == 10 and len(common_passwords()) > 10_000


@pytest.mark.parametrize("username", ["a\x00b", "line\nbreak", "zero\u200bwidth", "has space", "", "x" * 81])
def test_usernames_with_control_characters_spaces_or_bad_length_are_refused(username):
    assert username_problems(username)


def test_creating_a_user_with_a_nul_in_the_name_is_refused_with_a_message(asha):
    with pytest.raises(ValueError, match="control characters"):
        create_user(asha, "bad\x00name", {"translator"}, "a-good-password")


def test_creating_or_resetting_with_a_common_or_short_password_is_refused(asha):
    with pytest.raises(ValueError, match="at least 10"):
        create_user(asha, "ravi", {"translator"}, "12345678")
    with pytest.raises(ValueError, match="commonly used"):
        reset_password(asha, user_id(asha, "asha"), "iloveyou12", actor_id=None)


def test_a_user_changes_their_own_password_with_the_old_one_and_every_session_ends(asha):
    uid = user_id(asha, "asha")
    tokens = [start_session(asha, uid), start_session(asha, uid)]
    with pytest.raises(ValueError, match="current password is wrong"):
        change_password(asha, uid, "not-my-password", "brand-new-secret")
    assert all(resume_session(asha, t) for t in tokens)
    with pytest.raises(ValueError, match="commonly used"):
        change_password(asha, uid, "asha-password", "password1234")
    change_password(asha, uid, "asha-password", "brand-new-secret")
    assert [resume_session(asha, t) for t in tokens] == [None, None]
    assert refusal(asha, "asha", "asha-password") == GENERIC
    assert authenticate(asha, "asha", "brand-new-secret", now=T0).id == uid


def _login_form():
    from streamlit.testing.v1 import AppTest

    return AppTest.from_file(str(ROOT / "app.py"), default_timeout=PAGE_RUN_LIMIT_S).run()


@pytest.mark.parametrize("username, password", [
    ("lead\x00", "lead-demo-pass"), ("lead", "x" * 100), ("lead", "अ" * 40), ("\x00", "\x00"),
])
def test_the_login_form_answers_hostile_input_with_a_message_not_a_traceback(demo_db, username, password):
    at = _login_form()
    at.text_input(key="login_username").input(username)
    at.text_input(key="login_password").input(password)
    at.button[0].click().run()
    assert not at.exception
    assert [e.value for e in at.error] == [GENERIC]


def test_an_old_url_token_is_ignored_and_dropped_from_the_address_bar(demo_db):
    """Earlier versions put the session token in ?session=: such a link must not log anyone in."""
    from streamlit.testing.v1 import AppTest

    token = start_session(demo_db, user_id(demo_db, "lead"))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=PAGE_RUN_LIMIT_S)
    at.query_params["session"] = token
    at.run()
    assert not at.exception
    assert [t.label for t in at.text_input] == ["Username", "Password"]
    assert "session" not in at.query_params
