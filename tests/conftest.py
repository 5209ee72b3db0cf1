"""Shared fixtures: fresh databases on SQLite and, when reachable, a real PostgreSQL."""

from __future__ import annotations

import os
import sys
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from db.engine import make_engine  # noqa: E402
from db.schema import upgrade  # noqa: E402

PG_ADMIN_URL = os.environ.get("TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def _postgres_reachable() -> str | None:
    """None if reachable, else the reason it is not."""
    try:
        import psycopg

        with psycopg.connect(PG_ADMIN_URL.replace("+psycopg", ""), connect_timeout=3):
            return None
    except Exception as exc:  # noqa: BLE001
        return f"PostgreSQL not reachable at {PG_ADMIN_URL}: {exc}"


_PG_SKIP_REASON = _postgres_reachable()
if _PG_SKIP_REASON and os.environ.get("REQUIRE_POSTGRES"):
    raise RuntimeError(f"REQUIRE_POSTGRES is set but {_PG_SKIP_REASON}")


def _fresh_postgres_url() -> str:
    import psycopg

    name = f"corpus_test_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(PG_ADMIN_URL.replace("+psycopg", ""), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return PG_ADMIN_URL.rsplit("/", 1)[0] + "/" + name


def _drop_postgres(url: str) -> None:
    import psycopg

    name = url.rsplit("/", 1)[1]
    with psycopg.connect(PG_ADMIN_URL.replace("+psycopg", ""), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'corpus.db'}"


@pytest.fixture
def engine(sqlite_url: str):
    """A fresh, migrated SQLite database."""
    eng = make_engine(sqlite_url)
    upgrade(eng)
    yield eng
    eng.dispose()


@pytest.fixture
def pg_url():
    if _PG_SKIP_REASON:
        pytest.skip(_PG_SKIP_REASON)
    url = _fresh_postgres_url()
    yield url
    _drop_postgres(url)


@pytest.fixture(params=["sqlite", "postgresql"])
def any_engine(request, tmp_path: Path):
    """The same test against SQLite and against a real PostgreSQL (skipped with a reason if down)."""
    if request.param == "sqlite":
        eng = make_engine(f"sqlite:///{tmp_path / 'corpus.db'}")
        upgrade(eng)
        yield eng
        eng.dispose()
        return
    if _PG_SKIP_REASON:
        pytest.skip(_PG_SKIP_REASON)
    url = _fresh_postgres_url()
    eng = make_engine(url)
    upgrade(eng)
    yield eng
    eng.dispose()
    _drop_postgres(url)


@pytest.fixture
def demo_db(tmp_path: Path, monkeypatch):
    """A migrated SQLite database with the demo project, which the app uses through DATABASE_URL."""
    from db.demo import load_demo

    url = f"sqlite:///{tmp_path / 'app.db'}"
    monkeypatch.setenv("DATABASE_URL", url)
    eng = make_engine(url)
    upgrade(eng)
    load_demo(eng)
    yield eng
    eng.dispose()
