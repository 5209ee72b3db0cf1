"""Gold labels: agreed items become gold automatically; a lead resolves the rest, worst first.

``Adjudication`` rows are append-only and the latest row per item is in force, so every decision is
kept with who made it and when. Each decision also writes a revision. Automatic gold follows the
annotators (``corpus.gold``): when their submitted versions stop agreeing it is withdrawn by a later
row, and a withdrawal in force means the item has no gold. A lead decides against the decision they
saw; if another came into force meanwhile, the lead's decision is refused (``StaleDecision``).
The queue the lead works through, and the decisions kept, are read by ``db.disagreement_queue``.
"""

from __future__ import annotations

from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from corpus.bio import validate_tags
from corpus.gold import WITHDRAWN, GoldStep, next_automatic_decision
from corpus.revisions import gold_payload
from corpus.vocabulary import GoldSource, RevisionAction, Role, Status
from db.access import check_writer
from db.conflicts import SavedFirst
from db.disagreement_queue import GoldDecision, decision_of, gold_shown, project_of_item, usernames
from db.engine import reader, transaction
from db.gold import ItemState, item_states, project_annotators_per_item
from db.models import Adjudication, Annotation, Revision, SourceSentence, TaggingItem, Translation, User, utcnow
from db.revisions import record_revision

LEAD_ROLES = (Role.LEAD,)  # an admin decides only when also given the lead role


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
    return apply_automatic_rule(session, project_of_item(session, item_id), {item_id}) > 0


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
    """``sync_agreed`` and ``db.disagreement_queue.gold_count`` from one read of the project (what the Adjudication page pays after
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


def _require_lead(session: Session, user_id: int) -> None:
    user = session.get(User, user_id)
    if user is None or not user.active or not set(user.role_names) & set(LEAD_ROLES):
        raise PermissionError("only a lead can set gold labels")


def _require_unchanged(session: Session, item_id: int, expected: int | None) -> None:
    """Refuse a lead's decision made against a gold in force (``db.gold``) that is no longer the one in force."""
    project = project_of_item(session, item_id)
    state = item_states(session, project, [item_id]).get(item_id) if project is not None else None
    gold = state.gold(project_annotators_per_item(session, project)) if state is not None else None
    if (gold.decision_id if gold is not None else None) != expected:
        raise StaleDecision(item_id, expected, gold_shown(session, state, gold))


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
        return decision_of(row, usernames(session))


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
        return decision_of(row, usernames(session))
