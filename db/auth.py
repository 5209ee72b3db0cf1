"""Logins: throttled password checks, and login sessions kept in an HttpOnly cookie (accounts are
``db.users``; the password hash, the live-session lookup and the writer check are ``db.access``).

A login goes: the form checks the password (``authenticate``) and asks for a single-use login code
(``issue_login_code``); the browser trades the code for the session cookie at ``/auth/session``
(``redeem_login_code``), since Streamlit cannot set a cookie over its websocket. The session token
lives only in that cookie; the database keeps its hash, when it was last used (idle timeout) and when
it expires (absolute lifetime). Logging out, a password change or reset, a role change and
deactivation end every session of the user (``end_all_sessions``). Every save re-checks its writer
in its own transaction (``check_writer``).
"""

from __future__ import annotations

import secrets
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache

from sqlalchemy import Engine, delete, select, update
from sqlalchemy.orm import Session

from corpus.passwords import username_problems
from corpus.vocabulary import Role
from db.access import (
    DEFAULT_IDLE_HOURS,
    IDLE_SETTING,
    LOGIN_DEACTIVATED,
    LOGIN_FAILED,
    LOGIN_OK,
    SessionEnded,
    check_password,
    check_writer,
    end_all_sessions,
    hash_password,
    idle_timeout,
    live_session,
    login_key,
    login_wait_for,
    token_hash,
    validate_password,
)
from db.engine import reader, transaction
from db.models import AuditEvent, LoginCode, LoginSession, Project, User, utcnow

WRONG_USER_OR_PASSWORD = "unknown user or wrong password"
TOO_MANY_FAILURES = "too many failed logins from here"
FAILED_LOGINS_SUMMARY = "login-failed-summary"
# Failed-login rows older than this are folded into one summary row per day (the throttle reads one WINDOW).
AUDIT_KEEP = timedelta(days=1)
LOCAL_CLIENT = "local"  # the client key of a browser on this machine (Streamlit reports no address)
SESSION_LIFETIME = timedelta(days=7)
LOGIN_CODE_LIFETIME = timedelta(seconds=30)
LAST_SEEN_STEP = timedelta(minutes=1)  # how stale last_seen_at may get before a run writes it


@dataclass(frozen=True)
class CurrentUser:
    """What the UI needs to know about the person logged in; plain data, safe to cache in session state."""

    id: int
    username: str
    display_name: str
    roles: frozenset[str]

    def has(self, *roles: str) -> bool:
        """Holds one of ``roles``, exactly: an admin runs accounts, backups and settings and is no lead,
        translator or annotator unless given that role too (the pages follow the same rule)."""
        return bool(self.roles & set(roles))


class LoginFailed(Exception):
    pass


def as_current(user: User) -> CurrentUser:
    return CurrentUser(user.id, user.username, user.display_name or user.username, frozenset(user.role_names))


def change_password(engine: Engine, user_id: int, old: str, new: str) -> None:
    """A user's own change: the current password is required; every session of theirs ends."""
    with Session(reader(engine)) as session:
        user = session.get(User, user_id)
        if user is None or not user.active:
            raise SessionEnded()
        stored, username = user.password_hash, user.username
    if not check_password(old, stored):
        with transaction(engine) as session:
            session.add(AuditEvent(actor_id=user_id, action="change-password-refused", detail={"user": username}))
        raise ValueError("the current password is wrong")
    if new == old:
        raise ValueError("the new password is the same as the current one")
    validate_password(new, username)
    with transaction(engine) as session:
        check_writer(session, user_id)
        user = session.get(User, user_id)
        user.password_hash = hash_password(new)
        end_all_sessions(session, user)
        session.add(AuditEvent(actor_id=user_id, action="change-password", detail={"user": username}))


# --- throttled login --------------------------------------------------------------------------------

@cache
def _decoy_hash() -> str:
    """Checked against when the user is unknown, so an unknown name costs the same bcrypt time as a known one."""
    return hash_password(secrets.token_urlsafe(16))


