"""Users, passwords (bcrypt), rate-limited login, and login sessions that survive a page refresh."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

import bcrypt
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from corpus.records import ROLES
from db.engine import reader, transaction
from db.models import AuditEvent, LoginSession, User, UserRole, utcnow

MAX_FAILED_LOGINS = 5
LOCKOUT = timedelta(minutes=5)
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


def authenticate(engine: Engine, username: str, password: str, now: datetime | None = None) -> CurrentUser:
    """Check a password; after MAX_FAILED_LOGINS failures the account is locked for LOCKOUT."""
    now = now or utcnow()
    with transaction(engine) as session:
        user = session.scalars(select(User).where(User.username == username.strip())).first()
        if user is None:
            raise LoginFailed("unknown user or wrong password")
        if user.locked_until and user.locked_until > now:
            raise LoginFailed("too many failed logins; try again in a few minutes")
        if not user.active:
            raise LoginFailed("this account is deactivated")
        if not check_password(password, user.password_hash):
            user.failed_logins += 1
            if user.failed_logins >= MAX_FAILED_LOGINS:
                user.locked_until = now + LOCKOUT
                user.failed_logins = 0
            raise_after = LoginFailed("unknown user or wrong password")
        else:
            user.failed_logins = 0
            user.locked_until = None
            return as_current(user)
    raise raise_after


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
