"""Engines and sessions for SQLite (embedded default) and PostgreSQL (``DATABASE_URL``).

SQLite runs in WAL mode with foreign keys on, and every transaction starts with
``BEGIN IMMEDIATE``: pysqlite's default deferred begin lets two writers read the same row and
then one of them loses its update.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SQLITE_PATH = ROOT / "data" / "corpus.db"


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
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection):  # noqa: ANN001
        if connection.get_execution_options().get(READ_ONLY_OPTION):
            connection.exec_driver_sql("BEGIN")
        else:
            connection.exec_driver_sql("BEGIN IMMEDIATE")


def make_engine(url: str | None = None) -> Engine:
    url = normalize_url(url or default_url())
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})
        _configure_sqlite(engine)
        return engine
    # Room for every save slot (db.write_gate) plus the reads of a dozen open pages.
    return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=10)


def session_factory(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(bind=engine, expire_on_commit=False)


@contextmanager
def transaction(engine: Engine) -> Iterator[Session]:
    """One all-or-nothing unit of work: commit on success, roll back on any exception. It holds one of
    this process's write slots (``db.write_gate``), like every save."""
    from db.write_gate import write_turn

    with write_turn(engine):
        session = Session(engine, expire_on_commit=False)
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise
        finally:
            session.close()
