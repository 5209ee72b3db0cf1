"""User administration (the admin's Users page): accounts, roles, password resets, deactivation.

Resetting a password, changing roles and deactivating end every login session the user has at once
(``db.access.end_all_sessions``): their open tabs are logged out and their next save is refused.
Deactivating also moves their unfinished translation and tagging tasks to other people
(``db.workflows.deactivate_user``).

Only an admin grants or removes the admin role, or changes an admin's account (a lead who could reset an
admin's password could become one). ``actor_id`` None is the command line, run by whoever holds the
database.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from corpus.passwords import has_control_characters
from corpus.records import ROLES
from corpus.vocabulary import OPEN_STATUSES, Role, Status
from db.access import (
    ACCOUNT_ROLES,
    check_writer,
    end_all_sessions,
    hash_password,
    recent_failures,
    validate_password,
    validate_username,
)
from db.engine import reader, transaction
from db.models import (
    AnnotationAssignment,
    AuditEvent,
    TranslationAssignment,
    User,
    UserRole,
    utcnow,
)

# What deactivating moves to others (``reassign_open_work`` and ``reassign_open_tagging``).
MOVED_TRANSLATION = OPEN_STATUSES
MOVED_TAGGING = (Status.ASSIGNED, Status.DRAFT)


class AdminOnly(PermissionError, ValueError):
    """A change only an admin may make (a ValueError too, so every page's refusal handler shows it)."""


@dataclass(frozen=True)
class UserRow:
    id: int
    username: str
    display_name: str
    roles: tuple[str, ...]
    active: bool
    can_log_in: bool
    recent_failures: int  # failed logins in the throttle's window, from every client


def list_users(engine: Engine) -> list[UserRow]:
    with Session(reader(engine)) as session:
        users = [(u.id, u.username, u.display_name or u.username, tuple(sorted(u.role_names)), u.active,
                  u.password_hash is not None) for u in session.scalars(select(User).order_by(User.username))]
    now = utcnow()
    return [UserRow(*u, recent_failures(engine, u[1], now)) for u in users]


def _user(session: Session, user_id: int) -> User:
    user = session.get(User, user_id)
    if user is None:
        raise LookupError(f"no user {user_id}")
    return user


def _is_admin(session: Session, actor_id: int | None) -> bool:
    if actor_id is None:
        return True
    actor = session.get(User, actor_id)
    return actor is not None and actor.active and Role.ADMIN in actor.role_names


def _only_an_admin_changes_admins(session: Session, actor_id: int | None, before: set[str],
                                  after: set[str] | None = None) -> None:
    """Refuse a non-admin who grants or removes the admin role (``before`` → ``after``) or changes an admin's
    account (``after`` None: the roles stay)."""
    if _is_admin(session, actor_id):
        return
    if after is not None and (Role.ADMIN in before) != (Role.ADMIN in after):
        raise AdminOnly("only an admin can grant or remove the admin role")
    if Role.ADMIN in before:
        raise AdminOnly("only an admin can change an admin's account")


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


def create_account(engine: Engine, username: str, roles: set[str], password: str | None,
                   display_name: str | None, actor_id: int | None) -> int:
    """``create_user`` for the Users page: an account with the admin role only by an admin."""
    if Role.ADMIN in roles:
        with Session(reader(engine)) as session:
            _only_an_admin_changes_admins(session, actor_id, set(), set(roles))
    return create_user(engine, username, set(roles), password, display_name, actor_id=actor_id)


@dataclass(frozen=True)
class OpenWork:
    """A person's unfinished tasks: what deactivating them would move to others."""

    translation: int
    tagging: int


def open_work(engine: Engine, user_id: int) -> OpenWork:
    with Session(reader(engine)) as session:
        translation = session.scalar(select(func.count()).select_from(TranslationAssignment).where(
            TranslationAssignment.user_id == user_id, TranslationAssignment.status.in_(MOVED_TRANSLATION)))
        tagging = session.scalar(select(func.count()).select_from(AnnotationAssignment).where(
            AnnotationAssignment.user_id == user_id, AnnotationAssignment.status.in_(MOVED_TAGGING)))
    return OpenWork(translation or 0, tagging or 0)


def set_roles(engine: Engine, user_id: int, roles: Iterable[str], actor_id: int | None) -> None:
    roles = set(roles)
    unknown = roles - set(ROLES)
    if unknown or not roles:
        raise ValueError(f"roles must be some of {', '.join(ROLES)}")
    with transaction(engine) as session:
        check_writer(session, actor_id, roles=ACCOUNT_ROLES)
        user = _user(session, user_id)
        _only_an_admin_changes_admins(session, actor_id, user.role_names, roles)
        if user_id == actor_id and Role.ADMIN in user.role_names and Role.ADMIN not in roles:
            raise ValueError("you cannot remove your own admin role")
        if user_id == actor_id and not roles & {Role.LEAD, Role.ADMIN} and user.role_names & {Role.LEAD, Role.ADMIN}:
            raise ValueError("you cannot remove your own lead role")
        changed = roles != user.role_names
        for row in list(user.roles):
            if row.role not in roles:
                user.roles.remove(row)
        session.flush()
        for role in sorted(roles - user.role_names):
            user.roles.append(UserRole(role=role))
        if changed:
            end_all_sessions(session, user)  # a privilege change: the user logs in again
        session.add(AuditEvent(actor_id=actor_id, action="set-roles", detail={"user": user.username,
                                                                               "roles": sorted(roles)}))


def reset_password(engine: Engine, user_id: int, password: str, actor_id: int | None) -> None:
    """Set a new password and end the user's login sessions."""
    with transaction(engine) as session:
        check_writer(session, actor_id, roles=ACCOUNT_ROLES)
        user = _user(session, user_id)
        _only_an_admin_changes_admins(session, actor_id, user.role_names)
        validate_password(password, user.username)
        user.password_hash = hash_password(password)
        end_all_sessions(session, user)
        user.failed_logins = 0
        user.locked_until = None
        session.add(AuditEvent(actor_id=actor_id, action="reset-password", detail={"user": user.username}))


def deactivate_in(session: Session, user_id: int, actor_id: int | None) -> User:
    """Deactivate the user inside the caller's transaction (``db.workflows.deactivate_user``, which checks the
    writer first and then moves their open work to others): no more logins, every session ended."""
    if user_id == actor_id:
        raise ValueError("you cannot deactivate yourself")
    user = _user(session, user_id)
    _only_an_admin_changes_admins(session, actor_id, user.role_names)
    user.active = False
    end_all_sessions(session, user)
    session.flush()
    return user


def reactivate_user(engine: Engine, user_id: int, actor_id: int | None) -> None:
    with transaction(engine) as session:
        check_writer(session, actor_id, roles=ACCOUNT_ROLES)
        user = _user(session, user_id)
        _only_an_admin_changes_admins(session, actor_id, user.role_names)
        user.active = True
        session.add(AuditEvent(actor_id=actor_id, action="reactivate-user", detail={"user": user.username}))
