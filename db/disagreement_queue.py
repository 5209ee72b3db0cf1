"""The adjudication queue, read: which complete items' annotators disagree, worst first, each with its
versions side by side and its gold in force (``corpus.gold.in_force``, read through ``db.gold``), and every
decision kept for an item.

The readers of ``db.adjudication`` (the service that writes the decisions), apart from it so that other
readers (``db.work_queue``'s count of the lead's open disagreements) take them without importing a service.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine, Text, cast, func, select
from sqlalchemy.orm import Session

from corpus.bio import tags_agree, tags_to_spans, token_disagreement
from corpus.gold import AUTOMATIC_SOURCES, Gold
from db.engine import reader
from db.gold import ItemState, among, item_states, project_annotators_per_item, read_gold_in_force
from db.models import Adjudication, Annotation, SourceSentence, TaggingItem, Translation, User, utcnow

# A statement with ids written in (``db.gold.among``) is not kept in the engine's compiled cache: each list
# of ids is a statement of its own, and would crowd out the ones worth keeping.
_ONCE = {"compiled_cache": None}


@dataclass(frozen=True)
class AnnotatorVersion:
    annotation_id: int
    annotator: str
    tags: list[str]
    no_aspects: bool
    submitted_at: datetime | None
    updated_at: datetime | None

    @property
    def spans(self) -> list[tuple[int, int]]:
        return tags_to_spans(self.tags)


@dataclass(frozen=True)
class GoldDecision:
    id: int | None
    item_id: int
    tags: list[str] | None  # None only for a withdrawal
    source: str  # corpus.gold.SOURCES: agreed, single, accepted, edited, withdrawn
    accepted_annotation_id: int | None
    decided_by: str | None  # None for the automatic rule
    note: str | None
    created_at: datetime
    # ``id`` is None for the automatic rule's gold not written yet (``corpus.gold.Gold``); its
    # ``created_at`` is then the latest submission it rests on.

    @property
    def spans(self) -> list[tuple[int, int]]:
        return tags_to_spans(self.tags) if self.tags is not None else []


@dataclass(frozen=True)
class QueueEntry:
    item_id: int
    translation_id: int
    sentence_key: str
    phase: str
    translator: str
    tokens: list[str]
    versions: list[AnnotatorVersion]
    disagreement: float  # share of tokens on which annotators differ
    gold: GoldDecision | None
    resolved: bool


@dataclass(frozen=True)
class Disagreement:
    """One line of the queue: a ``QueueEntry`` without its tokens, versions and gold."""

    item_id: int
    sentence_key: str
    phase: str
    translator: str
    disagreement: float
    resolved: bool


def decision_of(row: Adjudication, users: dict[int, str]) -> GoldDecision:
    """A stored decision as the page shows it (``users``: ``usernames``); also what a lead's decision returns."""
    return GoldDecision(row.id, row.item_id, None if row.tags is None else list(row.tags), row.source,
                        row.accepted_annotation_id,
                        users.get(row.decided_by) if row.decided_by else None, row.note, row.created_at)


def usernames(session: Session) -> dict[int, str]:
    """user id → username, read once for a whole queue."""
    return dict(session.execute(select(User.id, User.username)).all())


def project_of_item(session: Session, item_id: int) -> int | None:
    """The project of a tagging item (None: no such item)."""
    return session.scalar(
        select(SourceSentence.project_id)
        .join(Translation, Translation.sentence_id == SourceSentence.id)
        .join(TaggingItem, TaggingItem.translation_id == Translation.id)
        .where(TaggingItem.id == item_id)
    )


def _versions_of(session: Session, users: dict[int, str], states: list[ItemState]) -> dict[int, list[AnnotatorVersion]]:
    """item id → its submitted versions side by side, in the order they were submitted: the annotations'
    dates and answers of every item in one query, not one per item."""
    wanted = [a for s in states for a in s.annotation_ids]
    rows = {row[0]: row for row in session.execute(
        select(Annotation.id, Annotation.no_aspects, Annotation.submitted_at, Annotation.updated_at)
        .where(among(Annotation.id, wanted)), execution_options=_ONCE)} if wanted else {}
    by_item = {}
    for state in states:
        versions = [
            AnnotatorVersion(annotation_id, users.get(annotator, "?"), list(tags), rows[annotation_id][1],
                             rows[annotation_id][2], rows[annotation_id][3])
            for annotation_id, annotator, tags in zip(state.annotation_ids, state.annotators, state.versions)
        ]
        by_item[state.item_id] = sorted(
            versions, key=lambda v: (v.submitted_at is None, v.submitted_at or datetime.min, v.annotation_id))
    return by_item


