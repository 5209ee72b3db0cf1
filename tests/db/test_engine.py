"""What the engine and the migrations promise: SQLite writers take the lock at BEGIN, readers do not; a Core
write transaction commits or rolls back and says busy as a session's does; the migrated schema is exactly the
ORM model, whose classes map the Core tables (one definition); a new project asks for the paper's 4 translators
and 2 annotators."""

from __future__ import annotations

import sqlite3

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import func, insert, select, text
from sqlalchemy.orm import Session

from db import tables
from db.engine import ProjectBusy, core_transaction, reader
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


def _audit_rows(engine) -> int:
    with reader(engine).connect() as conn:
        return conn.scalar(select(func.count()).select_from(tables.audit_events))


def test_a_core_transaction_commits_on_success_and_writes_nothing_on_an_error(engine):
    with pytest.raises(RuntimeError), core_transaction(engine) as conn:
        conn.execute(insert(tables.audit_events).values(action="kept?", detail={}))
        raise RuntimeError("the caller failed")
    assert _audit_rows(engine) == 0
    with core_transaction(engine) as conn:
        conn.execute(insert(tables.audit_events).values(action="kept", detail={}))  # created_at: the table's default
    assert _audit_rows(engine) == 1


def test_a_core_transaction_that_cannot_get_the_write_lock_in_time_is_project_busy(engine):
    other = sqlite3.connect(engine.url.database, isolation_level=None)  # another process's import, say
    try:
        other.execute("BEGIN IMMEDIATE")
        with pytest.raises(ProjectBusy), core_transaction(engine, busy_timeout_s=0.2) as conn:
            conn.execute(insert(tables.audit_events).values(action="waits", detail={}))
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert _audit_rows(engine) == 0


def test_every_mapped_class_maps_its_core_table_so_a_table_is_defined_once():
    assert Base.metadata is tables.metadata
    for mapper in Base.registry.mappers:
        table = mapper.local_table
        assert getattr(tables, table.name) is table, mapper.class_.__name__


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