def too_many_failures(wait: timedelta) -> str:
    seconds = max(1, int(wait.total_seconds() + 0.999))
    return f"{TOO_MANY_FAILURES}; wait {seconds} s and try again"


def prune_login_audit(session: Session, now: datetime, batch: int = 5000) -> int:
    """Fold failed-login rows older than AUDIT_KEEP into one summary row per day (count, distinct
    accounts, the ten most tried names), and drop spent login codes. Returns the rows folded."""
    session.execute(delete(LoginCode).where(LoginCode.expires_at < now - AUDIT_KEEP))
    rows = session.execute(
        select(AuditEvent.id, AuditEvent.created_at, AuditEvent.detail).where(
            AuditEvent.action == LOGIN_FAILED, AuditEvent.created_at < now - AUDIT_KEEP
        ).order_by(AuditEvent.id).limit(batch)
    ).all()
    if not rows:
        return 0
    days: dict[str, Counter] = {}
    last: dict[str, datetime] = {}
    for _, created, detail in rows:
        day = created.date().isoformat()
        days.setdefault(day, Counter())[str((detail or {}).get("user"))] += 1
        last[day] = max(last.get(day, created), created)
    for day, names in days.items():
        session.add(AuditEvent(action=FAILED_LOGINS_SUMMARY, created_at=last[day], detail={
            "day": day, "failures": sum(names.values()), "accounts": len(names),
            "most_tried": names.most_common(10)}))
    session.execute(delete(AuditEvent).where(AuditEvent.id.in_([r[0] for r in rows])))
    return len(rows)


def authenticate(
    engine: Engine, username: str, password: str, now: datetime | None = None, client: str | None = None
) -> CurrentUser:
    """Check a password. Failed logins delay later tries from the same client on the same account
    (``corpus.throttle``), whether or not the account exists; every failure says the same thing, and
    a deactivated account is named only to someone who knows its password. ``client`` is the
    browser's address (None: this machine).

    The attempt is written as a failure before the password is checked (bcrypt runs outside the write
    transaction), so parallel guesses cannot slip past the delay; a right password turns it into a login.
    """
    now = now or utcnow()
    name = login_key(username)
    client_key = client or LOCAL_CLIENT
    valid_name = not username_problems(username)
    with transaction(engine) as session:
        prune_login_audit(session, now)
        wait = login_wait_for(session, name, client_key, now)
        if wait > timedelta(0):
            raise LoginFailed(too_many_failures(wait))
        attempt = AuditEvent(action=LOGIN_FAILED, detail={"user": name, "client": client_key}, created_at=now)
        session.add(attempt)
        user = session.scalars(select(User).where(User.username == name)).first() if valid_name else None
        session.flush()
        attempt_id, user_id = attempt.id, (user.id if user else None)
        password_hash = user.password_hash if user else None
    right = check_password(password, password_hash or _decoy_hash()) and password_hash is not None
    with transaction(engine) as session:
        attempt = session.get(AuditEvent, attempt_id)
        user = session.get(User, user_id) if user_id is not None else None
        if user is None or not right:
            if user is not None:
                user.failed_logins += 1
            failure = LoginFailed(WRONG_USER_OR_PASSWORD)
        elif not user.active:
            attempt.action = LOGIN_DEACTIVATED
            failure = LoginFailed("this account is deactivated")
        else:
            attempt.action, attempt.actor_id = LOGIN_OK, user.id
            user.failed_logins = 0
            user.locked_until = None
            return as_current(user)
    raise failure


# --- sessions ---------------------------------------------------------------------------------------

def session_idle_hours(engine: Engine) -> float:
    with Session(reader(engine)) as session:
        return idle_timeout(session).total_seconds() / 3600


