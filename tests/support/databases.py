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
