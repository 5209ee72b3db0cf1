"""The independence rule on every path that writes a tagging assignment, including set-based inserts.

The rule itself is ``corpus.assignment.tagging_refusal`` (a person who translates a sentence, in either
phase, never tags their own or a colleague's translation of it). Services call it before they write
(``db.tagging`` when it hands out items, ``db.workfile`` when it plans an import, with a located error);
this module is the backstop that holds whatever the caller did, on three paths:

- ORM objects (``session.add(AnnotationAssignment(...))``, moving one onto another user): a ``before_flush``
  listener;
- statements run through a session (``session.execute(insert(AnnotationAssignment), rows)``): a
  ``do_orm_execute`` listener, which the flush never sees;
- ``db.bulk.insert_rows`` (multi-row INSERTs, COPY on PostgreSQL, which no listener sees): it calls
  ``check_rows`` itself before it sends a row.

The listeners are registered by ``install()``, which ``db.engine.make_engine`` calls: explicitly, once per
process, rather than as a side effect of importing a module. A refused write raises ``OwnTranslation``
naming the rule; the caller's transaction rolls back.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import event, inspect, select
from sqlalchemy.orm import ORMExecuteState, Session

from corpus.assignment import tagging_refusal
from corpus.vocabulary import Status
from db.models import AnnotationAssignment, Translation, TranslationAssignment

TABLE = AnnotationAssignment.__tablename__
#: Tables whose rows ``db.bulk.insert_rows`` passes through ``check_rows`` before it sends them.
RULED_TABLES = frozenset({TABLE})
_CHUNK = 500
#: More translations than this in one check: the two small tables are read whole (one scan each).
_READ_WHOLE = 5000


class OwnTranslation(ValueError):
    """An annotator was about to be given a translation they may not tag (their own, or a colleague's
    translation of a sentence they translate): nothing is written."""


def refusals(session: Session, pairs: Iterable[tuple[int | None, int | None]]) -> list[tuple[int, int, str]]:
    """(user, translation, why) for every (user, translation) pair the independence rule refuses, reading
    the translations' translators and every translator of their sentences in the session's transaction."""
    pairs = [(user, translation) for user, translation in pairs if user is not None and translation is not None]
    if not pairs:
        return []
    ids = sorted({translation for _, translation in pairs})
    with session.no_autoflush:
        of_translation = {
            tid: (translator, sentence) for tid, translator, sentence in _rows_for(
                session, ids, select(Translation.id, Translation.translator_id, Translation.sentence_id),
                Translation.id)
        }
        sentences = sorted({sentence for _, sentence in of_translation.values()})
        translators: dict[int, set[int]] = defaultdict(set)
        for user, sentence in [
            *_rows_for(session, sentences, select(Translation.translator_id, Translation.sentence_id),
                       Translation.sentence_id),
            *_rows_for(session, sentences, select(TranslationAssignment.user_id, TranslationAssignment.sentence_id)
                       .where(TranslationAssignment.status != Status.REASSIGNED), TranslationAssignment.sentence_id),
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


def _rows_for(session: Session, ids: Sequence[int], statement, column) -> list:  # noqa: ANN001
    """The rows of ``statement`` whose ``column`` is one of ``ids``: by IN lists of a few hundred, or by
    one scan of the table when there are many ids (an import of a whole project)."""
    if len(ids) > _READ_WHOLE:
        wanted = set(ids)
        at = [c.key for c in statement.selected_columns].index(column.key)
        return [row for row in session.connection().execute(statement).all() if row[at] in wanted]
    rows: list = []
    for i in range(0, len(ids), _CHUNK):
        rows.extend(session.connection().execute(statement.where(column.in_(ids[i:i + _CHUNK]))).all())
    return rows


def refuse(session: Session, pairs: Iterable[tuple[int | None, int | None]]) -> None:
    """``OwnTranslation`` naming the rule and the first refused pair if the rule refuses any pair."""
    found = refusals(session, pairs)
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
    refuse(session, ((row[user], row[translation]) for row in rows))


# ------------------------------------------------------------------ the listeners


def _before_flush(session: Session, _flush_context: object, _instances: object) -> None:
    rows = [
        row for row in (*session.new, *session.dirty)
        if isinstance(row, AnnotationAssignment)
        and (row in session.new or _changed(row, "user_id") or _changed(row, "translation_id"))
    ]
    if rows:
        refuse(session, ((row.user_id, row.translation_id) for row in rows))


def _changed(row: AnnotationAssignment, attribute: str) -> bool:
    return inspect(row).attrs[attribute].history.has_changes()


def _parameter_rows(state: ORMExecuteState) -> list[Mapping[str, Any]]:
    params = state.parameters
    rows = list(params) if isinstance(params, (list, tuple)) else [params] if params else []
    values = getattr(state.statement, "_values", None)  # insert(...).values(user_id=..., ...)
    if values:
        fixed = {getattr(k, "key", k): getattr(v, "value", v) for k, v in values.items()}
        rows = [{**fixed, **row} for row in rows] if rows else [fixed]
    multi = getattr(state.statement, "_multi_values", None)  # insert(...).values([{...}, {...}])
    for group in multi or ():
        for row in group:
            if isinstance(row, Mapping):
                rows.append({getattr(k, "key", k): getattr(v, "value", v) for k, v in row.items()})
    return rows


def _on_execute(state: ORMExecuteState) -> None:
    """``session.execute(insert(AnnotationAssignment) ...)`` and updates that move an assignment."""
    if not (state.is_insert or state.is_update):
        return
    table = getattr(state.statement, "table", None)
    if getattr(table, "name", None) != TABLE:
        return
    rows = _parameter_rows(state)
    if state.is_insert:
        refuse(state.session, ((row.get("user_id"), row.get("translation_id")) for row in rows))
    elif any("user_id" in row or "translation_id" in row for row in rows):
        raise OwnTranslation(f"moving a tagging assignment by an UPDATE statement bypasses the independence "
                             f"rule; change the {TABLE} row as an object instead")


_installed = False
_lock = threading.Lock()


def install() -> None:
    """Register the listeners on every ``Session`` of the process (again: nothing more happens)."""
    global _installed
    with _lock:
        if _installed:
            return
        event.listen(Session, "before_flush", _before_flush)
        event.listen(Session, "do_orm_execute", _on_execute)
        _installed = True
