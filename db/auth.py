"""Users, passwords (bcrypt), login throttled per username and per client, and login sessions that survive a page refresh."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache

import bcrypt
from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from corpus.records import ROLES
from db.engine import reader, transaction
from db.models import AuditEvent, LoginSession, User, UserRole, utcnow

MAX_FAILED_LOGINS = 5
MAX_FAILED_LOGINS_PER_CLIENT = 20
LOCKOUT = timedelta(minutes=5)
MAX_USERNAME_KEY = 100
WRONG_USER_OR_PASSWORD = "unknown user or wrong password"
TOO_MANY_FAILURES = "too many failed logins; try again in a few minutes"
# Audit actions of login attempts: written as failed, turned into ok or deactivated once the password is right.
LOGIN_FAILED, LOGIN_OK, LOGIN_DEACTIVATED = "login-failed", "login", "login-deactivated"
SESSION_LIFETIME = timedelta(days=7)
MIN_PASSWORD_LENGTH = 8


@dataclass(frozen=True)
class CurrentUser:
    """What the UI needs to know about the person logged in; plain data, safe to cache in session state."""

    id: int
    username: str
    display_name: str
    roles: frozenset[str]

    def has(self, *roles: str) -> bool:
        return bool(self.roles & set(roles)) or "admin" in self.roles


class LoginFailed(Exception):
    pass


def hash_password(password: str) -> str:
    return bcrypt.hashpw(password.encode("utf-8"), bcrypt.gensalt(rounds=10)).decode("ascii")


def check_password(password: str, password_hash: str | None) -> bool:
    if not password_hash:
        return False
    return bcrypt.checkpw(password.encode("utf-8"), password_hash.encode("ascii"))


def validate_password(password: str) -> None:
    if len(password) < MIN_PASSWORD_LENGTH:
        raise ValueError(f"password must have at least {MIN_PASSWORD_LENGTH} characters")


def as_current(user: User) -> CurrentUser:
    return CurrentUser(user.id, user.username, user.display_name or user.username, frozenset(user.role_names))


def get_or_create_user(session: Session, username: str, role: str) -> User:
    """Find a user by name, creating them with ``role`` and no password (they cannot log in yet)."""
    user = session.scalars(select(User).where(User.username == username)).first()
    if user is None:
        user = User(username=username, display_name=username, roles=[UserRole(role=role)])
        session.add(user)
        session.flush()
    elif role not in user.role_names:
        user.roles.append(UserRole(role=role))
        session.flush()
    return user


def create_user(
    engine: Engine, username: str, roles: set[str], password: str | None, display_name: str | None = None,
    actor_id: int | None = None,
) -> int:
    username = username.strip()
    if not username or len(username) > 80 or any(c.isspace() for c in username):
        raise ValueError("username must be 1-80 characters without spaces")
    unknown = set(roles) - set(ROLES)
    if unknown or not roles:
        raise ValueError(f"roles must be some of {', '.join(ROLES)}")
    if password is not None:
        validate_password(password)
    with transaction(engine) as session:
        if session.scalars(select(User).where(User.username == username)).first():
            raise ValueError(f"user {username!r} already exists")
        user = User(
            username=username,
            display_name=(display_name or username).strip(),
            password_hash=hash_password(password) if password else None,
            roles=[UserRole(role=r) for r in sorted(roles)],
        )
        session.add(user)
        session.flush()
        session.add(AuditEvent(actor_id=actor_id, action="create-user", detail={"user": username, "roles": sorted(roles)}))
        return user.id


def lockout_ends(failures: Sequence[datetime], limit: int, window: timedelta = LOCKOUT) -> datetime | None:
    """When ``limit`` failed logins fall within ``window`` of each other, the door stays shut for
    ``window`` after the last of them; None when the failures do not add up to that."""
    if len(failures) < limit:
        return None
    recent = sorted(failures)[-limit:]
    if recent[-1] - recent[0] > window:
        return None
    return recent[-1] + window


@cache
def _decoy_hash() -> str:
    """Checked against when the user is unknown, so an unknown name costs the same bcrypt time as a known one."""
    return hash_password(secrets.token_urlsafe(16))


def _failures(session: Session, field: str, value: str, now: datetime, after_id: int = 0) -> list[datetime]:
    rows = session.scalars(
        select(AuditEvent.created_at).where(
            AuditEvent.action == LOGIN_FAILED,
            AuditEvent.detail[field].as_string() == value,
            AuditEvent.created_at > now - 2 * LOCKOUT,
            AuditEvent.id > after_id,
        ).order_by(AuditEvent.id)
    )
    return list(rows)


def _throttled_until(session: Session, name: str, client: str | None, now: datetime) -> datetime | None:
    """The end of the lockout for this username (known or not) or this client, if one is running. A
    username's failures count from its last successful login or password reset."""
    cleared = session.scalar(
        select(func.max(AuditEvent.id)).where(
            AuditEvent.action.in_((LOGIN_OK, "reset-password")), AuditEvent.detail["user"].as_string() == name
        )
    ) or 0
    ends = [lockout_ends(_failures(session, "user", name, now, cleared), MAX_FAILED_LOGINS)]
    if client:
        ends.append(lockout_ends(_failures(session, "client", client, now), MAX_FAILED_LOGINS_PER_CLIENT))
    running = [e for e in ends if e is not None and e > now]
    return max(running) if running else None


def authenticate(
    engine: Engine, username: str, password: str, now: datetime | None = None, client: str | None = None
) -> CurrentUser:
    """Check a password. Failed logins are throttled per username, whether or not it exists, and per
    client when ``client`` (an address) is known; every failure says the same thing, and a deactivated
    account is named only to someone who knows its password.

    The attempt is written as a failure before the password is checked (bcrypt runs outside the write
    transaction), so parallel guesses cannot slip past the limit; a right password turns it into a login.
    """
    now = now or utcnow()
    name = username.strip()[:MAX_USERNAME_KEY]
    with transaction(engine) as session:
        if _throttled_until(session, name, client, now):
            raise LoginFailed(TOO_MANY_FAILURES)
        attempt = AuditEvent(action=LOGIN_FAILED, detail={"user": name, "client": client}, created_at=now)
        session.add(attempt)
        user = session.scalars(select(User).where(User.username == name)).first()
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
                session.flush()
                user.locked_until = _throttled_until(session, name, None, now)
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


def start_session(engine: Engine, user_id: int) -> str:
    """A new login token; only its hash is stored."""
    token = secrets.token_urlsafe(32)
    with transaction(engine) as session:
        user = session.get(User, user_id)
        session.add(
            LoginSession(
                user_id=user_id,
                token_hash=_token_hash(token),
                epoch=user.session_epoch,
                expires_at=utcnow() + SESSION_LIFETIME,
            )
        )
    return token


def resume_session(engine: Engine, token: str | None) -> CurrentUser | None:
    """The user behind a token, or None if it is unknown, expired, revoked, or the user was deactivated."""
    if not token:
        return None
    with Session(reader(engine)) as session:
        row = session.scalars(select(LoginSession).where(LoginSession.token_hash == _token_hash(token))).first()
        if row is None or row.revoked or row.expires_at < utcnow():
            return None
        user = session.get(User, row.user_id)
        if user is None or not user.active or user.session_epoch != row.epoch:
            return None
        return as_current(user)


def end_session(engine: Engine, token: str | None) -> None:
    if not token:
        return
    with transaction(engine) as session:
        row = session.scalars(select(LoginSession).where(LoginSession.token_hash == _token_hash(token))).first()
        if row is not None:
            row.revoked = True


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("ascii", "replace")).hexdigest()
