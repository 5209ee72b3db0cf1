"""Gold labels: agreed items become gold automatically; a lead resolves the rest, worst first.

``Adjudication`` rows are append-only and the latest row per item is in force, so every decision is
kept with who made it and when. Each decision also writes a revision. Automatic gold follows the
annotators (``corpus.gold``): when their submitted versions stop agreeing it is withdrawn by a later
row, and a withdrawal in force means the item has no gold. A lead decides against the decision they
saw; if another came into force meanwhile, the lead's decision is refused (``StaleDecision``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from corpus.bio import tags_agree, tags_to_spans, token_disagreement, validate_tags
from corpus.gold import (
    AUTOMATIC_SOURCES,
    WITHDRAWN,
    automatic_gold_holds,
    is_gold,
    next_automatic_decision,
)
from db.engine import reader, transaction
from db.models import (
    Adjudication,
    Annotation,
    AnnotationAssignment,
    Project,
    SourceSentence,
    TaggingItem,
    Translation,
    User,
    utcnow,
)
from db.revisions import record_revision

LEAD_ROLES = ("lead", "admin")
INACTIVE = ("reassigned", "skipped")


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


def annotators_per_item(session: Session, item: TaggingItem) -> int:
    return session.scalar(
        select(Project.annotators_per_item)
        .join(SourceSentence, SourceSentence.project_id == Project.id)
        .join(Translation, Translation.sentence_id == SourceSentence.id)
        .where(Translation.id == item.translation_id)
    )


def submitted_versions(session: Session, item_id: int) -> list[Annotation]:
    return list(
        session.scalars(
            select(Annotation)
            .where(Annotation.item_id == item_id, Annotation.status == "submitted")
            .order_by(Annotation.submitted_at, Annotation.id)
        )
    )


def is_complete(session: Session, item: TaggingItem, submitted: list[Annotation]) -> bool:
    """Every active assignee of the item has submitted (and at least one has)."""
    assignees = set(
        session.scalars(
            select(AnnotationAssignment.user_id).where(
                AnnotationAssignment.translation_id == item.translation_id,
                AnnotationAssignment.status.not_in(INACTIVE),
            )
        )
    )
    done = {a.annotator_id for a in submitted}
    return bool(done) and assignees <= done


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
    action = "adjudicate" if decided_by else ("withdraw" if source == WITHDRAWN else "auto")
    record_revision(
        session, "adjudication", row.id, 1, decided_by, action,
        {"item_id": item_id, "tags": tags, "source": source,
         "accepted_annotation_id": accepted_annotation_id, "note": row.note},
    )
    return row


def auto_gold_if_agreed(session: Session, item_id: int) -> Adjudication | None:
    """Let automatic gold follow the annotators' submitted versions (``corpus.gold``): agreement makes
    gold, new agreement replaces old, and automatic gold the versions no longer carry is withdrawn.
    A lead's decision is never touched. Returns the decision written, if any."""
    _lock_item(session, item_id)
    item = session.get(TaggingItem, item_id)
    submitted = submitted_versions(session, item_id)
    current = latest_decision(session, item_id)
    step = next_automatic_decision(
        current.source if current is not None else None, current.tags if current is not None else None,
        [list(a.tags) for a in submitted], is_complete(session, item, submitted), annotators_per_item(session, item),
    )
    if step is None:
        return None
    return _add_decision(session, item_id, step.tags, step.source, None)


def sync_agreed(engine: Engine, project_id: int) -> int:
    """Bring every item's automatic gold up to date with its annotators (e.g. after an import or a
    reassignment). Returns rows written."""
    with transaction(engine) as session:
        written = 0
        for item_id in _project_items(session, project_id):
            if auto_gold_if_agreed(session, item_id) is not None:
                written += 1
        return written


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


def _entry(session: Session, item: TaggingItem, submitted: list[Annotation], users: dict[int, str]) -> QueueEntry:
    translation = session.get(Translation, item.translation_id)
    sentence = session.get(SourceSentence, translation.sentence_id)
    versions = [
        AnnotatorVersion(a.id, users.get(a.annotator_id, "?"), list(a.tags), a.no_aspects, a.submitted_at,
                         a.updated_at)
        for a in submitted
    ]
    gold = gold_row(session, item.id)
    decision = _decision(gold, users) if gold is not None else None
    newest_edit = max((v.updated_at for v in versions if v.updated_at), default=None)
    if (
        decision is not None
        and decision.source in AUTOMATIC_SOURCES
        and not automatic_gold_holds(decision.tags, [v.tags for v in versions], annotators_per_item(session, item))
    ):
        decision = None  # not withdrawn yet (e.g. annotations imported since), but no longer carried
    resolved = decision is not None and (
        decision.source in AUTOMATIC_SOURCES or newest_edit is None or newest_edit <= decision.created_at
    )
    return QueueEntry(
        item_id=item.id, translation_id=translation.id,
        sentence_key=f"{sentence.domain}/{sentence.split}/{sentence.sentence_id}", phase=translation.phase,
        translator=users.get(translation.translator_id, "?"), tokens=list(item.tokens), versions=versions,
        disagreement=token_disagreement([v.tags for v in versions]), gold=decision, resolved=resolved,
    )


def disagreement_queue(engine: Engine, project_id: int, include_resolved: bool = False) -> list[QueueEntry]:
    """Complete items whose annotators disagree, worst (most differing tokens) first."""
    with Session(reader(engine)) as session:
        users = _users(session)
        entries = []
        for item_id in _project_items(session, project_id):
            item = session.get(TaggingItem, item_id)
            submitted = submitted_versions(session, item_id)
            if len(submitted) < 2 or not is_complete(session, item, submitted):
                continue
            if tags_agree([a.tags for a in submitted]):
                continue
            entry = _entry(session, item, submitted, users)
            if include_resolved or not entry.resolved:
                entries.append(entry)
        entries.sort(key=lambda e: (-e.disagreement, e.item_id))
        return entries


def item_entry(engine: Engine, item_id: int) -> QueueEntry:
    with Session(reader(engine)) as session:
        item = session.get(TaggingItem, item_id)
        if item is None:
            raise ValueError(f"no tagging item {item_id}")
        return _entry(session, item, submitted_versions(session, item_id), _users(session))


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
    engine: Engine, item_id: int, annotation_id: int, lead_id: int, *, expected: int | None, note: str | None = None
) -> GoldDecision:
    """Gold = one annotator's submitted version. ``expected``: the id of the gold in force the lead saw
    (None: none); a StaleDecision if it has changed since."""
    with transaction(engine) as session:
        _require_lead(session, lead_id)
        _lock_item(session, item_id)
        _require_unchanged(session, item_id, expected)
        annotation = session.get(Annotation, annotation_id)
        if annotation is None or annotation.item_id != item_id or annotation.status != "submitted":
            raise ValueError("accept a submitted annotation of this item")
        row = _add_decision(session, item_id, list(annotation.tags), "accepted", lead_id, annotation.id, note)
        return _decision(row, _users(session))


def edit(
    engine: Engine, item_id: int, tags: list[str], lead_id: int, *, expected: int | None, note: str | None = None
) -> GoldDecision:
    """Gold = the lead's own tags over the frozen tokens. ``expected`` as for ``accept``."""
    with transaction(engine) as session:
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
