"""Gold in force, read one way for every reader: the adjudication queue, the statistics, the metrics, the
export and the final choice.

What an item's gold is, is decided by ``corpus.gold.in_force`` over what this module reads in bulk: the
item's latest decision (``adjudications``), its submitted versions (``annotations``) and its active
assignees (``annotation_assignments``). So the queue, the figures and the dataset never disagree on gold:
three assignees of whom two submitted the same tags make no gold anywhere, and a withdrawn decision is
no gold anywhere. ``gold_in_force`` is the reader for pages and tools; ``read_gold_in_force`` is the same
reader inside a transaction a ``db`` service already holds (the export reads records and figures in one).
"""

from __future__ import annotations

import json
from collections.abc import Collection
from collections.abc import Set as AbstractSet
from itertools import compress
from operator import itemgetter
from typing import NamedTuple

from sqlalchemy import Engine, Text, cast, func, literal_column, or_, select
from sqlalchemy.orm import Session

from corpus.gold import Gold, GoldStep, ItemGold, in_force
from corpus.vocabulary import INACTIVE_STATUSES, Status
from db.engine import reader
from db.models import (
    Adjudication,
    Annotation,
    AnnotationAssignment,
    Project,
    SourceSentence,
    TaggingItem,
    Translation,
)
from db.rows import fetch, tags_from_json

#: Up to this many items are read by id; more, and the whole project is read and filtered (one scan is
#: cheaper than many IN lists).
_BY_ID = 500
_NOBODY: frozenset[int] = frozenset()


class ItemState:
    """What the rule needs of one tagging item, as plain data: who submitted which tags, who is still
    assigned, and the latest decision (a withdrawal included). Versions are in annotator order; tags are
    one letter per token, or a list where a tag is not B, I or O."""

    __slots__ = (
        "annotation_ids",
        "annotators",
        "assignees",
        "item_id",
        "latest",
        "latest_id",
        "translation_id",
        "versions",
    )

    def __init__(self, item_id: int, translation_id: int, annotation_ids: list[int], annotators: list[int],
                 versions: list, assignees: AbstractSet[int], latest: GoldStep | None, latest_id: int | None) -> None:
        self.item_id = item_id
        self.translation_id = translation_id
        self.annotation_ids = annotation_ids
        self.annotators = annotators
        self.versions = versions  # the submitted tags, one per annotator
        self.assignees = assignees
        self.latest = latest
        self.latest_id = latest_id

    @property
    def complete(self) -> bool:
        """Every active assignee has submitted (gold waits only for them)."""
        return bool(self.annotators) and self.assignees.issubset(self.annotators)

    @property
    def awaited(self) -> int:
        """Active assignees who have not submitted yet."""
        return len(self.assignees.difference(self.annotators))

    def gold(self, annotators_per_item: int) -> Gold | None:
        return in_force(self.latest, self.latest_id, self.versions, self.complete, annotators_per_item)


def _tags(raw: str | None):
    if raw is None:
        return None
    letters = tags_from_json(raw)
    return letters if letters is not None else json.loads(raw)


def project_annotators_per_item(session: Session, project_id: int) -> int:
    return session.scalar(select(Project.annotators_per_item).where(Project.id == project_id)) or 1


def _project_of(session: Session, item_ids: Collection[int]) -> int | None:
    first = next(iter(item_ids), None)
    if first is None:
        return None
    return session.scalar(
        select(SourceSentence.project_id)
        .join(Translation, Translation.sentence_id == SourceSentence.id)
        .join(TaggingItem, TaggingItem.translation_id == Translation.id)
        .where(TaggingItem.id == first)
    )


def item_states(
    session: Session, project_id: int, items: Collection[int] | None = None, decided_only: bool = False,
    differing_only: bool = False, translations: AbstractSet[int] | None = None, and_decided: bool = False,
    submitted: SubmittedColumns | None = None,
) -> dict[int, ItemState]:
    """Every tagging item of the project (or only ``items``, or only those with a decision) with its
    submitted versions, active assignees and latest decision: four queries of plain rows, whatever the
    project's size (a paper-scale project has ~48,000 items and ~95,000 annotations; ORM objects would
    take seconds). The cyclic collector is paused: its passes over the many small lists made here cost
    as much as making them.

    ``differing_only``: only the items with two or more submitted versions whose stored tags are not all
    spelled alike (found in SQL, then read by id). Every other item's versions are one and the same tag
    list, so they agree: a reader of disagreements (the adjudication queue) needs none of them, and at
    paper scale reads ~4,500 items instead of ~48,000. The rule still runs on what is read.

    ``translations``: only the items of these translations (and, ``and_decided``, every item with a decision
    too): the rows are read as for the whole project, but no state is made for the other items (the export's
    final translations are one item in eight).

    ``submitted``: every submitted annotation as the caller read it in this transaction (``SubmittedColumns``):
    the versions are taken from it instead of being read again (the metrics load has read them all)."""
    from corpus.metrics import paused_gc  # here, not at the top: a command that reads no gold imports no numpy

    with paused_gc():
        if differing_only:
            differing = _differing_items(session, project_id)
            items = differing if items is None else sorted(differing.intersection(items))
        return _read_item_states(session, project_id, items, decided_only, always_by_id=differing_only,
                                 translations=translations, and_decided=and_decided, submitted=submitted)


