"""Users, passwords (bcrypt), throttled logins, and login sessions kept in an HttpOnly cookie.

A login goes: the form checks the password (``authenticate``) and asks for a single-use login code
(``issue_login_code``); the browser trades the code for the session cookie at ``/auth/session``
(``redeem_login_code``), since Streamlit cannot set a cookie over its websocket. The session token
lives only in that cookie; the database keeps its hash, when it was last used (idle timeout) and when
it expires (absolute lifetime). Logging out, a password change or reset, a role change and
deactivation end every session of the user (``end_all_sessions``). Every save re-checks its writer
in its own transaction (``check_writer``).
"""

from __future__ import annotations

import hashlib
import os
import secrets
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache

import bcrypt
from sqlalchemy import Engine, delete, func, select, update
from sqlalchemy.orm import Session

from corpus.passwords import MAX_PASSWORD_BYTES, has_control_characters, password_problems, username_problems
from corpus.records import ROLES
from corpus.throttle import WINDOW, login_wait
from corpus.vocabulary import Role
from db.engine import reader, transaction
from db.models import AuditEvent, LoginCode, LoginSession, Project, User, UserRole, utcnow

MAX_USERNAME_KEY = 100
WRONG_USER_OR_PASSWORD = "unknown user or wrong password"
TOO_MANY_FAILURES = "too many failed logins from here"
SESSION_ENDED = "Your session ended; log in again. Your unsaved text is kept in this browser."
# Audit actions of login attempts: written as failed, turned into ok or deactivated once the password is right.
LOGIN_FAILED, LOGIN_OK, LOGIN_DEACTIVATED = "login-failed", "login", "login-deactivated"
FAILED_LOGINS_SUMMARY = "login-failed-summary"
# Failed-login rows older than this are folded into one summary row per day (the throttle reads one WINDOW).
AUDIT_KEEP = timedelta(days=1)
LOCAL_CLIENT = "local"  # the client key of a browser on this machine (Streamlit reports no address)
SESSION_LIFETIME = timedelta(days=7)
DEFAULT_IDLE_HOURS = 8
IDLE_SETTING = "session_idle_hours"  # in projects.settings of the first project
LOGIN_CODE_LIFETIME = timedelta(seconds=30)
LAST_SEEN_STEP = timedelta(minutes=1)  # how stale last_seen_at may get before a run writes it
ACCOUNT_ROLES = (Role.ADMIN, Role.LEAD)  # who may run accounts (db.users: only an admin touches an admin)


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
    return bcrypt.hashpw(password.encode("utf-8"), bcrypt.gensalt(rounds=bcrypt_rounds())).decode("ascii")


def check_password(password: str, password_hash: str | None) -> bool:
    """True only for the right password. A password bcrypt cannot take (over 72 bytes, a NUL) is
    wrong, but still costs one bcrypt check so the answer takes the usual time."""
    if not password_hash:
        return False
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


def as_current(user: User) -> CurrentUser:
    return CurrentUser(user.id, user.username, user.display_name or user.username, frozenset(user.role_names))


def get_or_create_user(session: Session, username: str, role: str) -> User:
    """Find a user by name, creating them with ``role`` and no password (they cannot log in yet)."""
    user = session.scalars(select(User).where(User.username == username)).first()
    if user is None:
        validate_username(username)
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
    validate_username(username)
    username = username.strip()
    if display_name and has_control_characters(display_name):
        raise ValueError("a display name cannot contain control characters")
    unknown = set(roles) - set(ROLES)
    if unknown or not roles:
        raise ValueError(f"roles must be some of {', '.join(ROLES)}")
    if password is not None:
        validate_password(password, username)
    with transaction(engine) as session:
        check_writer(session, actor_id, roles=ACCOUNT_ROLES)
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


def login_key(username: str) -> str:
    """The name a login attempt is counted under: trimmed, cut, control characters made visible
    (a NUL cannot be stored in PostgreSQL text or JSON)."""
    name = username.strip()[:MAX_USERNAME_KEY]
    return "".join("?" if has_control_characters(c) else c for c in name)


def _cleared_after(session: Session, name: str, client: str | None) -> int:
    """The id of the last audit row after which failures count: a login (from this client, if given)
    or a password reset or change."""
    logins = select(func.max(AuditEvent.id)).where(
        AuditEvent.action == LOGIN_OK, AuditEvent.detail["user"].as_string() == name)
    if client is not None:
        logins = logins.where(AuditEvent.detail["client"].as_string() == client)
    resets = select(func.max(AuditEvent.id)).where(
        AuditEvent.action.in_(("reset-password", "change-password")), AuditEvent.detail["user"].as_string() == name)
    return max(session.scalar(logins) or 0, session.scalar(resets) or 0)


def _recent_failures(session: Session, name: str, now: datetime, after_id: int, client: str | None = None):
    query = select(AuditEvent.created_at).where(
        AuditEvent.action == LOGIN_FAILED,
        AuditEvent.created_at > now - WINDOW,
        AuditEvent.created_at <= now,
        AuditEvent.id > after_id,
        AuditEvent.detail["user"].as_string() == name,
    )
    if client is not None:
        query = query.where(AuditEvent.detail["client"].as_string() == client)
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
    with Session(reader(engine)) as session:
        name = login_key(username)
        return len(_recent_failures(session, name, now, _cleared_after(session, name, None)))


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