def _decisions_by_id(session: Session, users: dict[int, str], ids: list[int]) -> dict[int, GoldDecision]:
    if not ids:
        return {}
    return {row.id: decision_of(row, users) for row in session.execute(
        select(Adjudication.id, Adjudication.item_id, Adjudication.tags, Adjudication.source,
               Adjudication.accepted_annotation_id, Adjudication.decided_by, Adjudication.note,
               Adjudication.created_at).where(among(Adjudication.id, ids)), execution_options=_ONCE)}


def _gold_decisions(session: Session, users: dict[int, str], golds: dict[int, Gold | None],
                    versions: dict[int, list[AnnotatorVersion]]) -> dict[int, GoldDecision | None]:
    """item id → the gold in force as the page shows it: the stored decision that carries it, or the
    automatic rule's gold not written yet (no id; dated by the latest submission it rests on)."""
    stored = _decisions_by_id(session, users, [g.decision_id for g in golds.values()
                                               if g is not None and g.decision_id is not None])
    shown: dict[int, GoldDecision | None] = {}
    for item_id, gold in golds.items():
        if gold is None:
            shown[item_id] = None
        elif gold.decision_id is not None:
            shown[item_id] = stored[gold.decision_id]
        else:
            moment = max((v.submitted_at for v in versions[item_id] if v.submitted_at), default=None) or utcnow()
            shown[item_id] = GoldDecision(None, item_id, list(gold.tags), gold.source, None, None, None, moment)
    return shown


def gold_shown(session: Session, state: ItemState, gold: Gold | None) -> GoldDecision | None:
    """One item's gold in force as the page shows it (``_gold_decisions``): what a lead's refused decision
    (``db.adjudication.StaleDecision``) carries."""
    users = usernames(session)
    versions = _versions_of(session, users, [state])[state.item_id]
    return _gold_decisions(session, users, {state.item_id: gold}, {state.item_id: versions})[state.item_id]


def _settled(source: str | None, decided_at: datetime | None, newest_edit: datetime | None) -> bool:
    """Whether a lead need not look at a disagreement again: it has gold (``source`` None: none), automatic
    or decided at or after the annotators' last edit."""
    if source is None:
        return False
    return source in AUTOMATIC_SOURCES or newest_edit is None or newest_edit <= decided_at


def _newest_edit(versions: list[AnnotatorVersion]) -> datetime | None:
    return max((v.updated_at for v in versions if v.updated_at), default=None)


def _entries(session: Session, users: dict[int, str], states: list[ItemState], k: int) -> list[QueueEntry]:
    """Items side by side: their annotators' versions, and their gold in force (``corpus.gold.in_force``),
    read for all of them at once."""
    details = _item_details(session, [s.item_id for s in states])
    versions = _versions_of(session, users, states)
    shown = _gold_decisions(session, users, {s.item_id: s.gold(k) for s in states}, versions)
    entries = []
    for state in states:
        tokens, sentence_key, phase, translator_id = details[state.item_id]
        mine, decision = versions[state.item_id], shown[state.item_id]
        entries.append(QueueEntry(
            item_id=state.item_id, translation_id=state.translation_id, sentence_key=sentence_key, phase=phase,
            translator=users.get(translator_id, "?"), tokens=list(tokens), versions=mine,
            disagreement=token_disagreement([v.tags for v in mine]), gold=decision,
            resolved=_settled(decision.source if decision is not None else None,
                              decision.created_at if decision is not None else None, _newest_edit(mine)),
        ))
    return entries


def _item_details(session: Session, item_ids: list[int]) -> dict[int, tuple]:
    """item id → (tokens, "domain/split/id", phase, translator id), in one query."""
    if not item_ids:
        return {}
    return {
        item_id: (json.loads(tokens), f"{domain}/{split}/{sid}", phase, translator_id)
        for item_id, tokens, domain, split, sid, phase, translator_id in session.execute(
            select(TaggingItem.id, cast(TaggingItem.tokens, Text), SourceSentence.domain, SourceSentence.split,
                   SourceSentence.sentence_id, Translation.phase, Translation.translator_id)
            .join(Translation, TaggingItem.translation_id == Translation.id)
            .join(SourceSentence, Translation.sentence_id == SourceSentence.id)
            .where(among(TaggingItem.id, item_ids)), execution_options=_ONCE)
    }


def _disagreeing(session: Session, project_id: int) -> list[ItemState]:
    """Complete items whose annotators disagree: the rule's reader (``db.gold``) asked only for items whose
    stored versions differ, then the test itself on what it read."""
    return [
        s for s in item_states(session, project_id, differing_only=True).values()
        if len(s.versions) >= 2 and s.complete and not tags_agree(s.versions)
    ]


def disagreement_queue(engine: Engine, project_id: int, include_resolved: bool = False) -> list[QueueEntry]:
    """Complete items whose annotators disagree, worst (most differing tokens) first."""
    with Session(reader(engine)) as session:
        users = usernames(session)
        entries = _entries(session, users, _disagreeing(session, project_id),
                           project_annotators_per_item(session, project_id))
    entries = [e for e in entries if include_resolved or not e.resolved]
    entries.sort(key=lambda e: (-e.disagreement, e.item_id))
    return entries