def _differing_items(session: Session, project_id: int) -> set[int]:
    """Items of the project with two or more submitted versions whose stored tags are spelled differently."""
    statement = (
        select(Annotation.item_id).where(Annotation.status == Status.SUBMITTED)
        .group_by(Annotation.item_id)
        .having(func.count() >= 2, func.count(func.distinct(cast(Annotation.tags, Text))) >= 2)
    )
    if session.scalar(select(func.count(Project.id))) != 1:
        statement = statement.where(Annotation.item_id.in_(
            select(TaggingItem.id)
            .join(Translation, TaggingItem.translation_id == Translation.id)
            .join(SourceSentence, Translation.sentence_id == SourceSentence.id)
            .where(SourceSentence.project_id == project_id)))
    return {item_id for (item_id,) in fetch(session.connection(), statement)}


class SubmittedColumns(NamedTuple):
    """Every submitted annotation of the database as columns (one list each, in one order): what a caller that
    has read them all in its transaction hands the gold reader, so it reads none again."""

    ids: list[int]
    translation_ids: list[int]  # the item's translation (an item is one translation's)
    annotator_ids: list[int]
    tags: list[str]  # the stored JSON text


def _versions_of(submitted: SubmittedColumns, translation_of: dict[int, int]) -> list[tuple]:
    """The rows the versions query gives, (item, annotation id, annotator, tags as JSON text) ordered by item
    and annotator, for the items in ``translation_of`` (item -> translation), from columns already read."""
    item_of = {t: i for i, t in translation_of.items()}
    chosen = list(map(item_of.__contains__, submitted.translation_ids))
    return sorted(zip(map(item_of.__getitem__, compress(submitted.translation_ids, chosen)),
                      compress(submitted.ids, chosen), compress(submitted.annotator_ids, chosen),
                      compress(submitted.tags, chosen)), key=itemgetter(0, 2))


def among(column, ids: Collection[int]):
    """``column IN (...)`` with the ids written into the statement: one statement however many ids (a bound
    parameter per id costs more to compile than the query takes, and SQLite caps their number). Safe to
    write in: each id goes through ``int``."""
    return column.op("IN")(literal_column("(" + ",".join(str(int(i)) for i in ids) + ")"))


