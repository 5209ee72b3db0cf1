"""The tests' one compiled-statement cache per kind of engine: shared only where it cannot change what runs."""

from __future__ import annotations

import json

from sqlalchemy import create_engine, text

from db.engine import make_engine


def _count(engine) -> int:
    with engine.connect() as connection:
        return connection.execute(text("SELECT count(*) FROM demo_rows")).scalar_one()


def _make(url: str, rows: int) -> None:
    engine = make_engine(url)
    with engine.begin() as connection:
        connection.execute(text("CREATE TABLE demo_rows (n INTEGER)"))
        for n in range(rows):
            connection.execute(text("INSERT INTO demo_rows VALUES (:n)"), {"n": n})
    engine.dispose()


def test_a_second_engine_of_the_same_kind_runs_the_first_ones_compiled_statement_on_its_own_database(tmp_path):
    first_url, second_url = f"sqlite:///{tmp_path / 'a.db'}", f"sqlite:///{tmp_path / 'b.db'}"
    _make(first_url, 2)
    _make(second_url, 5)
    first = make_engine(first_url)
    assert _count(first) == 2
    cached = len(first._compiled_cache)
    second = make_engine(second_url)
    assert second.dialect is first.dialect and second._compiled_cache is first._compiled_cache
    assert _count(second) == 5  # its own rows, through the statement the first engine compiled
    assert len(second._compiled_cache) == cached


def test_an_engine_whose_dialect_is_built_otherwise_keeps_its_own(tmp_path):
    url = f"sqlite:///{tmp_path / 'a.db'}"
    _make(url, 1)
    ordinary = make_engine(url)
    assert _count(ordinary) == 1
    other = create_engine(url, json_serializer=lambda value: json.dumps(value, ensure_ascii=True))
    assert other.dialect is not ordinary.dialect
    assert other._compiled_cache is not ordinary._compiled_cache
    uncached = create_engine(url, query_cache_size=0)
    assert uncached._compiled_cache is None and uncached.dialect is not ordinary.dialect


def test_postgresql_engines_share_with_postgresql_only(postgres_engine, engine):
    assert _count_tables(postgres_engine) > 0 and _count_tables(engine) > 0
    again = make_engine(postgres_engine.url.render_as_string(hide_password=False))
    assert again.dialect is postgres_engine.dialect
    assert again.dialect is not engine.dialect
    again.dispose()


def _count_tables(engine) -> int:
    query = ("SELECT count(*) FROM sqlite_master WHERE type = 'table'" if engine.dialect.name == "sqlite"
             else "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'")
    with engine.connect() as connection:
        return connection.execute(text(query)).scalar_one()