def _labels(session: Session, item_ids: list[int]) -> dict[int, tuple[str, str, int]]:
    """item id → ("domain/split/id", phase, translator id), in one query."""
    if not item_ids:
        return {}
    return {
        item_id: (f"{domain}/{split}/{sid}", phase, translator_id)
        for item_id, domain, split, sid, phase, translator_id in session.execute(
            select(TaggingItem.id, SourceSentence.domain, SourceSentence.split, SourceSentence.sentence_id,
                   Translation.phase, Translation.translator_id)
            .join(Translation, TaggingItem.translation_id == Translation.id)
            .join(SourceSentence, Translation.sentence_id == SourceSentence.id)
            .where(among(TaggingItem.id, item_ids)), execution_options=_ONCE)
    }


def _settled_items(session: Session, project_id: int, states: list[ItemState]) -> dict[int, bool]:
    """item id → ``_settled``, reading of each item only what it looks at: its gold's source, when that was
    decided and the versions' latest edit (not the decisions and versions themselves)."""
    k = project_annotators_per_item(session, project_id)
    golds = {s.item_id: s.gold(k) for s in states}
    stored = {g.decision_id for g in golds.values() if g is not None and g.decision_id is not None}
    decided_at = dict(session.execute(
        select(Adjudication.item_id, Adjudication.created_at).where(among(Adjudication.id, stored)),
        execution_options=_ONCE).all()) if stored else {}
    asked = [a for s in states if s.item_id in decided_at for a in s.annotation_ids]
    newest = dict(session.execute(
        select(Annotation.item_id, func.max(Annotation.updated_at)).where(among(Annotation.id, asked))
        .group_by(Annotation.item_id), execution_options=_ONCE).all()) if asked else {}
    return {item_id: _settled(gold.source if gold is not None else None, decided_at.get(item_id), newest.get(item_id))
            for item_id, gold in golds.items()}


def disagreements(engine: Engine, project_id: int) -> list[Disagreement]:
    """The items of ``disagreement_queue(..., include_resolved=True)`` in its order, each as one line
    (which item, how much differs, settled or not), without their tokens, versions and decisions: what
    the Adjudication page lists; it reads the whole entry (``item_entry``) of the one item it opens."""
    with Session(reader(engine)) as session:
        users = usernames(session)
        states = _disagreeing(session, project_id)
        settled = _settled_items(session, project_id, states)
        labels = _labels(session, [s.item_id for s in states])
    lines = []
    for state in states:
        sentence_key, phase, translator_id = labels[state.item_id]
        lines.append(Disagreement(
            item_id=state.item_id, sentence_key=sentence_key, phase=phase, translator=users.get(translator_id, "?"),
            disagreement=token_disagreement(state.versions), resolved=settled[state.item_id],
        ))
    lines.sort(key=lambda d: (-d.disagreement, d.item_id))
    return lines


def open_disagreement_count(engine: Engine, project_id: int) -> int:
    """How many entries ``disagreement_queue`` holds (decided ones left out): what the lead's Home counts."""
    with Session(reader(engine)) as session:
        states = _disagreeing(session, project_id)
        return sum(1 for settled in _settled_items(session, project_id, states).values() if not settled)


def item_entry(engine: Engine, item_id: int) -> QueueEntry:
    with Session(reader(engine)) as session:
        project = project_of_item(session, item_id)
        if project is None:
            raise ValueError(f"no tagging item {item_id}")
        state = item_states(session, project, [item_id])[item_id]
        return _entries(session, usernames(session), [state], project_annotators_per_item(session, project))[0]


def decisions(engine: Engine, item_id: int) -> list[GoldDecision]:
    """Every decision for an item, oldest first; the last one is in force."""
    with Session(reader(engine)) as session:
        users = usernames(session)
        rows = session.scalars(select(Adjudication).where(Adjudication.item_id == item_id).order_by(Adjudication.id))
        return [decision_of(r, users) for r in rows]


def gold_count(engine: Engine, project_id: int) -> tuple[int, int]:
    """(items with gold in force, tagging items) in the project."""
    with Session(reader(engine)) as session:
        items = read_gold_in_force(session, project_id)
        return sum(1 for i in items.values() if i.gold is not None), len(items)


def tagging_stamp(engine: Engine, project_id: int) -> tuple:
    """Changes whenever anything the queue and the automatic rule read changes: every save and every
    change of who is assigned to tag what (a reassignment changes which items are complete); the
    dashboard's fingerprint (``db.metrics_data.latest_save``) covers both."""
    from db.metrics_data import latest_save

    return latest_save(engine, project_id)
