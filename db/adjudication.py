"""Gold labels: agreed items become gold automatically; a lead resolves the rest, worst first.

``Adjudication`` rows are append-only and the latest row per item is in force, so every decision is
kept with who made it and when. Each decision also writes a revision. Automatic gold follows the
annotators (``corpus.gold``): when their submitted versions stop agreeing it is withdrawn by a later
row, and a withdrawal in force means the item has no gold. A lead decides against the decision they
saw; if another came into force meanwhile, the lead's decision is refused (``StaleDecision``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import NamedTuple

from sqlalchemy import Engine, Text, cast, func, select
from sqlalchemy.orm import Session

from corpus.bio import tags_agree, tags_to_spans, token_disagreement, validate_tags
from corpus.gold import (
    AUTOMATIC_SOURCES,
    WITHDRAWN,
    GoldStep,
    automatic_gold_holds,
    is_gold,
    next_automatic_decision,
)
from db.auth import check_writer
from db.engine import reader, transaction
from db.models import (
    Adjudication,
    Annotation,
    AnnotationAssignment,
    Project,
    Revision,
    SourceSentence,
    TaggingItem,
    Translation,
    User,
    utcnow,
)
from db.revisions import record_revision
from corpus.vocabulary import INACTIVE_STATUSES, Status

LEAD_ROLES = ("lead", "admin")
INACTIVE = INACTIVE_STATUSES


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
    id: int
    item_id: int
    tags: list[str] | None  # None only for a withdrawal
    source: str  # corpus.gold.SOURCES: agreed, single, accepted, edited, withdrawn
    accepted_annotation_id: int | None
    decided_by: str | None  # None for the automatic rule
    note: str | None
    created_at: datetime

    @property
    def spans(self) -> list[tuple[int, int]]:
        return tags_to_spans(self.tags) if self.tags is not None else []


class StaleDecision(RuntimeError):
    """A lead decided against a decision in force that has since been replaced (by another lead or the
    automatic rule). Carries both: the id the lead saw and the decision now in force (None: no gold)."""

    def __init__(self, item_id: int, expected_id: int | None, current: GoldDecision | None) -> None:
        self.item_id = item_id
        self.expected_id = expected_id
        self.current = current
        if current is None:
            now = "the item no longer has gold"
        else:
            who = current.decided_by or "the automatic rule"
            now = f"{who} set gold ({current.source}) at {current.created_at:%Y-%m-%d %H:%M:%S} UTC"
        super().__init__(f"the gold of this item changed since you loaded it: {now}; look at it and decide again")


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


def _decision(row: Adjudication, users: dict[int, str]) -> GoldDecision:
    return GoldDecision(row.id, row.item_id, None if row.tags is None else list(row.tags), row.source,
                        row.accepted_annotation_id,
                        users.get(row.decided_by) if row.decided_by else None, row.note, row.created_at)


def _users(session: Session) -> dict[int, str]:
    return dict(session.execute(select(User.id, User.username)).all())


def latest_decision(session: Session, item_id: int) -> Adjudication | None:
    """The latest decision for an item, a withdrawal included."""
    return session.scalars(
        select(Adjudication).where(Adjudication.item_id == item_id).order_by(Adjudication.id.desc())
    ).first()


def gold_row(session: Session, item_id: int) -> Adjudication | None:
    """The gold in force for an item: the latest decision, unless it is a withdrawal."""
    row = latest_decision(session, item_id)
    return row if row is not None and is_gold(row.source) else None


def _lock_item(session: Session, item_id: int) -> None:
    """Hold the item's row until commit (PostgreSQL; SQLite writers are serialized by BEGIN IMMEDIATE),
    so a decision is made against the decision in force and no other lands in between."""
    session.execute(select(TaggingItem.id).where(TaggingItem.id == item_id).with_for_update())


def _add_decision(
    session: Session, item_id: int, tags: list[str] | None, source: str, decided_by: int | None,
    accepted_annotation_id: int | None = None, note: str | None = None,
) -> Adjudication:
    tags = None if tags is None else list(tags)
    row = Adjudication(item_id=item_id, tags=tags, source=source, accepted_annotation_id=accepted_annotation_id,
                       decided_by=decided_by, note=note or None, created_at=utcnow())
    session.add(row)
    session.flush()
    _record(session, row)
    return row


def _record(session: Session, row: Adjudication) -> None:
    """The decision's revision (decisions are never edited, so each has exactly one)."""
    action = "adjudicate" if row.decided_by else ("withdraw" if row.source == WITHDRAWN else "auto")
    record_revision(
        session, "adjudication", row.id, 1, row.decided_by, action,
        {"item_id": row.item_id, "tags": row.tags, "source": row.source,
         "accepted_annotation_id": row.accepted_annotation_id, "note": row.note},
    )


