"""The reused PostgreSQL test databases (tests/support/postgres_pool.py): a database a test wrote to comes back
under a new name holding exactly the template's rows and sequence positions; one whose schema a test changed is
dropped, never handed out again."""

from __future__ import annotations

import psycopg
import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from db.users import create_user
from db.engine import make_engine
from db.models import Project

from tests.conftest import PG_ADMIN_URL
from tests.support.postgres_pool import PostgresDatabases


def _plain(url: str) -> str:
    return url.replace("+psycopg", "")


def _contents(url: str) -> tuple:
    with psycopg.connect(_plain(url)) as conn:
        projects = conn.execute("SELECT id, name FROM projects ORDER BY id").fetchall()
        users = conn.execute("SELECT count(*) FROM users").fetchone()[0]
        next_user = conn.execute("SELECT nextval(pg_get_serial_sequence('users', 'id'))").fetchone()[0]
        conn.rollback()  # sequences do not roll back: read the next id last, in a database about to be reset
        version = conn.execute("SELECT version_num FROM alembic_version").fetchall()
    return projects, users, next_user, version


def _exists(name: str) -> bool:
    with psycopg.connect(_plain(PG_ADMIN_URL), autocommit=True) as admin:
        return admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is not None


@pytest.fixture
def databases(migrated_postgres):
    pool = PostgresDatabases(PG_ADMIN_URL, migrated_postgres)
    yield pool
    pool.close()


def _finish(pool: PostgresDatabases) -> None:
    """Wait for the background recycling, as the next test would find it done."""
    for done in pool._pending:
        done.result()


def test_a_database_comes_back_under_a_new_name_with_only_the_templates_rows(databases):
    first = databases.take()
    fresh = _contents(first)
    engine = make_engine(first)
    create_user(engine, "asha", {"translator"}, "asha-password")
    with Session(engine) as session:
        session.scalars(select(Project)).one().name = "renamed"
        session.add(Project(name="second"))
        session.commit()
    engine.dispose()
    holding = psycopg.connect(_plain(first), autocommit=True)  # a connection the test left open
    databases.give_back(first)
    _finish(databases)
    again = databases.take()
    assert again != first and not _exists(first.rsplit("/", 1)[1])
    assert _contents(again) == fresh
    with pytest.raises(psycopg.OperationalError):  # ended, not left to write into a later test's database
        holding.execute("SELECT 1")
    holding.close()
    databases.give_back(again)


def test_a_database_whose_schema_a_test_changed_is_dropped(databases):
    url = databases.take()
    with psycopg.connect(_plain(url)) as conn:
        conn.execute("ALTER TABLE users ADD COLUMN nickname text")
    databases.give_back(url)
    _finish(databases)
    assert databases._free == []
    assert not _exists(url.rsplit("/", 1)[1])
