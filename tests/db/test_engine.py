"""What the engine and the migrations promise: SQLite writers take the lock at BEGIN, readers do not;
the migrated schema is exactly the ORM model; a new project asks for the paper's 4 translators and 2 annotators."""

from __future__ import annotations

import sqlite3

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import select, text
from sqlalchemy.orm import Session

from db.engine import reader
from db.models import Base, Project


def _other_writer_is_locked_out(path: str) -> bool:
    other = sqlite3.connect(path, timeout=0, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        other.execute("ROLLBACK")
        return False
    except sqlite3.OperationalError as exc:
        assert "locked" in str(exc)
        return True
    finally:
        other.close()


def test_a_sqlite_write_transaction_holds_the_write_lock_from_its_first_statement(engine):
    path = engine.url.database
    with engine.connect() as conn:
        with conn.begin():
            conn.execute(text("SELECT 1"))  # no write yet: a deferred BEGIN would hold no lock here
            assert _other_writer_is_locked_out(path)
    assert not _other_writer_is_locked_out(path)


def test_a_sqlite_read_transaction_never_holds_the_write_lock(engine):
    with reader(engine).connect() as conn:
        with conn.begin():
            conn.execute(text("SELECT count(*) FROM projects"))
            assert not _other_writer_is_locked_out(engine.url.database)


def test_migrations_build_exactly_the_orm_model(any_engine):
    from db.jobs import metadata as jobs_metadata  # kept out of Base so backups never carry job rows

    with any_engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"target_metadata": [Base.metadata, jobs_metadata]})
        differences = compare_metadata(context, [Base.metadata, jobs_metadata])
    assert differences == []


def test_a_new_project_asks_for_four_translators_per_phase_and_two_annotators(any_engine):
    with Session(any_engine) as session:
        project = session.scalars(select(Project).order_by(Project.id)).first()
        assert (project.translators_per_phase, project.annotators_per_item) == (4, 2)
        fresh = Project(name="another")
        session.add(fresh)
        session.flush()
        assert (fresh.translators_per_phase, fresh.annotators_per_item) == (4, 2)
        session.rollback()