def auto_gold_if_agreed(session: Session, item_id: int) -> bool:
    """Let automatic gold follow the annotators' submitted versions (``corpus.gold``) after a save:
    agreement makes gold, new agreement replaces old, and automatic gold the versions no longer carry
    is withdrawn. A lead's decision is never touched. Returns whether a decision was written."""
    return apply_automatic_rule(session, _project_of_item(session, item_id), {item_id}) > 0


def _project_of_item(session: Session, item_id: int) -> int:
    return session.scalar(
        select(SourceSentence.project_id)
        .join(Translation, Translation.sentence_id == SourceSentence.id)
        .join(TaggingItem, TaggingItem.translation_id == Translation.id)
        .where(TaggingItem.id == item_id)
    )


class _Version(NamedTuple):
    """A submitted annotation as the rule and the queue read it (a plain row, not an ORM object)."""

    id: int
    item_id: int
    annotator_id: int
    tags: list[str]
    no_aspects: bool
    submitted_at: datetime | None
    updated_at: datetime | None


class _Decided(NamedTuple):
    """The latest decision of an item, as a plain row."""

    id: int
    item_id: int
    tags: list[str] | None
    source: str
    accepted_annotation_id: int | None
    decided_by: int | None
    note: str | None
    created_at: datetime


@dataclass
class _ItemState:
    """What the automatic rule and the queue need of one tagging item, read in bulk."""

    item_id: int
    translation_id: int
    submitted: list[_Version] = field(default_factory=list)
    assignees: set[int] = field(default_factory=set)
    latest: _Decided | None = None

    @property
    def complete(self) -> bool:
        done = {a.annotator_id for a in self.submitted}
        return bool(done) and self.assignees <= done


def _tags(raw: str | None) -> list[str] | None:
    return None if raw is None else json.loads(raw)


def _project_states(session: Session, project_id: int, only: list[int] | None = None) -> dict[int, _ItemState]:
    """Every tagging item of the project (or the few ``only``) with its submitted versions, active
    assignees and latest decision: four queries of plain rows, whatever the project's size (a
    paper-scale project has ~48,000 items and ~95,000 annotations; ORM objects would take seconds)."""
    in_project = (
        select(TaggingItem.id)
        .join(Translation, TaggingItem.translation_id == Translation.id)
        .join(SourceSentence, Translation.sentence_id == SourceSentence.id)
        .where(SourceSentence.project_id == project_id)
    )
    if only is not None:
        in_project = in_project.where(TaggingItem.id.in_(only))
    states = {
        item_id: _ItemState(item_id, translation_id)
        for item_id, translation_id in session.execute(
            select(TaggingItem.id, TaggingItem.translation_id).where(TaggingItem.id.in_(in_project))
        )
    }
    by_translation = {s.translation_id: s for s in states.values()}
    for row in session.execute(
        select(Annotation.id, Annotation.item_id, Annotation.annotator_id, cast(Annotation.tags, Text),
               Annotation.no_aspects, Annotation.submitted_at, Annotation.updated_at)
        .where(Annotation.item_id.in_(in_project), Annotation.status == Status.SUBMITTED)
        .order_by(Annotation.item_id, Annotation.submitted_at, Annotation.id)
    ):
        states[row[1]].submitted.append(_Version(row[0], row[1], row[2], _tags(row[3]), *row[4:]))
    for translation_id, user_id in session.execute(
        select(AnnotationAssignment.translation_id, AnnotationAssignment.user_id)
        .join(Translation, AnnotationAssignment.translation_id == Translation.id)
        .join(SourceSentence, Translation.sentence_id == SourceSentence.id)
        .where(SourceSentence.project_id == project_id, AnnotationAssignment.status.not_in(INACTIVE))
    ):
        if translation_id in by_translation:
            by_translation[translation_id].assignees.add(user_id)
    latest_ids = select(func.max(Adjudication.id)).where(Adjudication.item_id.in_(in_project)).group_by(
        Adjudication.item_id)
    for row in session.execute(
        select(Adjudication.id, Adjudication.item_id, cast(Adjudication.tags, Text), Adjudication.source,
               Adjudication.accepted_annotation_id, Adjudication.decided_by, Adjudication.note,
               Adjudication.created_at)
        .where(Adjudication.id.in_(latest_ids))
    ):
        states[row[1]].latest = _Decided(row[0], row[1], _tags(row[2]), *row[3:])
    return states


