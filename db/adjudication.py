"""Gold labels: agreed items become gold automatically; a lead resolves the rest, worst first.

``Adjudication`` rows are append-only and the latest row per item is in force, so every decision is
kept with who made it and when. Each decision also writes a revision. Automatic gold follows the
annotators (``corpus.gold``): when their submitted versions stop agreeing it is withdrawn by a later
row, and a withdrawal in force means the item has no gold. A lead decides against the decision they
saw; if another came into force meanwhile, the lead's decision is refused (``StaleDecision``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine, Text, cast, func, select
from sqlalchemy.orm import Session

from corpus.bio import tags_agree, tags_to_spans, token_disagreement, validate_tags
from corpus.gold import (
    AUTOMATIC_SOURCES,
    WITHDRAWN,
    Gold,
    GoldStep,
    next_automatic_decision,
)
from corpus.revisions import gold_payload
from corpus.vocabulary import GoldSource, RevisionAction, Role, Status
from db.access import check_writer
from db.conflicts import SavedFirst
from db.engine import reader, transaction
from db.gold import ItemState, among, item_states, project_annotators_per_item, read_gold_in_force
from db.models import (
    Adjudication,
    Annotation,
    Revision,
    SourceSentence,
    TaggingItem,
    Translation,
    User,
    utcnow,
)
from db.revisions import record_revision

LEAD_ROLES = (Role.LEAD,)  # an admin decides only when also given the lead role
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


class StaleDecision(SavedFirst):
    """A lead decided against a decision in force that has since been replaced (by another lead or the
    automatic rule). Carries both: the id the lead saw and the decision now in force (``theirs``, alias
    ``current``; None: no gold). The lead's own decision stays with the page that made it (``mine`` None)."""

    def __init__(self, item_id: int, expected_id: int | None, current: GoldDecision | None) -> None:
        self.item_id = item_id
        self.expected_id = expected_id
        self.current = current
        who = None
        if current is None:
            now = "the item no longer has gold"
        else:
            who = current.decided_by or "the automatic rule"
            now = f"{who} set gold ({current.source}) at {current.created_at:%Y-%m-%d %H:%M:%S} UTC"
        super().__init__(f"the gold of this item changed since you loaded it: {now}; look at it and decide again",
                         mine=None, theirs=current, who=who, when=current.created_at if current is not None else None)


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


def _decision(row: Adjudication, users: dict[int, str]) -> GoldDecision:
    return GoldDecision(row.id, row.item_id, None if row.tags is None else list(row.tags), row.source,
                        row.accepted_annotation_id,
                        users.get(row.decided_by) if row.decided_by else None, row.note, row.created_at)


def _users(session: Session) -> dict[int, str]:
    return dict(session.execute(select(User.id, User.username)).all())


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


def _automatic_action(source: str) -> RevisionAction:
    """The action of a revision the automatic rule wrote: a withdrawal, or an automatic gold."""
    return RevisionAction.WITHDRAW if source == WITHDRAWN else RevisionAction.AUTO


