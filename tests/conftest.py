"""Shared fixtures: fresh databases on SQLite and, when reachable, a real PostgreSQL.

Each test still gets a database of its own, but the schema is migrated once per session (per xdist
worker): SQLite tests get a file copy of a migrated template, PostgreSQL tests a ``CREATE DATABASE ...
TEMPLATE`` of a migrated database (reused by later tests once emptied back to the template's rows), and the
demo project is loaded once and copied the same way.
"""

from __future__ import annotations

import os
import statistics  # noqa: F401  (the standard library's, before any test can shadow it: see below)
import sys
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# bcrypt's least cost for every hash the tests (and the apps and commands they start) make; the product's
# default stays 10 (tests/db/test_password_cost.py). Set before anything hashes.
os.environ["CORPUS_TEST_BCRYPT_ROUNDS"] = "4"

# These machines set PYTHONDONTWRITEBYTECODE, so every worker, app server and command the tests start compiled
# the project's modules (and pytest rewrote the test modules) again: 5.5 of the 13.9 CPU-s a worker spent
# collecting. The tests keep compiled files (git ignores __pycache__/), for themselves and what they start.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

# An AppTest of one page file (AppTest.from_file("pages/statistics.py")) puts pages/ on sys.path, where
# pages/statistics.py then stood in for the standard library's module for whatever imported it next in that
# worker (corpus/export/figures.py: "module 'statistics' has no attribute 'fmean'"), depending on test order.
# The served app is not affected: its script is app.py, next to pages/. Imported above, first.

from tests.support import shared_statements  # noqa: E402

# Every engine the tests (and the app and commands they run in process) make shares its kind's compiled
# statements, instead of compiling each statement again for each test's database (tests/support/shared_statements.py).
shared_statements.install()

from db.engine import make_engine  # noqa: E402
from db.schema import upgrade  # noqa: E402
from tests.support.databases import copy_of, settle  # noqa: E402

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


def _fresh_postgres_url(template: str | None = None) -> str:
    """A new database with a unique name (safe under xdist), empty or a copy of ``template``."""
    import psycopg

    name = f"corpus_test_{uuid.uuid4().hex[:10]}"
    from_template = f' TEMPLATE "{template}"' if template else ""
    with psycopg.connect(PG_ADMIN_URL.replace("+psycopg", ""), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"{from_template}')
    return PG_ADMIN_URL.rsplit("/", 1)[0] + "/" + name


def _drop_postgres(url: str) -> None:
    import psycopg

    name = url.rsplit("/", 1)[1]
    with psycopg.connect(PG_ADMIN_URL.replace("+psycopg", ""), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="session", autouse=True)
def _streamlit_work_done_once():
    """What Streamlit does again for every AppTest (the installed components' scan, each page script's
    compilation) is done once per worker (tests/support/streamlit_once.py)."""
    if "streamlit" in sys.modules:  # some collected test uses Streamlit
        from tests.support.streamlit_once import compile_scripts_once, scan_components_once

        scan_components_once()
        compile_scripts_once()
    yield


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory) -> Path:
    """A SQLite file migrated to head (with the default project), made once; tests get copies."""
    path = tmp_path_factory.mktemp("template") / "migrated.db"
    eng = make_engine(f"sqlite:///{path}")
    upgrade(eng)
    settle(eng, path)
    return path


@pytest.fixture(scope="session")
def demo_sqlite(migrated_sqlite: Path, tmp_path_factory) -> Path:
    """A migrated SQLite file with the demo project loaded, made once; tests get copies."""
    from db.demo import load_demo

    path = tmp_path_factory.mktemp("template") / "demo.db"
    eng = make_engine(copy_of(migrated_sqlite, path))
    load_demo(eng)
    settle(eng, path)
    return path


@pytest.fixture(scope="session")
def migrated_postgres():
    """The name of a PostgreSQL database migrated to head, made once and dropped at the end; tests get
    ``CREATE DATABASE ... TEMPLATE`` copies of it (nothing may stay connected to it)."""
    if _PG_SKIP_REASON:
        pytest.skip(_PG_SKIP_REASON)
    url = _fresh_postgres_url()
    eng = make_engine(url)
    upgrade(eng)
    eng.dispose()
    yield url.rsplit("/", 1)[1]
    _drop_postgres(url)


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'corpus.db'}"


@pytest.fixture
def engine(migrated_sqlite: Path, tmp_path: Path):
    """A fresh, migrated SQLite database at ``sqlite_url``'s path."""
    eng = make_engine(copy_of(migrated_sqlite, tmp_path / "corpus.db"))
    yield eng
    eng.dispose()


@pytest.fixture
def pg_url():
    if _PG_SKIP_REASON:
        pytest.skip(_PG_SKIP_REASON)
    url = _fresh_postgres_url()
    yield url
    _drop_postgres(url)


@pytest.fixture(scope="session")
def _postgres_databases(migrated_postgres: str):
    """The worker's PostgreSQL test databases: copies of the migrated template, each finished test's one
    renamed, checked and given the template's rows back for a later test (tests/support/postgres_pool.py);
    every one is dropped before the session ends."""
    from tests.support.postgres_pool import PostgresDatabases

    databases = PostgresDatabases(PG_ADMIN_URL, migrated_postgres)
    yield databases
    databases.close()


@pytest.fixture
def postgres_engine(_postgres_databases):
    """A migrated PostgreSQL database of this test's own, holding exactly the template (skipped with a
    reason if down); its name is new to the session."""
    url = _postgres_databases.take()
    eng = make_engine(url)
    yield eng
    eng.dispose()
    _postgres_databases.give_back(url)


@pytest.fixture(params=["sqlite", "postgresql"])
def any_engine(request):
    """The same test against SQLite and against a real PostgreSQL (skipped with a reason if down)."""
    return request.getfixturevalue("engine" if request.param == "sqlite" else "postgres_engine")


@pytest.fixture
def demo_db(demo_sqlite: Path, tmp_path: Path, monkeypatch):
    """A migrated SQLite database with the demo project, which the app uses through DATABASE_URL."""
    url = copy_of(demo_sqlite, tmp_path / "app.db")
    monkeypatch.setenv("DATABASE_URL", url)
    eng = make_engine(url)
    yield eng
    eng.dispose()


@pytest.fixture
def app_engine(engine, sqlite_url: str, monkeypatch):
    """A fresh, migrated SQLite database that the app under AppTest uses (DATABASE_URL points at it)."""
    monkeypatch.setenv("DATABASE_URL", sqlite_url)
    return engine