def _project_k(session: Session, project_id: int) -> int:
    return session.scalar(select(Project.annotators_per_item).where(Project.id == project_id)) or 1


def sync_agreed(engine: Engine, project_id: int) -> int:
    """Bring every item's automatic gold up to date with its annotators (e.g. after an import or a
    reassignment). Returns rows written.

    The whole project is read in bulk and the rule decided in memory without the write lock; only
    when some item needs a new decision does a write transaction lock those items, decide again and
    append the decisions.
    """
    with Session(reader(engine)) as session:
        due = set(_due_steps(session, project_id))
    if not due:
        return 0
    with transaction(engine) as session:
        return apply_automatic_rule(session, project_id, due)


def _due_steps(session: Session, project_id: int, items: set[int] | None = None) -> dict[int, GoldStep]:
    """item id → the decision the automatic rule would append now (items that need none are left out)."""
    k = _project_k(session, project_id)
    only = sorted(items) if items is not None and len(items) <= 500 else None
    steps = {}
    for s in _project_states(session, project_id, only).values():
        if items is not None and s.item_id not in items:
            continue
        step = next_automatic_decision(
            s.latest.source if s.latest is not None else None, s.latest.tags if s.latest is not None else None,
            [list(a.tags) for a in s.submitted], s.complete, k,
        )
        if step is not None:
            steps[s.item_id] = step
    return steps


def apply_automatic_rule(session: Session, project_id: int, items: set[int] | None = None) -> int:
    """Append, inside the caller's write transaction, the automatic rule's decisions for the project's
    items (or only ``items``), all at once: a restored paper-scale backup makes ~40,000 of them, which
    one item at a time would take minutes. The items are locked first (PostgreSQL; SQLite writers are
    serialized already), so no save decides in between. Returns decisions written."""
    if items is not None and not items:
        return 0
    if session.get_bind().dialect.name != "sqlite":
        locked = sorted(items) if items is not None else _project_items(session, project_id)
        for i in range(0, len(locked), 1000):
            session.execute(select(TaggingItem.id).where(TaggingItem.id.in_(locked[i:i + 1000])).with_for_update())
    steps = _due_steps(session, project_id, items)
    if not steps:
        return 0
    _write_automatic(session, steps)
    return len(steps)


def apply_automatic_rule_to_new_items(
    session: Session, project_id: int, submitted: dict[int, list[tuple[int, list[str]]]],
    assignees: dict[int, set[int]],
) -> int:
    """The automatic rule for items created in the caller's transaction (an import): they have no decision
    yet and nobody else can see them, so the rule runs on what the caller just wrote instead of reading
    the project back. ``submitted``: item -> (annotator id, tags) of its submitted annotations in the
    order the rule reads them (submission time, then id); ``assignees``: item -> its active assignees.
    Returns decisions written."""
    k = _project_k(session, project_id)
    steps = {}
    for item_id, versions in submitted.items():
        done = {annotator for annotator, _ in versions}
        complete = bool(done) and assignees.get(item_id, set()) <= done
        step = next_automatic_decision(None, None, [list(tags) for _, tags in versions], complete, k)
        if step is not None:
            steps[item_id] = step
    if steps:
        _write_automatic(session, steps)
    return len(steps)


def _write_automatic(session: Session, steps: dict[int, GoldStep]) -> None:
    """The rule's decisions and their revisions (as ``_record`` writes them), with driver executemany:
    an import or restore writes tens of thousands, which as ORM objects took seconds and ~150 MB.
    Their ids are read back by item: the items are locked (PostgreSQL) or the writer alone (SQLite),
    so no other decision on them lands in between."""
    from db.bulk import insert_rows

    session.flush()
    now = utcnow()
    before = session.scalar(select(func.coalesce(func.max(Adjudication.id), 0)))
    ordered = sorted(steps)
    insert_rows(session, Adjudication, ("item_id", "tags", "source", "decided_by", "created_at"), (
        (item_id, None if steps[item_id].tags is None else list(steps[item_id].tags), steps[item_id].source, None, now)
        for item_id in ordered
    ))
    ids: dict[int, int] = {}
    for i in range(0, len(ordered), 900):
        ids.update((item_id, row_id) for row_id, item_id in session.execute(
            select(Adjudication.id, Adjudication.item_id)
            .where(Adjudication.id > before, Adjudication.item_id.in_(ordered[i:i + 900]))))
    insert_rows(session, Revision, ("entity", "entity_id", "version", "author_id", "action", "payload", "created_at"), (
        ("adjudication", ids[item_id], 1, None, "withdraw" if steps[item_id].source == WITHDRAWN else "auto",
         {"item_id": item_id, "tags": None if steps[item_id].tags is None else list(steps[item_id].tags),
          "source": steps[item_id].source, "accepted_annotation_id": None, "note": None}, now)
        for item_id in ordered
    ))


