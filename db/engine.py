"""Engines and sessions for SQLite (embedded default) and PostgreSQL (``DATABASE_URL``).

SQLite runs in WAL mode with foreign keys on, and every transaction starts with
``BEGIN IMMEDIATE``: pysqlite's default deferred begin lets two writers read the same row and
then one of them loses its update.

The ORM (``sqlalchemy.orm``; with ``db.models`` about two fifths of ``import-semeval``'s start-up) is
imported by the functions that open a session, not by this module: an engine and its write rules need
Core only.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.exc import OperationalError

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

ROOT = Path(__file__).resolve().parent.parent
T = TypeVar("T")
DEFAULT_SQLITE_PATH = ROOT / "data" / "corpus.db"


#: How long a write waits for another writer (SQLite's write lock, this process's write turn) before it
#: gives up with ``ProjectBusy``. A paper-scale import holds the lock for seconds, not minutes.
BUSY_TIMEOUT_S = 30.0
#: How long a page's save waits, all waits together (this process's write turn, then SQLite's lock or
#: PostgreSQL's row locks), before ``ProjectBusy``: the person at the page hears "busy, your work is kept"
#: within this, never a save spinning for half a minute behind an import. Imports keep ``BUSY_TIMEOUT_S``.
INTERACTIVE_BUSY_S = 3.0
#: Execution option carrying a transaction's own busy wait (seconds) to the SQLite begin hook.
BUSY_OPTION = "corpus_busy_timeout_s"


class ProjectBusy(ValueError):
    """A save could not get the database's write lock in time (SQLite: an import or restore is being
    written). Nothing was written; the page keeps the user's work and the next save tries again.
    A ValueError, so pages that show a refused save's message show this one instead of a traceback."""

    MESSAGE = "The project is busy importing; your work is kept. It is saved with your next change."

    def __init__(self, message: str = MESSAGE) -> None:
        super().__init__(message)


def is_locked(exc: BaseException) -> bool:
    """SQLite's "database is locked" (or "busy"): the busy timeout ran out waiting for another writer;
    PostgreSQL's ``lock_not_available`` (55P03): a transaction's ``lock_timeout`` ran out."""
    return isinstance(exc, OperationalError) and (
        any(text in str(exc.orig) for text in ("database is locked", "database is busy"))
        or getattr(exc.orig, "sqlstate", None) == "55P03")


def default_url() -> str:
    return os.environ.get("DATABASE_URL") or f"sqlite:///{DEFAULT_SQLITE_PATH}"


def normalize_url(url: str) -> str:
    """Accept the plain ``postgresql://`` form people paste and use the psycopg 3 driver."""
    if url.startswith("postgres://"):
        url = "postgresql://" + url[len("postgres://"):]
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url[len("postgresql://"):]
    return url


READ_ONLY_OPTION = "corpus_read_only"


def reader(engine: Engine) -> Engine:
    """The same engine for read-only work: on SQLite its transactions begin DEFERRED, so long reads
    (dashboard, export) never hold the write lock. Never write through it."""
    return engine.execution_options(**{READ_ONLY_OPTION: True})


def is_sqlite(engine: Engine) -> bool:
    return engine.dialect.name == "sqlite"


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record):  # noqa: ANN001
        dbapi_connection.isolation_level = None  # we issue BEGIN ourselves
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()
        _record.info[BUSY_OPTION] = max(1, int(BUSY_TIMEOUT_S * 1000))

    @event.listens_for(engine, "begin")
    def _on_begin(connection):  # noqa: ANN001
        options = connection.get_execution_options()
        if options.get(READ_ONLY_OPTION):
            connection.exec_driver_sql("BEGIN")
            return
        # This transaction's wait for the write lock: its own (a page's save) or the default. Set only when
        # it differs from what the pooled connection has, so most transactions pay nothing for it.
        wait_ms = max(1, int(options.get(BUSY_OPTION, BUSY_TIMEOUT_S) * 1000))
        if connection.info.get(BUSY_OPTION) != wait_ms:
            connection.exec_driver_sql(f"PRAGMA busy_timeout={wait_ms}")
            connection.info[BUSY_OPTION] = wait_ms
        connection.exec_driver_sql("BEGIN IMMEDIATE")


def make_engine(url: str | None = None) -> Engine:
    from db.write_rules import install as install_write_rules

    install_write_rules()  # the write rules' statement listener (tagging independence), once per process
    url = normalize_url(url or default_url())
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": BUSY_TIMEOUT_S})
        _configure_sqlite(engine)
        return engine
    # Room for every save slot (db.write_gate) plus the reads of a dozen open pages.
    return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=10)


@contextmanager
def transaction(engine: Engine, busy_timeout_s: float | None = None) -> Iterator[Session]:
    """One all-or-nothing unit of work: commit on success, roll back on any exception. It holds one of
    this process's write slots (``db.write_gate``), like every save. A write lock that stays taken
    longer than ``BUSY_TIMEOUT_S`` (SQLite: a long import) is ``ProjectBusy``, not a database error.

    ``busy_timeout_s`` (a page's save: ``INTERACTIVE_BUSY_S``) bounds every wait together: the write turn,
    then what is left of it for SQLite's lock (its busy timeout) or PostgreSQL's row locks (``SET LOCAL
    lock_timeout``), so ``ProjectBusy`` comes within it."""
    from sqlalchemy.orm import Session

    with _unit_of_work(engine, busy_timeout_s, lambda bind: Session(bind, expire_on_commit=False)) as session:
        yield session


@contextmanager
def core_transaction(engine: Engine, busy_timeout_s: float | None = None) -> Iterator[Connection]:
    """``transaction`` on a Core connection instead of a session (the same write turn, busy waits and
    ``ProjectBusy``, commit or roll back): for a write that maps no rows (an import of SemEval files), so the
    command running it imports neither the ORM nor the models."""
    with _unit_of_work(engine, busy_timeout_s, lambda bind: bind.connect()) as connection:
        yield connection


@contextmanager
def _unit_of_work(engine: Engine, busy_timeout_s: float | None,
                  open_unit: Callable[[Engine], Session | Connection]) -> Iterator[Any]:
    """What ``transaction`` and ``core_transaction`` share: the write turn, the waits, commit or roll back."""
    from db.write_gate import write_turn

    started = time.monotonic()
    with write_turn(engine, busy_timeout_s):
        bind = engine
        left = None
        if busy_timeout_s is not None:
            left = max(0.05, busy_timeout_s - (time.monotonic() - started))
            if is_sqlite(engine):
                bind = engine.execution_options(**{BUSY_OPTION: left})
        unit = open_unit(bind)
        try:
            if left is not None and engine.dialect.name == "postgresql":
                unit.execute(text(f"SET LOCAL lock_timeout = {int(left * 1000)}"))
            yield unit
            unit.commit()
        except OperationalError as exc:
            unit.rollback()
            if is_locked(exc):
                raise ProjectBusy() from exc
            raise
        except BaseException:
            unit.rollback()
            raise
        finally:
            unit.close()


def read(engine: Engine, query: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """Run ``query(session, ...)`` in one read-only transaction: the pages' way to read, so none of
    them opens a session or holds SQLite's write lock while it reads."""
    from sqlalchemy.orm import Session

    with Session(reader(engine), expire_on_commit=False) as session:
        return query(session, *args, **kwargs)
