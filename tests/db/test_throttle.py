"""Login throttling (OWASP progressive delays): failures slow down the client that made them, the
rightful user on another client is never held back, and X-Forwarded-For counts only from a proxy the
deployment names."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from corpus.throttle import (
    ACCOUNT_MAX_DELAY,
    PAIR_FREE_FAILURES,
    PAIR_MAX_DELAY,
    WINDOW,
    login_wait,
    progressive_delay,
)
from db.access import LOGIN_FAILED
from db.auth import AUDIT_KEEP, FAILED_LOGINS_SUMMARY, LoginFailed, authenticate
from db.users import create_user, reset_password
from db.models import AuditEvent, User

T0 = datetime(2026, 3, 1, 9, 0, 0)
GENERIC = "unknown user or wrong password"
TOO_MANY = "too many failed logins"
ATTACKER, OWNER = "203.0.113.9", "198.51.100.7"


@pytest.fixture
def asha(any_engine):
    create_user(any_engine, "asha", {"translator"}, "asha-password")
    return any_engine


def answer(engine, username: str, password: str, now: datetime, client: str | None) -> str:
    try:
        return "ok:" + authenticate(engine, username, password, now=now, client=client).username
    except LoginFailed as exc:
        return str(exc)


def hammer(engine, username: str, times: int, client: str | None, start: datetime = T0) -> datetime:
    """``times`` wrong passwords from one client, each as soon as the throttle lets it in; the time of the last."""
    at, done = start, 0
    while done < times:
        reply = answer(engine, username, "wrong-password", at, client)
        if reply == GENERIC:
            done += 1
            at += timedelta(milliseconds=1)
        else:
            assert TOO_MANY in reply
            at += timedelta(seconds=int(reply.split("wait ")[1].split(" s")[0]))
    return at


@pytest.mark.parametrize("failures, seconds", [(0, 0), (2, 0), (3, 1), (4, 2), (6, 8), (11, 256), (12, 300), (99, 300)])
def test_pair_delay_table(failures, seconds):
    assert progressive_delay(failures, PAIR_FREE_FAILURES, PAIR_MAX_DELAY) == timedelta(seconds=seconds)


def test_a_client_without_failures_never_waits_however_attacked_the_account():
    assert login_wait([], 10_000, T0) == timedelta(0)


def test_a_client_that_failed_waits_longer_while_the_account_is_under_attack():
    mine = [T0]
    assert login_wait(mine, 1, T0) == timedelta(0)
    assert login_wait(mine, 500, T0) == ACCOUNT_MAX_DELAY
    assert login_wait(mine, 500, T0 + ACCOUNT_MAX_DELAY) == timedelta(0)


def test_failures_older_than_the_window_do_not_count():
    old = [T0 - WINDOW - timedelta(seconds=1)] * 50
    assert login_wait(old, 50, T0) == timedelta(0)


def test_an_attackers_100_failures_do_not_stop_the_owner_logging_in_from_another_client(asha):
    last = hammer(asha, "asha", 100, ATTACKER)
    assert answer(asha, "asha", "asha-password", last, OWNER) == "ok:asha"
    # and the attacker's own client is still being held back, right password or not
    assert TOO_MANY in answer(asha, "asha", "asha-password", last + timedelta(milliseconds=1), ATTACKER)


def test_the_owner_is_not_held_back_by_an_attack_from_many_addresses(asha):
    at = T0
    for i in range(60):
        at += timedelta(milliseconds=10)
        assert answer(asha, "asha", "guess", at, f"203.0.113.{i}") == GENERIC
    assert answer(asha, "asha", "asha-password", at, OWNER) == "ok:asha"


def test_an_owner_who_mistyped_during_an_attack_waits_minutes_at_most(asha):
    last = hammer(asha, "asha", 50, ATTACKER)
    assert answer(asha, "asha", "asha-pasword", last, OWNER) == GENERIC
    assert TOO_MANY in answer(asha, "asha", "asha-password", last + timedelta(seconds=1), OWNER)
    later = last + ACCOUNT_MAX_DELAY + timedelta(seconds=1)
    assert answer(asha, "asha", "asha-password", later, OWNER) == "ok:asha"


def test_three_free_tries_then_waits_that_double(asha):
    at = T0
    for _ in range(PAIR_FREE_FAILURES):
        assert answer(asha, "asha", "wrong", at, ATTACKER) == GENERIC
    assert TOO_MANY in answer(asha, "asha", "wrong", at, ATTACKER)
    assert "wait 1 s" in answer(asha, "asha", "wrong", at, ATTACKER)
    assert answer(asha, "asha", "wrong", at + timedelta(seconds=1), ATTACKER) == GENERIC
    assert "wait 2 s" in answer(asha, "asha", "wrong", at + timedelta(seconds=1), ATTACKER)


def test_a_refused_attempt_does_not_check_the_password_or_extend_the_wait(asha, monkeypatch):
    from db import auth

    at = T0
    for _ in range(PAIR_FREE_FAILURES):
        answer(asha, "asha", "wrong", at, ATTACKER)
    checked = []
    monkeypatch.setattr(auth, "check_password", lambda *a: checked.append(a) or False)
    for _ in range(20):
        assert TOO_MANY in answer(asha, "asha", "asha-password", at, ATTACKER)
    assert checked == []
    monkeypatch.undo()
    assert answer(asha, "asha", "asha-password", at + timedelta(seconds=1), ATTACKER) == "ok:asha"


def test_unknown_names_are_delayed_exactly_like_real_ones(asha):
    replies = {}
    for name in ("asha", "nobody"):
        at = T0
        replies[name] = []
        for step in range(8):
            at += timedelta(milliseconds=500 * step)
            reply = answer(asha, name, "wrong", at, ATTACKER)
            replies[name].append(GENERIC if reply == GENERIC else reply.split(";")[0])
    assert replies["asha"] == replies["nobody"]


def test_a_login_from_the_client_clears_its_failures(asha):
    at = T0
    for _ in range(PAIR_FREE_FAILURES - 1):
        answer(asha, "asha", "wrong", at, OWNER)
    assert answer(asha, "asha", "asha-password", at, OWNER) == "ok:asha"
    for _ in range(PAIR_FREE_FAILURES):
        assert answer(asha, "asha", "wrong", at, OWNER) == GENERIC


def test_a_password_reset_lifts_every_delay(asha):
    last = hammer(asha, "asha", 20, ATTACKER)
    with Session(asha) as s:
        uid = s.scalars(select(User.id).where(User.username == "asha")).one()
    reset_password(asha, uid, "brand-new-password", actor_id=None)
    assert answer(asha, "asha", "brand-new-password", last, ATTACKER) == "ok:asha"


def test_successful_logins_from_one_address_never_count_against_it(asha):
    for i in range(30):
        assert answer(asha, "asha", "asha-password", T0 + timedelta(seconds=i), ATTACKER) == "ok:asha"


def test_failed_login_rows_older_than_a_day_are_folded_into_a_daily_summary(asha):
    day_one = T0 - AUDIT_KEEP - timedelta(hours=2)
    for i in range(30):
        answer(asha, f"guess{i % 3}", "wrong", day_one + timedelta(minutes=i), f"203.0.113.{i}")
    answer(asha, "asha", "asha-password", T0, OWNER)  # any later attempt prunes
    with Session(asha) as s:
        left = s.scalar(select(func.count()).select_from(AuditEvent).where(AuditEvent.action == LOGIN_FAILED))
        (summary,) = s.scalars(select(AuditEvent.detail).where(AuditEvent.action == FAILED_LOGINS_SUMMARY)).all()
    assert left == 0
    assert summary["failures"] == 30 and summary["accounts"] == 3 and summary["day"] == day_one.date().isoformat()


# --- which address is the client -------------------------------------------------------------------

def _client_seen(trusted: str, peer: str, forwarded: str | None) -> str:
    """The client address the app sees behind uvicorn's proxy-header handling, configured as app.py does."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

    from ui.auth_routes import forwarded_allow_ips

    seen = {}

    async def app(scope, receive, send):
        seen["client"] = scope["client"][0]

    headers = [(b"x-forwarded-for", forwarded.encode())] if forwarded else []
    scope = {"type": "http", "client": (peer, 5000), "headers": headers, "scheme": "http"}
    middleware = ProxyHeadersMiddleware(app, trusted_hosts=forwarded_allow_ips({"CORPUS_TRUSTED_PROXIES": trusted}))
    # A thread of its own: an event loop may already run in this one (Playwright's, when the browser tests ran first).
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, middleware(scope, None, None)).result()
    return seen["client"]


@pytest.mark.parametrize("peer", ["127.0.0.1", "10.0.0.5", "203.0.113.50"])
def test_x_forwarded_for_is_ignored_unless_trusted_proxies_are_configured(peer):
    assert _client_seen("", peer, "198.51.100.1") == peer


def test_x_forwarded_for_is_read_from_a_configured_proxy_only():
    assert _client_seen("10.0.0.5", "10.0.0.5", "198.51.100.1") == "198.51.100.1"
    assert _client_seen("10.0.0.5", "10.0.0.6", "198.51.100.1") == "10.0.0.6"
    assert _client_seen("10.0.0.0/24", "10.0.0.7", "198.51.100.1, 10.0.0.3") == "198.51.100.1"