def _project_items(session: Session, project_id: int) -> list[int]:
    return list(
        session.scalars(
            select(TaggingItem.id)
            .join(Translation, TaggingItem.translation_id == Translation.id)
            .join(SourceSentence, Translation.sentence_id == SourceSentence.id)
            .where(SourceSentence.project_id == project_id)
            .order_by(TaggingItem.id)
        )
    )


def _entry(
    users: dict[int, str], item_id: int, translation_id: int, tokens: list[str], sentence_key: str, phase: str,
    translator_id: int, submitted: list, latest, k: int,
) -> QueueEntry:
    """One item side by side: its annotators' versions, and the gold in force if it still holds."""
    versions = [
        AnnotatorVersion(a.id, users.get(a.annotator_id, "?"), list(a.tags), a.no_aspects, a.submitted_at,
                         a.updated_at)
        for a in submitted
    ]
    gold = latest if latest is not None and is_gold(latest.source) else None
    decision = _decision(gold, users) if gold is not None else None
    newest_edit = max((v.updated_at for v in versions if v.updated_at), default=None)
    if (
        decision is not None
        and decision.source in AUTOMATIC_SOURCES
        and not automatic_gold_holds(decision.tags, [v.tags for v in versions], k)
    ):
        decision = None  # not withdrawn yet (e.g. annotations imported since), but no longer carried
    resolved = decision is not None and (
        decision.source in AUTOMATIC_SOURCES or newest_edit is None or newest_edit <= decision.created_at
    )
    return QueueEntry(
        item_id=item_id, translation_id=translation_id, sentence_key=sentence_key, phase=phase,
        translator=users.get(translator_id, "?"), tokens=list(tokens), versions=versions,
        disagreement=token_disagreement([v.tags for v in versions]), gold=decision, resolved=resolved,
    )


def _item_details(session: Session, item_ids: list[int]) -> dict[int, tuple]:
    """item id → (tokens, "domain/split/id", phase, translator id), in one query per 500 items."""
    details: dict[int, tuple] = {}
    for i in range(0, len(item_ids), 500):
        for item_id, tokens, domain, split, sid, phase, translator_id in session.execute(
            select(TaggingItem.id, cast(TaggingItem.tokens, Text), SourceSentence.domain, SourceSentence.split,
                   SourceSentence.sentence_id, Translation.phase, Translation.translator_id)
            .join(Translation, TaggingItem.translation_id == Translation.id)
            .join(SourceSentence, Translation.sentence_id == SourceSentence.id)
            .where(TaggingItem.id.in_(item_ids[i:i + 500]))
        ):
            details[item_id] = (json.loads(tokens), f"{domain}/{split}/{sid}", phase, translator_id)
    return details


def disagreement_queue(engine: Engine, project_id: int, include_resolved: bool = False) -> list[QueueEntry]:
    """Complete items whose annotators disagree, worst (most differing tokens) first."""
    with Session(reader(engine)) as session:
        users = _users(session)
        k = _project_k(session, project_id)
        disagreeing = [
            s for s in _project_states(session, project_id).values()
            if len(s.submitted) >= 2 and s.complete and not tags_agree([a.tags for a in s.submitted])
        ]
        details = _item_details(session, [s.item_id for s in disagreeing])
        entries = []
        for state in disagreeing:
            entry = _entry(users, state.item_id, state.translation_id, *details[state.item_id], state.submitted,
                           state.latest, k)
            if include_resolved or not entry.resolved:
                entries.append(entry)
        entries.sort(key=lambda e: (-e.disagreement, e.item_id))
        return entries


