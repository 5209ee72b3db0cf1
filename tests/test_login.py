"""Logins: passwords hashed, failures throttled per username (known or not) and per client, and the
same message for every failure so nobody learns which accounts exist or are deactivated."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from db import auth
from db.auth import (
    LOCKOUT,
    MAX_FAILED_LOGINS,
    MAX_FAILED_LOGINS_PER_CLIENT,
    LoginFailed,
    authenticate,
    create_user,
    lockout_ends,
)
from db.models import User, utcnow
from db.users import deactivate_user, list_users, reset_password

T0 = datetime(2026, 3, 1, 9, 0, 0)
GENERIC = "unknown user or wrong password"
TOO_MANY = "too many failed logins"


def fail(engine, username: str, times: int, start: datetime = T0, client: str | None = None) -> datetime:
    """``times`` wrong passwords a second apart; returns the time of the last one."""
    at = start
    for i in range(times):
        at = start + timedelta(seconds=i)
        with pytest.raises(LoginFailed) as caught:
            authenticate(engine, username, "wrong-password", now=at, client=client)
        assert str(caught.value) == GENERIC
    return at


def refusal(engine, username: str, password: str, now: datetime, client: str | None = None) -> str:
    with pytest.raises(LoginFailed) as caught:
        authenticate(engine, username, password, now=now, client=client)
    return str(caught.value)


@pytest.fixture
def asha(any_engine):
    create_user(any_engine, "asha", {"translator"}, "asha-password")
    return any_engine


def test_passwords_are_stored_as_bcrypt_hashes(asha):
    with Session(asha) as s:
        stored = s.scalars(select(User.password_hash).where(User.username == "asha")).one()
    assert stored != "asha-password" and stored.startswith("$2")


def test_after_the_limit_even_the_right_password_is_refused(asha):
    last = fail(asha, "asha", MAX_FAILED_LOGINS, start=utcnow())
    assert TOO_MANY in refusal(asha, "asha", "asha-password", last + timedelta(seconds=1))
    assert [u.locked for u in list_users(asha)] == [True]


def test_the_lock_opens_after_the_lockout_period(asha):
    last = fail(asha, "asha", MAX_FAILED_LOGINS)
    assert TOO_MANY in refusal(asha, "asha", "asha-password", last + LOCKOUT - timedelta(seconds=1))
    assert authenticate(asha, "asha", "asha-password", now=last + LOCKOUT + timedelta(seconds=1)).username == "asha"


def test_failures_below_the_limit_are_forgotten_after_a_login(asha):
    last = fail(asha, "asha", MAX_FAILED_LOGINS - 1)
    authenticate(asha, "asha", "asha-password", now=last + timedelta(seconds=1))
    last = fail(asha, "asha", MAX_FAILED_LOGINS - 1, start=last + timedelta(seconds=2))
    assert authenticate(asha, "asha", "asha-password", now=last + timedelta(seconds=1)).username == "asha"


def test_a_password_reset_lifts_the_lock(asha):
    last = fail(asha, "asha", MAX_FAILED_LOGINS)
    with Session(asha) as s:
        user_id = s.scalars(select(User.id).where(User.username == "asha")).one()
    reset_password(asha, user_id, "brand-new-password", actor_id=None)
    assert authenticate(asha, "asha", "brand-new-password", now=last + timedelta(seconds=1)).id == user_id


def test_unknown_usernames_are_throttled_like_real_ones(asha):
    last = fail(asha, "nobody", MAX_FAILED_LOGINS)
    assert TOO_MANY in refusal(asha, "nobody", "whatever-1", last + timedelta(seconds=1))
    assert TOO_MANY in refusal(asha, " nobody ", "whatever-1", last + timedelta(seconds=1))
    # another name is not affected by nobody's lock
    assert authenticate(asha, "asha", "asha-password", now=last + timedelta(seconds=1)).username == "asha"


def test_a_known_and_an_unknown_name_lock_and_open_at_the_same_moments(asha):
    """Nobody can tell an account exists by how its lock behaves."""
    for name in ("asha", "nobody"):
        last = fail(asha, name, MAX_FAILED_LOGINS)
        assert TOO_MANY in refusal(asha, name, "x", last + LOCKOUT - timedelta(milliseconds=1))
        assert refusal(asha, name, "x", last + LOCKOUT) == GENERIC


def test_a_deactivated_account_is_not_revealed_to_a_wrong_password(asha):
    with Session(asha) as s:
        user_id = s.scalars(select(User.id).where(User.username == "asha")).one()
    deactivate_user(asha, user_id, actor_id=None)
    assert refusal(asha, "asha", "wrong-password", T0) == GENERIC
    assert refusal(asha, "asha", "asha-password", T0) == "this account is deactivated"


def test_a_user_without_a_password_gets_the_generic_message(asha):
    create_user(asha, "ravi", {"translator"}, None)
    assert refusal(asha, "ravi", "", T0) == GENERIC


def test_an_unknown_user_costs_a_bcrypt_check_too(asha, monkeypatch):
    """Answering unknown names without bcrypt would let response time tell which names exist."""
    checked = []
    real = auth.check_password
    monkeypatch.setattr(auth, "check_password", lambda pw, h: checked.append(h) or real(pw, h))
    refusal(asha, "nobody", "whatever-1", T0)
    assert len(checked) == 1 and checked[0].startswith("$2")


def test_one_client_guessing_many_names_is_throttled(asha):
    at = T0
    for i in range(MAX_FAILED_LOGINS_PER_CLIENT):
        at = T0 + timedelta(seconds=i)
        assert refusal(asha, f"name{i % 7}-{i}", "guess", at, client="203.0.113.9") == GENERIC
    assert TOO_MANY in refusal(asha, "asha", "asha-password", at + timedelta(seconds=1), client="203.0.113.9")
    assert authenticate(asha, "asha", "asha-password", now=at + timedelta(seconds=1), client="198.51.100.7")


def test_successful_logins_from_one_address_never_count_against_it(asha):
    for i in range(MAX_FAILED_LOGINS_PER_CLIENT + 2):
        authenticate(asha, "asha", "asha-password", now=T0 + timedelta(seconds=i), client="203.0.113.9")


@pytest.mark.parametrize(
    ("gaps", "ends_after_last"),
    [
        ([0, 1, 1, 1, 1], LOCKOUT),            # five within the window: locked for LOCKOUT after the last
        ([0, 1, 1, 1], None),                  # four are not enough
        ([0, 3600, 1, 1, 1, 1], LOCKOUT),      # the last five count, not an old one before them
        ([0, 200, 200, 1, 1], None),           # five spread over more than LOCKOUT
    ],
)
def test_lockout_ends_table(gaps, ends_after_last):
    times, at = [], T0
    for gap in gaps:
        at += timedelta(seconds=gap)
        times.append(at)
    ends = lockout_ends(times, MAX_FAILED_LOGINS)
    assert ends == (None if ends_after_last is None else times[-1] + ends_after_last)


def test_the_login_form_refuses_the_right_password_after_too_many_failures(demo_db):
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(Path(__file__).resolve().parent.parent / "app.py"), default_timeout=60).run()
    for password in ["wrong-password"] * MAX_FAILED_LOGINS + ["lead-demo"]:
        at.text_input(key="login_username").input("lead")
        at.text_input(key="login_password").input(password)
        at.button[0].click().run()
    assert not at.exception
    assert [e.value for e in at.error] == ["too many failed logins; try again in a few minutes"]
    assert "session" not in at.query_params
