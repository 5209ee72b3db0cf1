"""Gold in force, read one way for every reader: the adjudication queue, the statistics, the metrics, the
export and the final choice.

What an item's gold is, is decided by ``corpus.gold.in_force`` over what this module reads in bulk: the
item's latest decision (``adjudications``), its submitted versions (``annotations``) and its active
assignees (``annotation_assignments``). So the queue, the figures and the dataset never disagree on gold:
three assignees of whom two submitted the same tags make no gold anywhere, and a withdrawn decision is
no gold anywhere. ``gold_in_force`` is the reader for pages and tools; ``_gold_in_force`` is the same
reader inside a transaction a ``db`` service already holds (the export reads records and figures in one).
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass, field

from sqlalchemy import Engine, Text, cast, func, select
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


@dataclass
class ItemState:
    """What the rule needs of one tagging item, as plain data: who submitted which tags, who is still
    assigned, and the latest decision (a withdrawal included)."""

    item_id: int
    translation_id: int
    annotation_ids: list[int] = field(default_factory=list)
    annotators: list[int] = field(default_factory=list)
    submitted: list = field(default_factory=list)  # tags per submitted version: letters, or a list if not BIO
    assignees: set[int] = field(default_factory=set)
    latest: GoldStep | None = None
    latest_id: int | None = None

    @property
    def complete(self) -> bool:
        """Every active assignee has submitted (gold waits only for them)."""
        return bool(self.annotators) and self.assignees.issubset(self.annotators)

    @property
    def awaited(self) -> int:
        """Active assignees who have not submitted yet."""
        return len(self.assignees.difference(self.annotators))

    def gold(self, annotators_per_item: int) -> Gold | None:
        return in_force(self.latest, self.latest_id, self.submitted, self.complete, annotators_per_item)


def _tags(raw: str | None):
    if raw is None:
        return None
    letters = tags_from_json(raw)
    return letters if letters is not None else json.loads(raw)


def _annotators_per_item(session: Session, project_id: int) -> int:
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


def _item_states(session: Session, project_id: int, items: Collection[int] | None = None) -> dict[int, ItemState]:
    """Every tagging item of the project (or only ``items``) with its submitted versions, active assignees
    and latest decision: four queries of plain rows, whatever the project's size (a paper-scale project
    has ~48,000 items and ~95,000 annotations; ORM objects would take seconds)."""
    wanted = None if items is None else set(items)
    in_project = (
        select(TaggingItem.id)
        .join(Translation, TaggingItem.translation_id == Translation.id)
        .join(SourceSentence, Translation.sentence_id == SourceSentence.id)
        .where(SourceSentence.project_id == project_id)
    )
    by_id = wanted is not None and len(wanted) <= _BY_ID
    if by_id:
        in_project = in_project.where(TaggingItem.id.in_(sorted(wanted)))
    conn = session.connection()
    states = {
        item_id: ItemState(item_id, translation_id)
        for item_id, translation_id in fetch(
            conn, select(TaggingItem.id, TaggingItem.translation_id).where(TaggingItem.id.in_(in_project)))
        if wanted is None or item_id in wanted
    }
    if not states:
        return states
    for annotation_id, item_id, annotator_id, raw in fetch(conn, (
        select(Annotation.id, Annotation.item_id, Annotation.annotator_id, cast(Annotation.tags, Text))
        .where(Annotation.item_id.in_(in_project), Annotation.status == Status.SUBMITTED)
        .order_by(Annotation.item_id, Annotation.submitted_at, Annotation.id)
    )):
        state = states.get(item_id)
        if state is not None:
            state.annotation_ids.append(annotation_id)
            state.annotators.append(annotator_id)
            state.submitted.append(_tags(raw))
    by_translation = {s.translation_id: s for s in states.values()}
    assigned = (
        select(AnnotationAssignment.translation_id, AnnotationAssignment.user_id)
        .where(AnnotationAssignment.status.not_in(INACTIVE_STATUSES))
    )
    if by_id:
        assigned = assigned.where(AnnotationAssignment.translation_id.in_(sorted(by_translation)))
    else:
        assigned = (assigned.join(Translation, AnnotationAssignment.translation_id == Translation.id)
                    .join(SourceSentence, Translation.sentence_id == SourceSentence.id)
                    .where(SourceSentence.project_id == project_id))
    for translation_id, user_id in fetch(conn, assigned):
        state = by_translation.get(translation_id)
        if state is not None:
            state.assignees.add(user_id)
    latest_ids = (select(func.max(Adjudication.id)).where(Adjudication.item_id.in_(in_project))
                  .group_by(Adjudication.item_id))
    for decision_id, item_id, source, raw in fetch(conn, (
        select(Adjudication.id, Adjudication.item_id, Adjudication.source, cast(Adjudication.tags, Text))
        .where(Adjudication.id.in_(latest_ids))
    )):
        state = states.get(item_id)
        if state is not None:
            state.latest = GoldStep(source, None if raw is None else list(_tags(raw)))
            state.latest_id = decision_id
    return states


def _gold_in_force(
    session: Session, project_id: int | None = None, items: Collection[int] | None = None
) -> dict[int, ItemGold]:
    """item id → its gold in force (``corpus.gold.in_force``), for the project's items or only ``items``,
    inside the caller's transaction. Without ``project_id``, the project of the items."""
    if project_id is None:
        project_id = _project_of(session, items or ())
        if project_id is None:
            return {}
    k = _annotators_per_item(session, project_id)
    return {
        item_id: ItemGold(item_id, s.translation_id, s.gold(k), len(s.submitted), s.awaited)
        for item_id, s in _item_states(session, project_id, items).items()
    }


def gold_in_force(engine: Engine, project_id: int, items: Collection[int] | None = None) -> dict[int, ItemGold]:
    """item id → its gold in force, for the project's tagging items (or only ``items``), read in one
    read-only transaction."""
    with Session(reader(engine)) as session:
        return _gold_in_force(session, project_id, items)

