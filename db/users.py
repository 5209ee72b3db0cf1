"""The lead's user administration: roles, password resets, deactivation.

Resetting a password, changing roles and deactivating end every login session the user has at once
(``db.auth.end_all_sessions``): their open tabs are logged out and their next save is refused.
Deactivating also moves their unfinished translation and tagging tasks to other people.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from corpus.records import ROLES
from db.assignment import AssignmentSummary, reassign_open_work
from db.auth import end_all_sessions, hash_password, recent_failures, validate_password
from db.engine import reader, transaction
from db.models import AuditEvent, User, UserRole, utcnow
from db.tagging import AssignmentReport, reassign_open_tagging


@dataclass(frozen=True)
class Reassignment:
    """What deactivating a user moved to others."""

    translation: AssignmentSummary
    tagging: AssignmentReport

    def __str__(self) -> str:
        text = f"translation: {self.translation}; tagging: {self.tagging.created} new tasks for {self.tagging.targets} items"
        if self.tagging.short:
            text += f" ({len(self.tagging.short)} items lack an eligible annotator)"
        return text


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


def set_roles(engine: Engine, user_id: int, roles: Iterable[str], actor_id: int | None) -> None:
    roles = set(roles)
    unknown = roles - set(ROLES)
    if unknown or not roles:
        raise ValueError(f"roles must be some of {', '.join(ROLES)}")
    with transaction(engine) as session:
        user = _user(session, user_id)
        if user_id == actor_id and not roles & {"lead", "admin"} and user.role_names & {"lead", "admin"}:
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
        user = _user(session, user_id)
        validate_password(password, user.username)
        user.password_hash = hash_password(password)
        end_all_sessions(session, user)
        user.failed_logins = 0
        user.locked_until = None
        session.add(AuditEvent(actor_id=actor_id, action="reset-password", detail={"user": user.username}))


def deactivate_user(engine: Engine, user_id: int, actor_id: int | None) -> Reassignment:
    """Log the user out everywhere, stop new logins, and reassign their unfinished translation and
    tagging tasks."""
    if user_id == actor_id:
        raise ValueError("you cannot deactivate yourself")
    with transaction(engine) as session:
        user = _user(session, user_id)
        user.active = False
        end_all_sessions(session, user)
        session.flush()
        translation = reassign_open_work(session, user_id, actor_id)
        tagging = reassign_open_tagging(session, user_id, actor_id)
        session.add(AuditEvent(actor_id=actor_id, action="deactivate-user",
                               detail={"user": user.username, "reassigned_sentences": translation.sentences,
                                       "new_tasks": translation.created,
                                       "reassigned_tagging_items": tagging.targets,
                                       "new_tagging_tasks": tagging.created}))
        return Reassignment(translation, tagging)


def reactivate_user(engine: Engine, user_id: int, actor_id: int | None) -> None:
    with transaction(engine) as session:
        user = _user(session, user_id)
        user.active = True
        session.add(AuditEvent(actor_id=actor_id, action="reactivate-user", detail={"user": user.username}))
