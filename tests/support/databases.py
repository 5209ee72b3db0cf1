"""Template databases: migrate or build once, then give each test a copy (a file copy on SQLite)."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from sqlalchemy import Engine


def settle(engine: Engine, path: Path) -> None:
    """Close every connection and fold the WAL into the main file, so the file alone is the database."""
    engine.dispose()
    conn = sqlite3.connect(path)
    try:
        busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        assert busy == 0, f"{path} is still in use"
    finally:
        conn.close()


def copy_of(template: Path, path: Path) -> str:
    """Copy a settled template SQLite file to ``path``; returns its URL."""
    shutil.copyfile(template, path)
    return f"sqlite:///{path}"


def built_copy(template: Path, folder: Path, build) -> tuple[Path, object]:
    """``build(engine)`` run once on a copy of ``template`` in ``folder``, settled: the file and what it returned."""
    from db.engine import make_engine

    path = folder / "built.db"
    engine = make_engine(copy_of(template, path))
    made = build(engine)
    settle(engine, path)
    return path, made


def replace_with_copy(engine: Engine, built: Path) -> None:
    """Make the SQLite database behind ``engine`` a copy of ``built`` (its connections closed first, so no
    pooled connection or write-ahead log of the old file survives)."""
    engine.dispose()
    path = Path(engine.url.database)
    for leftover in (path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        assert not leftover.exists(), f"{leftover} is still in use"
    shutil.copyfile(built, path)
