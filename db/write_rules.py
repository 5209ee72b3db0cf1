"""The independence rule on every path that writes a tagging assignment, including set-based inserts.

The rule itself is ``corpus.assignment.tagging_refusal`` (a person who translates a sentence, in either
phase, never tags their own or a colleague's translation of it). Services call it before they write
(``db.tagging`` when it hands out items, ``db.workfile`` when it plans an import, with a located error);
this module is the backstop that holds whatever the caller did, on two paths:

- every statement SQLAlchemy sends: one ``before_execute`` listener on the ``Engine`` class sees the INSERTs
  and UPDATEs of the tagging assignments whoever built them: a session's flush of ORM objects (new ones, or
  one moved onto another user), ``session.execute(insert(AnnotationAssignment), rows)``, ``update(...)``
  statements, and Core ``connection.execute(...)``. An UPDATE is checked against the rows its WHERE matches;
  what cannot be checked (an INSERT from a SELECT, a user or translation given as an SQL expression) is
  refused;
- ``db.bulk.insert_rows`` (multi-row INSERTs as driver SQL, COPY on PostgreSQL, which no listener sees): it
  calls ``check_rows`` itself before it sends a row.

The listener is a Core one, and the rule reads two tables by name (``translations``,
``translation_assignments``): neither this module nor ``install`` imports the ORM or ``db.models``, so a
command that maps no rows starts without them. ``install()``, which ``db.engine.make_engine`` calls,
registers it: explicitly, once per process, rather than as a side effect of importing a module. A refused
write raises ``OwnTranslation`` naming the rule; the caller's transaction rolls back.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, Insert, String, Update, column, event, select, table
from sqlalchemy.sql.elements import BindParameter

from corpus.assignment import tagging_refusal
from corpus.vocabulary import Status

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

#: The tagging assignments' table (``db.models.AnnotationAssignment``; tests/db/test_write_rules.py checks
#: that these names are the models').
TABLE = "annotation_assignments"
#: Tables whose rows ``db.bulk.insert_rows`` passes through ``check_rows`` before it sends them.
RULED_TABLES = frozenset({TABLE})
#: The columns the rule reads, by name: enough to query, no mapping.
TRANSLATIONS = table("translations", column("id"), column("translator_id"), column("sentence_id"))
TRANSLATION_ASSIGNMENTS = table("translation_assignments", column("user_id"), column("sentence_id"),
                                column("status", String))
_MOVED = ("user_id", "translation_id")
_CHUNK = 500
#: More translations than this in one check: the two small tables are read whole (one scan each).
_READ_WHOLE = 5000


class OwnTranslation(ValueError):
    """An annotator was about to be given a translation they may not tag (their own, or a colleague's
    translation of a sentence they translate): nothing is written."""


def refusals(connection: Connection, pairs: Iterable[tuple[int | None, int | None]]) -> list[tuple[int, int, str]]:
    """(user, translation, why) for every (user, translation) pair the independence rule refuses, reading
    the translations' translators and every translator of their sentences in the connection's transaction."""
    pairs = [(user, translation) for user, translation in pairs if user is not None and translation is not None]
    if not pairs:
        return []
    ids = sorted({translation for _, translation in pairs})
    t, ta = TRANSLATIONS.c, TRANSLATION_ASSIGNMENTS.c
    of_translation = {
        tid: (translator, sentence) for tid, translator, sentence in _rows_for(
            connection, ids, select(t.id, t.translator_id, t.sentence_id), t.id)
    }
    sentences = sorted({sentence for _, sentence in of_translation.values()})
    translators: dict[int, set[int]] = defaultdict(set)
    for user, sentence in [
        *_rows_for(connection, sentences, select(t.translator_id, t.sentence_id), t.sentence_id),
        *_rows_for(connection, sentences, select(ta.user_id, ta.sentence_id)
                   .where(ta.status != Status.REASSIGNED.value), ta.sentence_id),
    ]:
        translators[sentence].add(user)
    out = []
    for user, translation in pairs:
        found = of_translation.get(translation)
        if found is None:
            continue  # no such translation: the foreign key refuses it
        translator, sentence = found
        why = tagging_refusal(user, translator, translators.get(sentence, frozenset()))
        if why is not None:
            out.append((user, translation, why))
    return out


def _rows_for(connection: Connection, ids: Sequence[int], statement, column) -> list:  # noqa: ANN001
    """The rows of ``statement`` whose ``column`` is one of ``ids``: by IN lists of a few hundred, or by
    one scan of the table when there are many ids (an import of a whole project)."""
    if len(ids) > _READ_WHOLE:
        wanted = set(ids)
        at = [c.key for c in statement.selected_columns].index(column.key)
        return [row for row in connection.execute(statement).all() if row[at] in wanted]
    rows: list = []
    for i in range(0, len(ids), _CHUNK):
        rows.extend(connection.execute(statement.where(column.in_(ids[i:i + _CHUNK]))).all())
    return rows


def refuse(connection: Connection, pairs: Iterable[tuple[int | None, int | None]]) -> None:
    """``OwnTranslation`` naming the rule and the first refused pair if the rule refuses any pair."""
    found = refusals(connection, pairs)
    if found:
        user, translation, why = found[0]
        more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
        raise OwnTranslation(f"user {user} may not tag translation {translation}: {why}{more}")


def check_rows(session: Session, table_name: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """The rule over rows about to be inserted into ``table_name`` (tuples in the order of ``columns``):
    ``db.bulk.insert_rows`` calls it for every table; only tagging assignments have a rule."""
    if table_name != TABLE or not rows:
        return
    user, translation = columns.index("user_id"), columns.index("translation_id")
    refuse(session.connection(), ((row[user], row[translation]) for row in rows))


# ------------------------------------------------------------------ the listener


class _Unchecked(Exception):
    """A value the listener cannot know before the statement runs (an SQL expression)."""


def _value(value: Any, row: Mapping[str, Any]) -> Any:
    """A statement's value for a column as the database will get it: a bound value (or the row's
    parameter of that name), a plain value; anything else is an SQL expression: ``_Unchecked``."""
    if isinstance(value, BindParameter):
        return row[value.key] if value.key in row else value.effective_value
    if hasattr(value, "__clause_element__") or hasattr(value, "_compiler_dispatch"):
        raise _Unchecked
    return value


def _rows(statement: Insert | Update, multiparams: Sequence[Mapping[str, Any]], params: Mapping[str, Any]
          ) -> list[dict[str, Any]]:
    """The statement's rows: each parameter set with the statement's own ``values(...)`` over it, or the
    rows of a multi-row ``values([...])``; the tagging columns' values resolved (``_value``)."""
    given = [dict(p) for p in multiparams] or ([dict(params)] if params else [])
    fixed = {getattr(k, "key", k): v for k, v in (getattr(statement, "_values", None) or {}).items()}
    multi = [{getattr(k, "key", k): v for k, v in row.items()}
             for group in getattr(statement, "_multi_values", None) or () for row in group if isinstance(row, Mapping)]
    rows = multi or [{**row, **fixed} for row in given] or ([fixed] if fixed else [])
    for row in rows:
        for name in _MOVED:
            if name in row:
                row[name] = _value(row[name], row)
    return rows