def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def idle_timeout(session: Session) -> timedelta:
    """The project's idle timeout (``projects.settings['session_idle_hours']``, default 8 hours)."""
    settings = session.scalars(select(Project.settings).order_by(Project.id).limit(1)).first() or {}
    try:
        hours = float(settings.get(IDLE_SETTING, DEFAULT_IDLE_HOURS))
    except (TypeError, ValueError):
        hours = DEFAULT_IDLE_HOURS
    return timedelta(hours=hours if hours > 0 else DEFAULT_IDLE_HOURS)


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


def _live_row(session: Session, token: str | None, now: datetime) -> tuple[LoginSession, User] | None:
    """The session row and its user when the token is live: known, not revoked, within its lifetime
    and idle timeout, of an active user whose sessions have not all been ended since."""
    if not token:
        return None
    row = session.scalars(select(LoginSession).where(LoginSession.token_hash == _token_hash(token))).first()
    if row is None or row.revoked or row.expires_at <= now:
        return None
    if now - (row.last_seen_at or row.created_at) > idle_timeout(session):
        return None
    user = session.get(User, row.user_id)
    if user is None or not user.active or user.session_epoch != row.epoch:
        return None
    return row, user


def start_session(engine: Engine, user_id: int, now: datetime | None = None) -> str:
    """A new session token; only its hash is stored."""
    now = now or utcnow()
    token = secrets.token_urlsafe(32)
    with transaction(engine) as session:
        user = session.get(User, user_id)
        session.add(LoginSession(user_id=user_id, token_hash=_token_hash(token), epoch=user.session_epoch,
                                 created_at=now, last_seen_at=now, expires_at=now + SESSION_LIFETIME))
    return token


def resume_session(engine: Engine, token: str | None, now: datetime | None = None) -> CurrentUser | None:
    """The user behind a token, or None if it is unknown, expired, idle too long, revoked, or the user
    was deactivated. A live session's last use is recorded (at most once a minute)."""
    now = now or utcnow()
    with Session(reader(engine)) as session:
        live = _live_row(session, token, now)
        if live is None:
            return None
        row, user = live
        current, row_id, seen = as_current(user), row.id, row.last_seen_at or row.created_at
    if now - seen >= LAST_SEEN_STEP:
        with transaction(engine) as session:
            session.execute(update(LoginSession).where(LoginSession.id == row_id).values(last_seen_at=now))
    return current


def end_all_sessions(session: Session, user: User) -> None:
    """Every login session and pending login code of the user stops working, inside the caller's transaction."""
    user.session_epoch += 1
    session.execute(update(LoginSession).where(LoginSession.user_id == user.id, LoginSession.revoked.is_(False))
                    .values(revoked=True))


def end_session(engine: Engine, token: str | None) -> int | None:
    """Log out: end every session of the token's user (other tabs and browsers too). Returns the user's id."""
    if not token:
        return None
    with transaction(engine) as session:
        row = session.scalars(select(LoginSession).where(LoginSession.token_hash == _token_hash(token))).first()
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
        session.add(LoginCode(user_id=user_id, code_hash=_token_hash(code), epoch=user.session_epoch,
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
        row = session.scalars(select(LoginCode).where(LoginCode.code_hash == _token_hash(code))).first()
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
            session.execute(update(LoginSession).where(LoginSession.token_hash == _token_hash(replaces))
                            .values(revoked=True))
        token = secrets.token_urlsafe(32)
        session.add(LoginSession(user_id=user.id, token_hash=_token_hash(token), epoch=user.session_epoch,
                                 created_at=now, last_seen_at=now, expires_at=now + SESSION_LIFETIME))
        return token


# Where check_writer finds the browser's session token when a save is not handed one: the web app
# registers a reader (ui/common.py) that answers None outside a page run (CLI, tests calling the
# service directly) and the run's token, or "" for none, inside one, widget callbacks included.
_browser_token: Callable[[], str | None] | None = None


def read_session_tokens_from(source: Callable[[], str | None] | None) -> None:
    global _browser_token
    _browser_token = source


def check_writer(session: Session, user_id: int | None, token: str | None = None, *,
                 roles: Iterable[str] = (), error: type[Exception] = SessionEnded,
                 now: datetime | None = None) -> None:
    """The one guard of every write service, called inside the write's own transaction: refuse unless
    the writer is an active user holding one of ``roles`` (any role when none are named) and, inside a
    page run (or when the caller passes a token), the browser's session is still live and theirs.

    ``user_id`` None is the command line, run by whoever holds the database: allowed only outside a
    page run (a page always names its writer). The user's row is read with a shared lock (PostgreSQL),
    so a deactivation, a role change or a password change committed at the same moment either waits for
    this write or is seen by it. ``tests/test_layout.py`` fails when a public write service in ``db/``
    does not call this."""
    if token is None and _browser_token is not None:
        token = _browser_token()
    if user_id is None:
        if token is not None:
            raise error(SESSION_ENDED)
        return
    user = session.scalars(
        select(User).where(User.id == user_id).with_for_update(read=True).execution_options(populate_existing=True)
    ).first()
    if user is None or not user.active:
        raise error(SESSION_ENDED)
    if token is not None:
        live = _live_row(session, token, now or utcnow())
        if live is None or live[1].id != user_id:
            raise error(SESSION_ENDED)
    if roles:
        held = set(session.scalars(select(UserRole.role).where(UserRole.user_id == user_id)))
        if not held & set(roles):
            raise error(f"only an active {' or '.join(roles)} can do this; log in again")
