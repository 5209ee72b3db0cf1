"""Who may act, read in the caller's transaction: how a password is hashed and checked, which login
session is live, how many logins failed lately, and the one guard every write service calls
(``check_writer``).

A reader: ``db.auth`` (logins and sessions) and every service that writes take these from here, so no
service imports another for its writer check. The one write is ``end_all_sessions``, a step inside the
caller's transaction that every change of credentials shares (a password reset, a role change, logging out).

The guard reads the tables (``db.tables``) with Core queries, in a session or a Core connection alike, and
bcrypt is imported by the functions that hash: a command that writes without the ORM (``import-semeval``)
imports neither the ORM, nor the models, nor bcrypt for its writer check.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, func, select, update

from corpus.passwords import MAX_PASSWORD_BYTES, has_control_characters, password_problems, username_problems
from corpus.throttle import WINDOW, login_wait
from corpus.vocabulary import Role
from db.engine import reader
from db.tables import audit_events, login_sessions, projects, user_roles, users, utcnow

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from db.models import LoginSession, User

MAX_USERNAME_KEY = 100
SESSION_ENDED = "Your session ended; log in again. Your unsaved text is kept in this browser."
# Audit actions of login attempts: written as failed, turned into ok or deactivated once the password is right.
LOGIN_FAILED, LOGIN_OK, LOGIN_DEACTIVATED = "login-failed", "login", "login-deactivated"
DEFAULT_IDLE_HOURS = 8
IDLE_SETTING = "session_idle_hours"  # in projects.settings of the first project
ACCOUNT_ROLES = (Role.ADMIN, Role.LEAD)  # who may run accounts (db.users: only an admin touches an admin)


class SessionEnded(PermissionError, ValueError):
    """A save from a session that has ended (logged out, password changed or reset, deactivated, idle).

    Both a PermissionError and a ValueError, so every page's existing refusal handler shows it."""

    def __init__(self, message: str = SESSION_ENDED):
        super().__init__(message)

    def __str__(self) -> str:
        return self.args[0] if self.args else SESSION_ENDED


# --- passwords --------------------------------------------------------------------------------------

BCRYPT_ROUNDS = 10  # the product's cost of a password hash (about 70 ms here)
#: Tests only: a lower bcrypt cost (tests/conftest.py sets 4, bcrypt's least) so the suite does not spend
#: minutes hashing. Never set it for the app; an unreadable value or one above the default is ignored.
TEST_ROUNDS_ENV = "CORPUS_TEST_BCRYPT_ROUNDS"


def bcrypt_rounds() -> int:
    """The cost of a new hash: BCRYPT_ROUNDS, unless a test lowered it through TEST_ROUNDS_ENV."""
    try:
        rounds = int(os.environ.get(TEST_ROUNDS_ENV, ""))
    except ValueError:
        return BCRYPT_ROUNDS
    return min(max(rounds, 4), BCRYPT_ROUNDS)


def hash_password(password: str) -> str:
    import bcrypt

    return bcrypt.hashpw(password.encode("utf-8"), bcrypt.gensalt(rounds=bcrypt_rounds())).decode("ascii")


def check_password(password: str, password_hash: str | None) -> bool:
    """True only for the right password. A password bcrypt cannot take (over 72 bytes, a NUL) is
    wrong, but still costs one bcrypt check so the answer takes the usual time."""
    if not password_hash:
        return False
    import bcrypt

    raw = password.encode("utf-8")
    usable = len(raw) <= MAX_PASSWORD_BYTES and b"\x00" not in raw
    candidate = raw if usable else raw.replace(b"\x00", b"")[:MAX_PASSWORD_BYTES]
    return bcrypt.checkpw(candidate, password_hash.encode("ascii")) and usable


def validate_password(password: str, username: str | None = None) -> None:
    if problems := password_problems(password, username):
        raise ValueError("; ".join(problems))


def validate_username(username: str) -> None:
    if problems := username_problems(username):
        raise ValueError("; ".join(problems))



def login_key(username: str) -> str:
    """The name a login attempt is counted under: trimmed, cut, control characters made visible
    (a NUL cannot be stored in PostgreSQL text or JSON)."""
    name = username.strip()[:MAX_USERNAME_KEY]
    return "".join("?" if has_control_characters(c) else c for c in name)


def _cleared_after(session: Session | Connection, name: str, client: str | None) -> int:
    """The id of the last audit row after which failures count: a login (from this client, if given)
    or a password reset or change."""
    a = audit_events.c
    logins = select(func.max(a.id)).where(a.action == LOGIN_OK, a.detail["user"].as_string() == name)
    if client is not None:
        logins = logins.where(a.detail["client"].as_string() == client)
    resets = select(func.max(a.id)).where(
        a.action.in_(("reset-password", "change-password")), a.detail["user"].as_string() == name)
    return max(session.scalar(logins) or 0, session.scalar(resets) or 0)


