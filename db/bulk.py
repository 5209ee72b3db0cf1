"""Set-based inserts at the driver's speed, for restores of a whole project.

``session.execute(insert(Model), list_of_dicts)`` is already an executemany, but SQLAlchemy builds and
processes every row's parameters in Python (~15 µs a row); a paper-scale work file writes ~600,000
rows. Here the statement is compiled once for the connection's dialect, each column's bind processor
(JSON to text, datetimes to SQLite's text form, booleans) is applied by hand, and the rows go to the
driver's ``executemany`` in chunks: SQLite's ``executemany``, psycopg's pipelined one on PostgreSQL.
It runs in the caller's transaction; nothing is committed here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import islice
from operator import itemgetter
from typing import Any

from sqlalchemy import JSON, bindparam, insert
from sqlalchemy.orm import Session

#: Rows per executemany: big enough to be fast, small enough that one chunk's rows stay a few MB.
CHUNK = 5000


def _last_value_cached(process: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """A bind processor that reuses its last result for the same object (the one ``now`` of an import)."""
    last: list[Any] = [object(), None]

    def cached(value: Any) -> Any:
        if value is not last[0]:
            last[0], last[1] = value, process(value)
        return last[1]

    return cached


def _chunks(rows: Iterable[Sequence[Any]], size: int) -> Iterator[list[Sequence[Any]]]:
    it = iter(rows)
    while chunk := list(islice(it, size)):
        yield chunk


def _processed(row: Sequence[Any], processed: list[tuple[int, Callable[[Any], Any]]]) -> tuple[Any, ...]:
    row = list(row)
    for i, process in processed:
        row[i] = process(row[i])
    return tuple(row)


def insert_rows(session: Session, model: Any, columns: Sequence[str], rows: Iterable[Sequence[Any]],
                chunk: int = CHUNK) -> int:
    """Insert ``rows`` (tuples in the order of ``columns``) into ``model``'s table; returns the count.
    Columns left out get no Python-side default: name every column that needs a value."""
    table = getattr(model, "__table__", model)
    connection = session.connection()
    dialect = connection.dialect
    compiled = insert(table).values({c: bindparam(c, type_=table.c[c].type) for c in columns}).compile(dialect=dialect)
    processors = []
    for name in columns:
        process = table.c[name].type.dialect_impl(dialect).bind_processor(dialect)
        if process is not None and not isinstance(table.c[name].type, JSON):
            process = _last_value_cached(process)  # datetimes, booleans: mostly one value per import
        processors.append(process)
    processed = [(i, p) for i, p in enumerate(processors) if p is not None]
    if compiled.positional:  # the statement lists the table's columns in table order
        where = {name: i for i, name in enumerate(columns)}
        order = [where[name] for name in compiled.positiontup]
        arrange = None if order == list(range(len(columns))) else itemgetter(*order, *order)  # >= 2 fields
        width = len(order)
    count = 0
    for batch in _chunks(rows, chunk):
        if processed:
            batch = [_processed(row, processed) for row in batch]
        if not compiled.positional:
            params = [dict(zip(columns, row)) for row in batch]
        elif arrange is not None:
            params = [arrange(row)[:width] for row in batch]
        else:
            params = batch
        connection.exec_driver_sql(compiled.string, params)
        count += len(batch)
    return count