def _record(session: Session, row: Adjudication) -> None:
    """The decision's revision (decisions are never edited, so each has exactly one)."""
    action = RevisionAction.ADJUDICATE if row.decided_by else _automatic_action(row.source)
    record_revision(
        session, "adjudication", row.id, 1, row.decided_by, action,
        gold_payload(item_id=row.item_id, tags=row.tags, source=row.source,
                     accepted_annotation_id=row.accepted_annotation_id, note=row.note),
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
    return _steps_of(item_states(session, project_id, items), project_annotators_per_item(session, project_id))


def _steps_of(states: dict[int, ItemState], k: int) -> dict[int, GoldStep]:
    steps = {}
    for s in states.values():
        step = next_automatic_decision(
            s.latest.source if s.latest is not None else None, s.latest.tags if s.latest is not None else None,
            s.versions, s.complete, k,
        )
        if step is not None:
            steps[s.item_id] = step
    return steps


def sync_and_count(engine: Engine, project_id: int) -> tuple[int, int, int]:
    """``sync_agreed`` and ``gold_count`` from one read of the project (what the Adjudication page pays after
    every change): (decisions written, items with gold in force, tagging items). The gold in force
    (``corpus.gold.in_force``) already is what the automatic rule's pending decisions make it, so the count
    read before they are written is the count after."""
    with Session(reader(engine)) as session:
        k = project_annotators_per_item(session, project_id)
        states = item_states(session, project_id)
        due = set(_steps_of(states, k))
        with_gold = sum(1 for s in states.values() if s.gold(k) is not None)
    written = 0
    if due:
        with transaction(engine) as session:
            written = apply_automatic_rule(session, project_id, due)
    return written, with_gold, len(states)


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
    k = project_annotators_per_item(session, project_id)
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
        ("adjudication", ids[item_id], 1, None, _automatic_action(steps[item_id].source),
         gold_payload(item_id=item_id, tags=steps[item_id].tags, source=steps[item_id].source), now)
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
    return {row.id: _decision(row, users) for row in session.execute(
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


def _gold_decision(session: Session, users: dict[int, str], item_id: int, gold: Gold | None,
                   versions: list[AnnotatorVersion]) -> GoldDecision | None:
    return _gold_decisions(session, users, {item_id: gold}, {item_id: versions})[item_id]


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
        users = _users(session)
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
        users = _users(session)
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
        project = _project_of_item(session, item_id)
        if project is None:
            raise ValueError(f"no tagging item {item_id}")
        state = item_states(session, project, [item_id])[item_id]
        return _entries(session, _users(session), [state], project_annotators_per_item(session, project))[0]


def _require_lead(session: Session, user_id: int) -> None:
    user = session.get(User, user_id)
    if user is None or not user.active or not set(user.role_names) & set(LEAD_ROLES):
        raise PermissionError("only a lead can set gold labels")


def _require_unchanged(session: Session, item_id: int, expected: int | None) -> None:
    """Refuse a lead's decision made against a gold in force (``db.gold``) that is no longer the one in force."""
    project = _project_of_item(session, item_id)
    state = item_states(session, project, [item_id]).get(item_id) if project is not None else None
    gold = state.gold(project_annotators_per_item(session, project)) if state is not None else None
    if (gold.decision_id if gold is not None else None) != expected:
        users = _users(session)
        versions = _versions_of(session, users, [state])[item_id]
        raise StaleDecision(item_id, expected, _gold_decision(session, users, item_id, gold, versions))


def accept(
    engine: Engine, item_id: int, annotation_id: int, lead_id: int, *, expected: int | None, note: str | None = None,
    session_token: str | None = None,
) -> GoldDecision:
    """Gold = one annotator's submitted version. ``expected``: the id of the gold in force the lead saw
    (None: none); a StaleDecision if it has changed since. A ``session_token`` no longer live: SessionEnded."""
    with transaction(engine) as session:
        check_writer(session, lead_id, session_token, roles=LEAD_ROLES)
        _require_lead(session, lead_id)
        _lock_item(session, item_id)
        _require_unchanged(session, item_id, expected)
        annotation = session.get(Annotation, annotation_id)
        if annotation is None or annotation.item_id != item_id or annotation.status != Status.SUBMITTED:
            raise ValueError("accept a submitted annotation of this item")
        row = _add_decision(session, item_id, list(annotation.tags), GoldSource.ACCEPTED, lead_id, annotation.id, note)
        return _decision(row, _users(session))


def edit(
    engine: Engine, item_id: int, tags: list[str], lead_id: int, *, expected: int | None, note: str | None = None,
    session_token: str | None = None,
) -> GoldDecision:
    """Gold = the lead's own tags over the frozen tokens. ``expected`` and ``session_token`` as for ``accept``."""
    with transaction(engine) as session:
        check_writer(session, lead_id, session_token, roles=LEAD_ROLES)
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
        row = _add_decision(session, item_id, list(tags), GoldSource.EDITED, lead_id, None, note)
        return _decision(row, _users(session))


def decisions(engine: Engine, item_id: int) -> list[GoldDecision]:
    """Every decision for an item, oldest first; the last one is in force."""
    with Session(reader(engine)) as session:
        users = _users(session)
        rows = session.scalars(select(Adjudication).where(Adjudication.item_id == item_id).order_by(Adjudication.id))
        return [_decision(r, users) for r in rows]


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

