"""Set-based inserts at the driver's speed, for restores of a whole project.

``session.execute(insert(Model), list_of_dicts)`` is already an executemany, but SQLAlchemy builds and
processes every row's parameters in Python (~15 µs a row); a paper-scale work file writes ~600,000
rows. Here the rows go straight to the driver, in the caller's transaction (nothing is committed here):

- PostgreSQL (psycopg 3): ``COPY ... FROM STDIN``, one stream per table, the server's fastest way in.
- SQLite and others: the statement compiled once for the dialect and the driver's ``executemany`` in
  chunks. Column values are converted a column at a time: JSON with the dialect's serializer, other
  types (datetimes to SQLite's text form, booleans) once per distinct value, which is one ``now`` for
  most columns of an import.

JSON columns are stored as the dialect's serializer writes them (``json.dumps`` unless the engine was
given another); a caller that has the text already (``json_text``) saves the serializing.

Rows of a table with a write rule (``db.write_rules.RULED_TABLES``: tagging assignments) pass the rule
(``db.write_rules.check_rows``) before any is sent: no session listener sees them.
"""

from __future__ import annotations

import gc
import json
import threading
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from itertools import chain, islice
from typing import TYPE_CHECKING, Any

from sqlalchemy import JSON, bindparam, insert
from sqlalchemy.engine import Connection, Dialect

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

from db.write_rules import RULED_TABLES, check_rows

#: Rows per executemany: big enough to be fast, small enough that one chunk's rows stay a few MB.
CHUNK = 5000
#: Whether PostgreSQL gets COPY (False: the same executemany as SQLite; for tests and comparisons).
USE_COPY = True

json_string = json.encoder.encode_basestring_ascii
"""``json.dumps(value)`` for one string: json's own (C) quoting and escaping."""


def json_list_of_strings(values: Sequence[str]) -> str:
    """``json.dumps(list(values))`` for a list of strings (tokens, tags), as the same text, ~5x faster."""
    return "[" + ", ".join(map(json_string, values)) + "]" if values else "[]"


_pauses = 0  # blocks running now, on any thread
_enabled_before = False
_pauses_lock = threading.Lock()


@contextmanager
def cycle_collection_paused() -> Iterator[None]:
    """Python's cycle collector off while a whole project is read and written: it would otherwise scan
    every live record again and again as they accumulate (~6 s of CPU in a ~20 s paper-scale import).
    The records hold no cycles; what cyclic garbage a block leaves is collected once the last block
    ends, and the collector is on again if it was on before the first began."""
    global _pauses, _enabled_before
    with _pauses_lock:
        if _pauses == 0:
            _enabled_before = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _pauses_lock:
            _pauses -= 1
            if _pauses == 0 and _enabled_before:
                gc.enable()


_SQLITE_DATETIME_FORMAT = "%(year)04d-%(month)02d-%(day)02d %(hour)02d:%(minute)02d:%(second)02d.%(microsecond)06d"