def item_entry(engine: Engine, item_id: int) -> QueueEntry:
    with Session(reader(engine)) as session:
        item = session.get(TaggingItem, item_id)
        if item is None:
            raise ValueError(f"no tagging item {item_id}")
        project = _project_of_item(session, item_id)
        state = _project_states(session, project, only=[item_id])[item_id]
        details = _item_details(session, [item_id])[item_id]
        return _entry(_users(session), item_id, item.translation_id, *details, state.submitted, state.latest,
                      _project_k(session, project))


def _require_lead(session: Session, user_id: int) -> None:
    user = session.get(User, user_id)
    if user is None or not user.active or not set(user.role_names) & set(LEAD_ROLES):
        raise PermissionError("only a lead can set gold labels")


def _require_unchanged(session: Session, item_id: int, expected: int | None) -> None:
    """Refuse a lead's decision made against a gold in force that is no longer the one in force."""
    current = gold_row(session, item_id)
    if (current.id if current is not None else None) != expected:
        raise StaleDecision(item_id, expected, _decision(current, _users(session)) if current is not None else None)


def accept(
    engine: Engine, item_id: int, annotation_id: int, lead_id: int, *, expected: int | None, note: str | None = None,
    session_token: str | None = None,
) -> GoldDecision:
    """Gold = one annotator's submitted version. ``expected``: the id of the gold in force the lead saw
    (None: none); a StaleDecision if it has changed since. A ``session_token`` no longer live: SessionEnded."""
    with transaction(engine) as session:
        check_writer(session, lead_id, session_token)
        _require_lead(session, lead_id)
        _lock_item(session, item_id)
        _require_unchanged(session, item_id, expected)
        annotation = session.get(Annotation, annotation_id)
        if annotation is None or annotation.item_id != item_id or annotation.status != Status.SUBMITTED:
            raise ValueError("accept a submitted annotation of this item")
        row = _add_decision(session, item_id, list(annotation.tags), "accepted", lead_id, annotation.id, note)
        return _decision(row, _users(session))


def edit(
    engine: Engine, item_id: int, tags: list[str], lead_id: int, *, expected: int | None, note: str | None = None,
    session_token: str | None = None,
) -> GoldDecision:
    """Gold = the lead's own tags over the frozen tokens. ``expected`` and ``session_token`` as for ``accept``."""
    with transaction(engine) as session:
        check_writer(session, lead_id, session_token)
        _require_lead(session, lead_id)
        _lock_item(session, item_id)
        _require_unchanged(session, item_id, expected)
        item = session.get(TaggingItem, item_id)
        if item is None:
            raise ValueError(f"no tagging item {item_id}")
        if len(tags) != len(item.tokens):
            raise ValueError(f"{len(tags)} tags for {len(item.tokens)} tokens")
        problems = validate_tags(tags)
        if problems:
            raise ValueError(f"invalid BIO sequence: {problems[0]}")
        row = _add_decision(session, item_id, list(tags), "edited", lead_id, None, note)
        return _decision(row, _users(session))


def decisions(engine: Engine, item_id: int) -> list[GoldDecision]:
    """Every decision for an item, oldest first; the last one is in force."""
    with Session(reader(engine)) as session:
        users = _users(session)
        rows = session.scalars(select(Adjudication).where(Adjudication.item_id == item_id).order_by(Adjudication.id))
        return [_decision(r, users) for r in rows]


def gold_count(engine: Engine, project_id: int) -> tuple[int, int]:
    """(items with gold, tagging items) in the project."""
    with Session(reader(engine)) as session:
        items = _project_items(session, project_id)
        if not items:
            return 0, 0
        latest = select(func.max(Adjudication.id)).where(Adjudication.item_id.in_(items)).group_by(Adjudication.item_id)
        with_gold = session.scalar(
            select(func.count()).where(Adjudication.id.in_(latest), Adjudication.source != WITHDRAWN)
        )
        return with_gold, len(items)


def tagging_stamp(engine: Engine, project_id: int) -> tuple:
    """Changes whenever anything the queue and the automatic rule read changes: every save (the
    dashboard's fingerprint) and every change of who is assigned to tag what (a reassignment changes
    which items are complete)."""
    from db.metrics_data import latest_save

    with Session(reader(engine)) as session:
        assignments = session.execute(select(
            func.count(AnnotationAssignment.id), func.max(AnnotationAssignment.id),
            func.count(AnnotationAssignment.id).filter(AnnotationAssignment.status.in_(INACTIVE)),
        )).one()
        return (*latest_save(session, project_id), *assignments)