def _moved(connection: Connection, statement: Update, rows: list[dict[str, Any]]) -> list[tuple[Any, Any]]:
    """(user, translation) of every row an UPDATE that sets either column leaves: the rows its WHERE
    matches (per parameter set), read before it runs, with the new values over the stored ones."""
    target = statement.table
    current = select(target.c.id, target.c.user_id, target.c.translation_id)
    if statement.whereclause is not None:
        current = current.where(statement.whereclause)
    pairs = []
    for row in rows:
        binds = {name: value for name, value in row.items() if not hasattr(value, "_compiler_dispatch")}
        for _, user, translation in connection.execute(current, binds):
            pairs.append((row.get("user_id", user), row.get("translation_id", translation)))
    return pairs


def _before_execute(connection: Connection, statement: Any, multiparams: Any, params: Any,
                    _execution_options: Any) -> None:
    """Every INSERT and UPDATE of the tagging assignments, whoever built it, passes the rule first."""
    if not isinstance(statement, (Insert, Update)) or getattr(statement.table, "name", None) != TABLE:
        return
    if isinstance(statement, Insert) and statement.select is not None:
        raise OwnTranslation(f"an INSERT into {TABLE} from a SELECT bypasses the independence rule; "
                             "insert the rows as values")
    try:
        rows = _rows(statement, multiparams or (), params or {})
    except _Unchecked:
        raise OwnTranslation(f"a {TABLE} user or translation given as an SQL expression cannot be checked "
                             "by the independence rule; give the values") from None
    if isinstance(statement, Insert):
        refuse(connection, ((row.get("user_id"), row.get("translation_id")) for row in rows))
    elif any(name in row for row in rows for name in _MOVED):
        refuse(connection, _moved(connection, statement, rows or [{}]))


_installed = False
_lock = threading.Lock()


def install() -> None:
    """Register the listener on every engine of the process (again: nothing more happens)."""
    global _installed
    with _lock:
        if _installed:
            return
        event.listen(Engine, "before_execute", _before_execute)
        _installed = True