def _sqlite_datetime(process: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """SQLAlchemy's SQLite DATETIME text (``_SQLITE_DATETIME_FORMAT``) of a naive datetime by ``isoformat``,
    the same text in C; anything else goes to SQLAlchemy's own ``process``."""
    def fast(value: Any) -> Any:
        if value.__class__ is datetime and value.tzinfo is None:
            return value.isoformat(" ", "microseconds")
        return process(value)

    return fast


def _from_json_text(process: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda text: process(None if text is None else json.loads(text))


def _chunks(rows: Iterable[Sequence[Any]], size: int) -> Iterator[list[Sequence[Any]]]:
    it = iter(rows)
    while chunk := list(islice(it, size)):
        yield chunk


def _json_serializer(dialect: Dialect, column_type: JSON) -> Callable[[Any], Any]:
    """The text a JSON column stores for a value, as SQLAlchemy's JSON type writes it (an SQL NULL for
    None when the type says ``none_as_null``)."""
    dumps = getattr(dialect, "_json_serializer", None) or json.dumps
    if column_type.none_as_null:
        return lambda value: None if value is None else dumps(value)
    return dumps


def insert_rows(session: Session | Connection, model: Any, columns: Sequence[str], rows: Iterable[Sequence[Any]],
                chunk: int = CHUNK, json_text: Collection[str] = ()) -> int:
    """Insert ``rows`` (tuples in the order of ``columns``) into ``model``'s table; returns the count.
    Columns left out get no Python-side default: name every column that needs a value. ``json_text``:
    JSON columns whose values are their stored text already (``json_list_of_strings``)."""
    table = getattr(model, "__table__", model)
    if table.name in RULED_TABLES:  # no listener sees these rows: the write rules are called here
        rows = rows if isinstance(rows, list) else list(rows)
        check_rows(session, table.name, columns, rows)
    connection = session if isinstance(session, Connection) else session.connection()
    dialect = connection.dialect
    if USE_COPY and dialect.name == "postgresql" and dialect.driver == "psycopg":
        return _copy_rows(connection, table, columns, rows, json_text)
    compiled = insert(table).values({c: bindparam(c, type_=table.c[c].type) for c in columns}).compile(dialect=dialect)
    native_json = dialect.name == "sqlite"  # its JSON bind processor is the serializer and nothing else
    per_value: list[tuple[int, Callable[[Any], Any]]] = []  # JSON: every value is its own
    per_distinct: list[tuple[int, Callable[[Any], Any]]] = []  # the rest: mostly a few values
    for i, name in enumerate(columns):
        column_type = table.c[name].type
        impl = column_type.dialect_impl(dialect)
        process = impl.bind_processor(dialect)
        if isinstance(column_type, JSON):
            if native_json:
                if name not in json_text:
                    per_value.append((i, _json_serializer(dialect, column_type)))
                continue
            if name in json_text and process is not None:  # the dialect wraps values itself: the value again
                process = _from_json_text(process)
        if process is not None and getattr(impl, "_storage_format", None) == _SQLITE_DATETIME_FORMAT:
            process = _sqlite_datetime(process)
        if process is not None:
            (per_value if isinstance(column_type, JSON) else per_distinct).append((i, process))
    if compiled.positional:  # the statement lists the table's columns in table order
        where = {name: i for i, name in enumerate(columns)}
        order = [where[name] for name in compiled.positiontup]
    send = _sender(connection, compiled.string, len(columns)) if dialect.name == "sqlite" and compiled.positional \
        else (lambda params: connection.exec_driver_sql(compiled.string, params))
    count = 0
    for batch in _chunks(rows, chunk):
        if per_value or per_distinct or not compiled.positional or order != list(range(len(columns))):
            values = list(zip(*batch))  # a column at a time: the conversions run in C where they can
            for i, process in per_value:
                values[i] = list(map(process, values[i]))
            for i, process in per_distinct:
                converted = {value: process(value) for value in set(values[i])}
                values[i] = list(map(converted.__getitem__, values[i]))
            if compiled.positional:
                params = list(zip(*(values[i] for i in order)))
            else:
                params = [dict(zip(columns, row)) for row in zip(*values)]
        else:
            params = batch
        send(params)
        count += len(batch)
    return count


#: Rows per INSERT statement on SQLite (``VALUES (...), (...), ...``), within its oldest limit of 999
#: parameters: one statement per row re-runs its set-up for every row, and a CHECK ... IN (a, b, c)
#: builds its list again each time (half the time SQLite spent on a paper-scale import's revisions).
ROWS_PER_STATEMENT = 100
_SQLITE_MAX_PARAMETERS = 999


def _sender(connection: Connection, statement: str, width: int) -> Callable[[list], None]:
    """Send positional rows to SQLite several to a statement; the rows left over one to a statement."""
    head, values, group = statement.rpartition(" VALUES ")
    per = max(1, min(ROWS_PER_STATEMENT, _SQLITE_MAX_PARAMETERS // max(width, 1)))
    if not values or not (group.startswith("(") and group.endswith(")")) or per == 1:
        return lambda params: connection.exec_driver_sql(statement, params)
    several = f"{head} VALUES {', '.join([group] * per)}"

    def send(params: list) -> None:
        whole = len(params) - len(params) % per
        if whole:
            flat = chain.from_iterable
            connection.exec_driver_sql(several, [tuple(flat(params[i:i + per])) for i in range(0, whole, per)])
        if whole < len(params):
            connection.exec_driver_sql(statement, params[whole:])

    return send


def _copy_rows(connection: Connection, table: Any, columns: Sequence[str], rows: Iterable[Sequence[Any]],
               json_text: Collection[str]) -> int:
    """``COPY table (columns) FROM STDIN`` on the session's own psycopg connection (its transaction).
    psycopg writes datetimes, booleans, numbers and NULLs itself; JSON goes in as its text."""
    dialect = connection.dialect
    preparer = dialect.identifier_preparer
    serialize = {
        i: _json_serializer(dialect, table.c[name].type) for i, name in enumerate(columns)
        if isinstance(table.c[name].type, JSON) and name not in json_text
    }
    statement = (f"COPY {preparer.format_table(table)} ({', '.join(preparer.quote(c) for c in columns)}) "
                 "FROM STDIN")
    count = 0
    driver = connection.connection.driver_connection
    with driver.cursor() as cursor, cursor.copy(statement) as copy:
        for batch in _chunks(rows, CHUNK):
            if serialize:
                values = list(zip(*batch))
                for i, process in serialize.items():
                    values[i] = list(map(process, values[i]))
                batch = list(zip(*values))
            for row in batch:
                copy.write_row(row)
            count += len(batch)
    return count
