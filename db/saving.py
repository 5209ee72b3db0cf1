"""Saves that never silently overwrite: an optimistic version check plus a revision for every save.

``Translation`` and ``Annotation`` carry a ``version`` (SQLAlchemy ``version_id_col``). A save names the
version its author loaded; if someone else saved in between, the save is refused with an
``EditConflict`` that holds both versions, so the page can show them side by side. Two layers catch it:

- the explicit check below, which is all that is needed on SQLite, where ``BEGIN IMMEDIATE``
  serialises writers so the row read inside the transaction is current;
- ``UPDATE ... WHERE version = :loaded`` issued by the ORM, which turns a concurrent commit on
  PostgreSQL (READ COMMITTED) into ``StaleDataError`` at flush, which is converted here too.

Every successful save appends a full snapshot to the revision history in the same transaction, so a
save is acknowledged only together with its revision.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from datetime import date, datetime
from typing import Any, TypeVar

from sqlalchemy import Engine, inspect
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError
from sqlalchemy.orm import Session
from sqlalchemy.orm.exc import StaleDataError

from db.conflicts import SavedFirst
from db.models import Annotation, Translation
from db.revisions import record_revision
from db.write_gate import write_turn

T = TypeVar("T")

ENTITY_BY_TABLE = {"translations": "translation", "annotations": "annotation"}

#: Columns a save may never change through ``changes``: identity and bookkeeping.
PROTECTED = frozenset({"id", "version", "created_at"})


class EditConflict(SavedFirst):
    """Somebody else saved this record since it was loaded; nothing was written.

    ``mine`` is what this save tried to store (the loaded snapshot with the changes applied);
    ``theirs`` is what is stored now (None if the record no longer exists).
    """

    def __init__(
        self, entity: str, entity_id: int | None, expected_version: int | None, current_version: int | None,
        mine: dict[str, Any], theirs: dict[str, Any] | None,
    ):
        self.entity = entity
        self.entity_id = entity_id
        self.expected_version = expected_version
        self.current_version = current_version
        if theirs is None and entity_id is not None:
            detail = "it no longer exists"
        elif expected_version is None:
            detail = f"someone else created it first (now version {current_version})"
        else:
            detail = f"you loaded version {expected_version}, it is now version {current_version}"
        super().__init__(f"{entity} {entity_id if entity_id is not None else '(new)'} was changed by someone else: "
                         f"{detail}; reload to see both versions", mine=mine, theirs=theirs,
                         when=_stored_moment(theirs))


def _stored_moment(theirs: dict[str, Any] | None) -> datetime | None:
    """When the stored version was saved, from its snapshot (ISO text)."""
    value = (theirs or {}).get("updated_at")
    return datetime.fromisoformat(value) if isinstance(value, str) else None


def entity_name(row: object) -> str:
    table = inspect(row).mapper.local_table.name
    try:
        return ENTITY_BY_TABLE[table]
    except KeyError:
        raise TypeError(f"{type(row).__name__} is not a versioned, revisioned record") from None


def _plain(value: Any) -> Any:
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def snapshot(row: object) -> dict[str, Any]:
    """Every column of a row as JSON-safe values (the form revisions and conflicts carry)."""
    mapper = inspect(row).mapper
    return {attr.key: _plain(getattr(row, attr.key)) for attr in mapper.column_attrs}


def _current_snapshot(session: Session, row: object) -> tuple[int | None, dict[str, Any] | None]:
    """What is committed now. The transaction is doomed after a failed flush, so roll it back first
    (which also releases SQLite's write lock) and read in a new one, then roll that back too."""
    cls = type(row)
    ident = inspect(row).identity
    session.rollback()
    if ident is None:
        return None, None
    try:
        current = session.get(cls, ident, populate_existing=True)
        return (None, None) if current is None else (current.version, snapshot(current))
    finally:
        session.rollback()


def _check_changes(row: object, changes: Mapping[str, Any]) -> None:
    columns = {attr.key for attr in inspect(row).mapper.column_attrs}
    unknown = set(changes) - columns
    if unknown:
        raise ValueError(f"{type(row).__name__} has no column(s) {', '.join(sorted(unknown))}")
    protected = set(changes) & PROTECTED
    if protected:
        raise ValueError(f"a save may not change {', '.join(sorted(protected))}")


def save_with_version(
    session: Session,
    row: Translation | Annotation,
    expected_version: int | None,
    changes: Mapping[str, Any],
    *,
    author_id: int | None,
    action: str = "save",
    payload: Mapping[str, Any] | None = None,
) -> int:
    """Apply ``changes`` to ``row`` if it is still at ``expected_version``; record a revision; return the new version.

    Call inside one transaction (``db.engine.transaction``), with ``row`` loaded in that transaction. The
    revision's payload is the row's full snapshot, plus ``payload`` (e.g. an aspect map or tokens).
    Raises ``EditConflict`` when the stored version differs; the caller's transaction then rolls back.
    """
    _check_changes(row, changes)
    entity = entity_name(row)
    loaded = snapshot(row)
    mine = {**loaded, **_plain(dict(changes))}
    if expected_version is None or row.version != expected_version:
        raise EditConflict(entity, row.id, expected_version, row.version, mine, loaded)
    for key, value in changes.items():
        setattr(row, key, value)
    try:
        session.flush()
    except StaleDataError:
        current_version, theirs = _current_snapshot(session, row)
        raise EditConflict(entity, row.id, expected_version, current_version, mine, theirs) from None
    record_revision(session, entity, row.id, row.version, author_id, action, {**snapshot(row), **dict(payload or {})})
    session.flush()
    return row.version


def is_unique_violation(exc: IntegrityError) -> bool:
    code = getattr(exc.orig, "sqlstate", None) or getattr(exc.orig, "pgcode", None)
    if code is not None:
        return code == "23505"
    return "UNIQUE constraint failed" in str(exc.orig)


def create_with_revision(
    session: Session,
    row: Translation | Annotation,
    *,
    author_id: int | None,
    action: str = "save",
    payload: Mapping[str, Any] | None = None,
    existing: Callable[[Session], object | None] | None = None,
) -> int:
    """Insert a new versioned row (a first save) and its revision; return its version (1).

    If another session created the same record first (its unique key is taken), raise ``EditConflict``
    with their version, found by ``existing(session)``, instead of an opaque IntegrityError. The insert
    runs in a savepoint, so the transaction stays usable to look theirs up (PostgreSQL's READ COMMITTED
    sees the other commit in a new statement).
    """
    entity = entity_name(row)
    try:
        with session.begin_nested():
            session.add(row)
            session.flush()
    except IntegrityError as exc:
        if not is_unique_violation(exc):
            raise
        theirs = None
        current_version = None
        if existing is not None:
            found = existing(session)
            if found is not None:
                current_version, theirs = found.version, snapshot(found)
        raise EditConflict(entity, None, None, current_version, snapshot(row), theirs) from None
    record_revision(session, entity, row.id, row.version, author_id, action, {**snapshot(row), **dict(payload or {})})
    session.flush()
    return row.version


# ------------------------------------------------------------------ transient failures

#: SQLSTATEs worth retrying on PostgreSQL: serialization failure, deadlock.
RETRY_SQLSTATES = frozenset({"40001", "40P01"})


def is_transient(exc: BaseException) -> bool:
    """A failure where running the same transaction again is safe and likely to succeed."""
    if not isinstance(exc, DBAPIError):
        return False
    code = getattr(exc.orig, "sqlstate", None)
    if code in RETRY_SQLSTATES:
        return True
    return isinstance(exc, OperationalError) and "database is locked" in str(exc.orig)


def run_transaction(engine: Engine, work: Callable[[Session], T], attempts: int = 3, backoff_s: float = 0.05) -> T:
    """Run ``work(session)`` in one transaction; commit on success. Transient lock failures
    (deadlock, serialization failure, SQLite busy past its timeout) are retried with a fresh
    transaction; ``EditConflict`` and every other error roll back and propagate at once.
    The whole save holds one of this process's write slots (``db.write_gate``)."""
    for attempt in range(1, attempts + 1):
        try:
            with write_turn(engine):
                session = Session(engine, expire_on_commit=False)
                try:
                    result = work(session)
                    session.commit()
                    return result
                except BaseException:
                    session.rollback()
                    raise
                finally:
                    session.close()
        except BaseException as exc:
            if attempt < attempts and is_transient(exc):
                time.sleep(backoff_s * attempt)
                continue
            raise
    raise AssertionError("unreachable")
