"""Plain rows from big tables, fast: a paper-scale project has ~95,000 annotations, and SQLAlchemy's
per-row objects and the JSON type's decoding are most of the time of reading them."""

from __future__ import annotations

import json
import re
from datetime import datetime

from sqlalchemy import Connection


#: A B/I/O tag list in the canonical spelling (``json.dumps``, also PostgreSQL's): ``["B", "I", "O"]``, each
#: letter five characters after the one before it.
_CANONICAL_TAGS = re.compile(r'\["[BIO]"(?:, "[BIO]")*\]')


def tags_from_json(raw: str | None) -> str | None:
    """The stored JSON tag list as one letter per token. The canonical spelling is recognised by a pattern and
    its letters sliced out, with no JSON parse; anything else goes through ``json.loads``. None when a tag is
    not B, I or O."""
    if raw is None:
        return None
    if _CANONICAL_TAGS.fullmatch(raw):
        return raw[2::5]
    if raw == "[]":
        return ""
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    from corpus.kappa import tag_string  # (numpy: only when a row is not in the canonical form)

    return tag_string(value) if isinstance(value, list) else None


def fetch(conn: Connection, statement) -> list[tuple]:
    """Rows as plain DB-API tuples, skipping SQLAlchemy's per-row objects (most of the load time at
    corpus scale). Values come back as the driver gives them: see ``moment``."""
    compiled = statement.compile(dialect=conn.dialect, compile_kwargs={"render_postcompile": True})
    if compiled.positional:
        params = tuple(compiled.params[name] for name in compiled.positiontup)
    else:
        params = compiled.params
    cursor = conn.connection.dbapi_connection.cursor()
    try:
        cursor.execute(str(compiled), params)
        return cursor.fetchall()
    finally:
        cursor.close()


def moment(value) -> datetime | None:
    """SQLite returns DateTime columns as ISO strings, PostgreSQL as datetimes."""
    if value is None or isinstance(value, datetime):
        return value
    return datetime.fromisoformat(value)


def moments(values: list | tuple) -> list[datetime | None]:
    """``moment`` over a column, deciding the driver's type once instead of per value."""
    if not any(v.__class__ is str for v in values):
        return list(values)
    try:
        return list(map(datetime.fromisoformat, values))
    except TypeError:  # a NULL among the strings
        parse = datetime.fromisoformat
        return [parse(v) if v.__class__ is str else moment(v) for v in values]