def _read_item_states(
    session: Session, project_id: int, items: Collection[int] | None, decided_only: bool,
    always_by_id: bool = False, translations: AbstractSet[int] | None = None, and_decided: bool = False,
    submitted: SubmittedColumns | None = None,
) -> dict[int, ItemState]:
    """``always_by_id``: read ``items`` by id however many they are (a set picked in SQL already, a small
    share of the project), instead of scanning the project past ``_BY_ID`` items."""
    wanted = None if items is None else set(items)
    by_id = wanted is not None and (always_by_id or len(wanted) <= _BY_ID)
    if by_id and not wanted:
        return {}
    conn = session.connection()
    if by_id:
        in_project = sorted(wanted)
    elif session.scalar(select(func.count(Project.id))) == 1:
        in_project = None  # one project holds every item: no join (the joins cost more than the rows)
    else:
        in_project = (
            select(TaggingItem.id)
            .join(Translation, TaggingItem.translation_id == Translation.id)
            .join(SourceSentence, Translation.sentence_id == SourceSentence.id)
            .where(SourceSentence.project_id == project_id)
        )
    if decided_only and not by_id:
        decided = select(Adjudication.item_id)
        in_project = decided if in_project is None else in_project.where(TaggingItem.id.in_(decided))
    if translations is not None and not by_id:  # only their items (and the decided ones) are read
        if not translations and not and_decided:
            return {}
        of_translations = among(TaggingItem.translation_id, translations) if translations else None
        if and_decided:
            decided = TaggingItem.id.in_(select(Adjudication.item_id))
            of_translations = decided if of_translations is None else or_(of_translations, decided)
        chosen = select(TaggingItem.id).where(of_translations)
        in_project = chosen if in_project is None else chosen.where(TaggingItem.id.in_(in_project))

    def of_items(statement, column):
        if in_project is None:
            return statement
        return statement.where(among(column, in_project) if by_id else column.in_(in_project))

    translation_of = dict(fetch(conn, of_items(select(TaggingItem.id, TaggingItem.translation_id), TaggingItem.id)))
    if wanted is not None and not by_id:
        translation_of = {i: t for i, t in translation_of.items() if i in wanted}
    if not translation_of:
        return {}

    versions: dict[int, tuple[list, list, list]] = {}
    if submitted is not None:
        rows = _versions_of(submitted, translation_of)
    else:
        rows = fetch(conn, of_items(
            select(Annotation.item_id, Annotation.id, Annotation.annotator_id, cast(Annotation.tags, Text))
            .where(Annotation.status == Status.SUBMITTED), Annotation.item_id)
            .order_by(Annotation.item_id, Annotation.annotator_id))
    if rows:
        item_col, id_col, who_col, raw_col = (list(map(itemgetter(i), rows)) for i in range(4))
        del rows
        parsed = {raw: _tags(raw) for raw in set(raw_col)}  # the same tag list recurs: parse each once
        tags_col = list(map(parsed.__getitem__, raw_col))
        # The rows come grouped by item: cut the columns where the item changes (no per-row Python).
        import numpy as np

        cuts = (np.flatnonzero(np.diff(np.array(item_col, dtype=np.int64))) + 1).tolist()
        versions = {
            item_col[a]: (id_col[a:b], who_col[a:b], tags_col[a:b])
            for a, b in zip([0, *cuts], [*cuts, len(item_col)])
        }

    assigned = (
        select(AnnotationAssignment.translation_id, AnnotationAssignment.user_id)
        .where(AnnotationAssignment.status.not_in(INACTIVE_STATUSES))
    )
    if by_id:
        assigned = assigned.where(among(AnnotationAssignment.translation_id, set(translation_of.values())))
    elif in_project is not None:
        assigned = assigned.where(AnnotationAssignment.translation_id.in_(
            select(TaggingItem.translation_id).where(TaggingItem.id.in_(in_project))))
    assignees: dict[int, set[int]] = {}
    for translation_id, user_id in fetch(conn, assigned):
        assignees.setdefault(translation_id, set()).add(user_id)

    latest_ids = of_items(select(func.max(Adjudication.id)), Adjudication.item_id).group_by(Adjudication.item_id)
    latest: dict[int, tuple[int, GoldStep]] = {
        item_id: (decision_id, GoldStep(source, _tags(raw)))
        for decision_id, item_id, source, raw in fetch(conn, (
            select(Adjudication.id, Adjudication.item_id, Adjudication.source, cast(Adjudication.tags, Text))
            .where(Adjudication.id.in_(latest_ids))
        ))
    }

    no_decision = (None, None)
    states = {}
    for item_id, translation_id in translation_of.items():
        if translations is not None and translation_id not in translations and not (and_decided and item_id in latest):
            continue
        ids, annotators, tags = versions.get(item_id) or ([], [], [])
        decision_id, step = latest.get(item_id, no_decision)
        states[item_id] = ItemState(item_id, translation_id, ids, annotators, tags,
                                    assignees.get(translation_id, _NOBODY), step, decision_id)
    return states


def read_gold_in_force(
    session: Session, project_id: int | None = None, items: Collection[int] | None = None,
    decided_only: bool = False, translations: AbstractSet[int] | None = None, and_decided: bool = False,
    submitted: SubmittedColumns | None = None,
) -> dict[int, ItemGold]:
    """item id → its gold in force (``corpus.gold.in_force``), for the project's items or only ``items``,
    inside the caller's transaction. Without ``project_id``, the project of the items.

    ``decided_only``: only the items with a decision (a lead's, automatic or a withdrawal). An item
    without one has gold only where every version carries the same tags, which then are its gold: a
    reader that already has the versions (the metrics' tag sets) needs no more.

    ``translations``: only the items of these translations (``and_decided``: and every item with a decision),
    read in one pass as for the whole project (``item_states``). ``submitted``: every submitted annotation, read
    by the caller in this transaction (``item_states``)."""
    if project_id is None:
        project_id = _project_of(session, items or ())
        if project_id is None:
            return {}
    k = project_annotators_per_item(session, project_id)
    states = item_states(session, project_id, items, decided_only, translations=translations,
                          and_decided=and_decided, submitted=submitted)
    from corpus.metrics import paused_gc

    with paused_gc():
        return {item_id: ItemGold(item_id, s.translation_id, s.gold(k), s.versions, s.awaited)
                for item_id, s in states.items()}


def gold_in_force(engine: Engine, project_id: int, items: Collection[int] | None = None) -> dict[int, ItemGold]:
    """item id → its gold in force, for the project's tagging items (or only ``items``), read in one
    read-only transaction."""
    with Session(reader(engine)) as session:
        return read_gold_in_force(session, project_id, items)