def _recent_failures(session: Session | Connection, name: str, now: datetime, after_id: int,
                     client: str | None = None):
    a = audit_events.c
    query = select(a.created_at).where(
        a.action == LOGIN_FAILED,
        a.created_at > now - WINDOW,
        a.created_at <= now,
        a.id > after_id,
        a.detail["user"].as_string() == name,
    )
    if client is not None:
        query = query.where(a.detail["client"].as_string() == client)
    return list(session.scalars(query))


def login_wait_for(session: Session, name: str, client: str, now: datetime) -> timedelta:
    """How long ``client`` must wait before trying ``name`` again (0: now)."""
    pair = _recent_failures(session, name, now, _cleared_after(session, name, client), client)
    if not pair:
        return timedelta(0)
    account = len(_recent_failures(session, name, now, _cleared_after(session, name, None)))
    return login_wait(pair, account, now)


def recent_failures(engine: Engine, username: str, now: datetime | None = None) -> int:
    """Failed logins on an account in the throttle's window, from every client (for the Users page)."""
    now = now or utcnow()
    with reader(engine).connect() as connection:
        name = login_key(username)
        return len(_recent_failures(connection, name, now, _cleared_after(connection, name, None)))



def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def idle_timeout(session: Session | Connection) -> timedelta:
    """The project's idle timeout (``projects.settings['session_idle_hours']``, default 8 hours)."""
    settings = session.scalars(select(projects.c.settings).order_by(projects.c.id).limit(1)).first() or {}
    try:
        hours = float(settings.get(IDLE_SETTING, DEFAULT_IDLE_HOURS))
    except (TypeError, ValueError):
        hours = DEFAULT_IDLE_HOURS
    return timedelta(hours=hours if hours > 0 else DEFAULT_IDLE_HOURS)



def live_session(session: Session, token: str | None, now: datetime) -> tuple[LoginSession, User] | None:
    """The session row and its user (mapped objects) when the token is live (``live_session_ids``)."""
    from db.models import LoginSession, User

    live = live_session_ids(session, token, now)
    if live is None:
        return None
    return session.get(LoginSession, live[0]), session.get(User, live[1])


def live_session_ids(session: Session | Connection, token: str | None, now: datetime) -> tuple[int, int] | None:
    """(login session id, user id) when the token is live: known, not revoked, within its lifetime and idle
    timeout, of an active user whose sessions have not all been ended since."""
    if not token:
        return None
    s, u = login_sessions.c, users.c
    row = session.execute(
        select(s.id, s.user_id, s.revoked, s.expires_at, s.last_seen_at, s.created_at, s.epoch, u.active,
               u.session_epoch)
        .outerjoin(users, u.id == s.user_id).where(s.token_hash == token_hash(token))).first()
    if row is None or row.revoked or row.expires_at <= now:
        return None
    if now - (row.last_seen_at or row.created_at) > idle_timeout(session):
        return None
    if row.active is None or not row.active or row.session_epoch != row.epoch:
        return None
    return row.id, row.user_id



def end_all_sessions(session: Session, user: User) -> None:
    """Every login session and pending login code of the user stops working, inside the caller's transaction."""
    user.session_epoch += 1
    s = login_sessions.c
    session.execute(update(login_sessions).where(s.user_id == user.id, s.revoked.is_(False))
                    .values(revoked=True))



# Where check_writer finds the browser's session token when a save is not handed one: the web app
# registers a reader (ui/common.py) that answers None outside a page run (CLI, tests calling the
# service directly) and the run's token, or "" for none, inside one, widget callbacks included.
_browser_token: Callable[[], str | None] | None = None


def read_session_tokens_from(source: Callable[[], str | None] | None) -> None:
    global _browser_token
    _browser_token = source


def check_writer(session: Session | Connection, user_id: int | None, token: str | None = None, *,
                 roles: Iterable[str] = (), error: type[Exception] = SessionEnded,
                 now: datetime | None = None) -> None:
    """The one guard of every write service, called inside the write's own transaction: refuse unless
    the writer is an active user holding one of ``roles`` (any role when none are named) and, inside a
    page run (or when the caller passes a token), the browser's session is still live and theirs.

    ``user_id`` None is the command line, run by whoever holds the database: allowed only outside a
    page run (a page always names its writer). The user's row is read with a shared lock (PostgreSQL),
    so a deactivation, a role change or a password change committed at the same moment either waits for
    this write or is seen by it. ``session``: the write's session or Core connection (``db.engine.core_transaction``).
    ``tests/test_layout.py`` fails when a public write service in ``db/``
    does not call this."""
    if token is None and _browser_token is not None:
        token = _browser_token()
    if user_id is None:
        if token is not None:
            raise error(SESSION_ENDED)
        return
    active = session.scalars(select(users.c.active).where(users.c.id == user_id).with_for_update(read=True)).first()
    if not active:  # (None: no such user)
        raise error(SESSION_ENDED)
    if token is not None:
        live = live_session_ids(session, token, now or utcnow())
        if live is None or live[1] != user_id:
            raise error(SESSION_ENDED)
    if roles:
        held = set(session.scalars(select(user_roles.c.role).where(user_roles.c.user_id == user_id)))
        if not held & set(roles):
            raise error(f"only an active {' or '.join(roles)} can do this; log in again")