def set_session_idle_hours(engine: Engine, hours: float, actor_id: int | None) -> None:
    if not 0.25 <= hours <= 24 * 7:
        raise ValueError("the idle timeout must lie between 0.25 hours and 7 days")
    with transaction(engine) as session:
        check_writer(session, actor_id, roles=(Role.ADMIN,))
        project = session.scalars(select(Project).order_by(Project.id).limit(1)).first()
        if project is None:
            raise ValueError("no project yet")
        old = (project.settings or {}).get(IDLE_SETTING, DEFAULT_IDLE_HOURS)
        project.settings = {**(project.settings or {}), IDLE_SETTING: hours}
        session.add(AuditEvent(actor_id=actor_id, action="project-settings",
                               detail={IDLE_SETTING: [old, hours]}))


def start_session(engine: Engine, user_id: int, now: datetime | None = None) -> str:
    """A new session token; only its hash is stored."""
    now = now or utcnow()
    token = secrets.token_urlsafe(32)
    with transaction(engine) as session:
        user = session.get(User, user_id)
        session.add(LoginSession(user_id=user_id, token_hash=token_hash(token), epoch=user.session_epoch,
                                 created_at=now, last_seen_at=now, expires_at=now + SESSION_LIFETIME))
    return token


def resume_session(engine: Engine, token: str | None, now: datetime | None = None) -> CurrentUser | None:
    """The user behind a token, or None if it is unknown, expired, idle too long, revoked, or the user
    was deactivated. A live session's last use is recorded (at most once a minute)."""
    now = now or utcnow()
    with Session(reader(engine)) as session:
        live = live_session(session, token, now)
        if live is None:
            return None
        row, user = live
        current, row_id, seen = as_current(user), row.id, row.last_seen_at or row.created_at
    if now - seen >= LAST_SEEN_STEP:
        with transaction(engine) as session:
            session.execute(update(LoginSession).where(LoginSession.id == row_id).values(last_seen_at=now))
    return current


def end_session(engine: Engine, token: str | None) -> int | None:
    """Log out: end every session of the token's user (other tabs and browsers too). Returns the user's id."""
    if not token:
        return None
    with transaction(engine) as session:
        row = session.scalars(select(LoginSession).where(LoginSession.token_hash == token_hash(token))).first()
        if row is None:
            return None
        user = session.get(User, row.user_id)
        end_all_sessions(session, user)
        session.add(AuditEvent(actor_id=user.id, action="logout", detail={"user": user.username}))
        return user.id


def issue_login_code(engine: Engine, user_id: int, now: datetime | None = None) -> str:
    """A single-use code, valid for LOGIN_CODE_LIFETIME, that ``/auth/session`` trades for a session."""
    now = now or utcnow()
    code = secrets.token_urlsafe(32)
    with transaction(engine) as session:
        user = session.get(User, user_id)
        session.add(LoginCode(user_id=user_id, code_hash=token_hash(code), epoch=user.session_epoch,
                              created_at=now, expires_at=now + LOGIN_CODE_LIFETIME))
    return code


def redeem_login_code(engine: Engine, code: str | None, replaces: str | None = None,
                      now: datetime | None = None) -> str | None:
    """A new session token for a live login code (used up now), or None. ``replaces``: the token the
    browser held before, which ends (a login always starts a fresh session)."""
    now = now or utcnow()
    if not code:
        return None
    with transaction(engine) as session:
        row = session.scalars(select(LoginCode).where(LoginCode.code_hash == token_hash(code))).first()
        if row is None:
            return None
        taken = session.execute(update(LoginCode).where(LoginCode.id == row.id, LoginCode.used_at.is_(None))
                                .values(used_at=now))
        if taken.rowcount != 1 or row.expires_at <= now:
            return None
        user = session.get(User, row.user_id)
        if user is None or not user.active or user.session_epoch != row.epoch:
            return None
        if replaces:
            session.execute(update(LoginSession).where(LoginSession.token_hash == token_hash(replaces))
                            .values(revoked=True))
        token = secrets.token_urlsafe(32)
        session.add(LoginSession(user_id=user.id, token_hash=token_hash(token), epoch=user.session_epoch,
                                 created_at=now, last_seen_at=now, expires_at=now + SESSION_LIFETIME))
        return token
