"""Who does what: translation assignments (choose sentences, give each to N translators per phase, the
translator's queue; every queue query is filtered by the logged-in user's id) and tagging assignments (top
every translation to tag up to K annotators, never one who translates its sentence)."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from itertools import combinations

from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from corpus.assignment import (
    PHASE_GROUP_MODES,
    PHASE_ORDER,
    Task,
    aware_locked,
    blind_contaminated,
    plan_assignments,
    queue_order,
    tagging_refusal,
)
from corpus.vocabulary import INACTIVE_STATUSES, OPEN_STATUSES, WORK_ORDER, Phase, Role, Status, aspect_phases, phase_spec
from corpus.work_queue import OVERDUE_DAYS, overdue_tasks, unassigned_sentences
from db.access import check_writer
from db.engine import read, reader, transaction
from db.models import (
    AnnotationAssignment,
    AuditEvent,
    Project,
    SourceSentence,
    Translation,
    TranslationAssignment,
    User,
    UserRole,
    utcnow,
)
from db.final_candidates import phase_winners
from db.project_settings import settings_in
from db.work_queue import coverage_rows, tagging_task_rows, translation_task_rows

GROUPS_SETTING = "translator_groups"


@dataclass(frozen=True)
class AssignmentSettings:
    per_phase: int
    mode: str
    groups: dict[str, list[int]]


@dataclass(frozen=True)
class Translator:
    id: int
    username: str


@dataclass(frozen=True)
class AssignmentSummary:
    sentences: int
    created: int
    already: int
    shortfalls: list[tuple[int, str, int]]

    def __str__(self) -> str:
        text = f"{self.created} new tasks for {self.sentences} sentences ({self.already} already assigned)"
        if self.shortfalls:
            missing = sum(m for _, _, m in self.shortfalls)
            text += f"; {missing} slots could not be filled (not enough eligible translators)"
        return text


@dataclass(frozen=True)
class QueueItem:
    assignment_id: int
    sentence_pk: int
    domain: str
    split: str
    sentence_id: str
    phase: str
    status: str
    locked: bool
    lock_reason: str | None
    preview: str

    @property
    def label(self) -> str:
        state = "locked" if self.locked else self.status
        return f"{self.domain}/{self.split}/{self.sentence_id} · {self.phase} · {state}"

    @property
    def open(self) -> bool:
        return self.status != Status.SUBMITTED and not self.locked


# ----------------------------------------------------------------------------- settings and selection


def _assignment_settings(session: Session, project_id: int) -> AssignmentSettings:
    """The project's defaults (``db.project_settings``: a missing project is ``ProjectNotFound``) and the
    disjoint-mode groups the Assignments page stored beside them."""
    method = settings_in(session, project_id)
    raw = (session.get(Project, project_id).settings or {}).get(GROUPS_SETTING) or {}
    groups = {p.value: [int(u) for u in raw.get(p, [])] for p in WORK_ORDER}
    return AssignmentSettings(method.translators_per_phase, method.phase_groups, groups)


def assignment_settings(engine: Engine, project_id: int) -> AssignmentSettings:
    return read(engine, _assignment_settings, project_id)


def save_translator_groups(
    engine: Engine, project_id: int, groups: dict[str, Iterable[int]], actor_id: int | None,
) -> None:
    """Store the disjoint-mode groups in the project's free settings dict."""
    clean = {p.value: sorted({int(u) for u in groups.get(p, ())}) for p in WORK_ORDER}
    overlap = {u for p, q in combinations(clean, 2) for u in set(clean[p]) & set(clean[q])}
    if overlap:
        raise ValueError("a translator cannot be in both the blind and the aware group")
    with transaction(engine) as session:
        check_writer(session, actor_id, roles=(Role.LEAD,))
        project = session.get(Project, project_id)
        settings = dict(project.settings or {})
        settings[GROUPS_SETTING] = clean
        project.settings = settings
        session.add(AuditEvent(actor_id=actor_id, action="set-translator-groups", detail=clean))


def _active_translators(session: Session) -> list[User]:
    return list(
        session.scalars(
            select(User).join(UserRole).where(UserRole.role == Role.TRANSLATOR, User.active.is_(True)).order_by(User.id)
        )
    )


def active_translators(engine: Engine) -> list[Translator]:
    """Active users with the translator role, oldest account first."""
    with Session(reader(engine)) as session:
        return [Translator(u.id, u.username) for u in _active_translators(session)]


def domains_and_splits(engine: Engine, project_id: int) -> list[tuple[str, str, int]]:
    """(domain, split, number of sentences) of the project, in corpus order."""
    with Session(reader(engine)) as session:
        rows = session.execute(
            select(SourceSentence.domain, SourceSentence.split, func.count())
            .where(SourceSentence.project_id == project_id)
            .group_by(SourceSentence.domain, SourceSentence.split)
            .order_by(SourceSentence.domain, SourceSentence.split)
        )
        return [(d, s, n) for d, s, n in rows]


def select_sentences(
    engine: Engine, project_id: int, domain: str | None = None, split: str | None = None,
    first: int | None = None, last: int | None = None,
) -> list[int]:
    """Sentence primary keys in corpus order; ``first``/``last`` are 1-based positions (inclusive)
    in the filtered list, so "sentences 101 to 200 of restaurant/train" is one call."""
    query = select(SourceSentence.id).where(SourceSentence.project_id == project_id)
    if domain:
        query = query.where(SourceSentence.domain == domain)
    if split:
        query = query.where(SourceSentence.split == split)
    query = query.order_by(SourceSentence.domain, SourceSentence.split, SourceSentence.ordinal, SourceSentence.id)
    with Session(reader(engine)) as session:
        ids = list(session.scalars(query))
    start = max((first or 1) - 1, 0)
    stop = last if last is not None else len(ids)
    if stop < start:
        raise ValueError("the range ends before it starts")
    return ids[start:stop]


# ----------------------------------------------------------------------------- assigning


def _existing_tasks(session: Session) -> list[Task]:
    query = select(
        TranslationAssignment.user_id, TranslationAssignment.sentence_id, TranslationAssignment.phase,
        TranslationAssignment.status,
    )
    rows = list(session.execute(query))
    # Load is counted over all tasks; only the chosen sentences need slots filled.
    return [Task(u, s, p, st) for u, s, p, st in rows]


def _started_aware(session: Session) -> set[tuple[int, int, str]]:
    """(translator, sentence, phase) of the translation rows in a phase that shows the aspects: their
    translators have seen them."""
    rows = session.execute(
        select(Translation.translator_id, Translation.sentence_id, Translation.phase)
        .where(Translation.phase.in_(aspect_phases()))
    )
    return {(u, s, p) for u, s, p in rows}


def _tagging(session: Session) -> set[tuple[int, int]]:
    """(annotator, sentence) pairs where the annotator holds a colleague's translation of the sentence."""
    rows = session.execute(
        select(AnnotationAssignment.user_id, Translation.sentence_id)
        .join(Translation, Translation.id == AnnotationAssignment.translation_id)
        .where(AnnotationAssignment.status != Status.REASSIGNED)
    )
    return {(u, s) for u, s in rows}


def _plan_and_write(
    session: Session, project_id: int, sentence_ids: Sequence[int], actor_id: int | None,
    per_phase: int | None, mode: str | None, groups: dict[str, Iterable[int]] | None,
    phases: Sequence[str] = WORK_ORDER,
) -> AssignmentSummary:
    settings = _assignment_settings(session, project_id)
    per_phase = per_phase or settings.per_phase
    mode = mode or settings.mode
    if mode not in PHASE_GROUP_MODES:
        raise ValueError(f"phase groups must be one of {PHASE_GROUP_MODES}")
    if groups is None:
        groups = settings.groups
    translators = [u.id for u in _active_translators(session)]
    if mode == "disjoint":
        allowed = set(translators)
        groups = {p: [u for u in groups.get(p, ()) if u in allowed] for p in WORK_ORDER}
    existing = _existing_tasks(session)
    # An aware translation without an aware task (e.g. imported) still means the aspects were seen.
    seen = _started_aware(session)
    held = {(t.user_id, t.sentence_id, t.phase) for t in existing}
    existing += [Task(u, s, p, Status.SUBMITTED) for u, s, p in sorted(seen - held)]
    plan = plan_assignments(sentence_ids, translators, existing, per_phase, mode, groups, phases, _tagging(session))
    for task in plan.new:
        session.add(
            TranslationAssignment(
                user_id=task.user_id, sentence_id=task.sentence_id, phase=task.phase, status=Status.ASSIGNED,
                assigned_by=actor_id,
            )
        )
    session.flush()
    return AssignmentSummary(len(set(sentence_ids)), len(plan.new), plan.already, plan.shortfalls)


def assign_translations(
    engine: Engine, project_id: int, sentence_ids: Sequence[int], actor_id: int | None,
    per_phase: int | None = None, mode: str | None = None, groups: dict[str, Iterable[int]] | None = None,
    phases: Sequence[str] = PHASE_ORDER,
) -> AssignmentSummary:
    """Give every chosen sentence ``per_phase`` translators in each of ``phases`` (both by default; project
    settings by default). Idempotent: sentences that already have their translators get nothing new."""
    with transaction(engine) as session:
        check_writer(session, actor_id, roles=(Role.LEAD,))
        valid = set(
            session.scalars(
                select(SourceSentence.id).where(
                    SourceSentence.project_id == project_id, SourceSentence.id.in_(list(sentence_ids))
                )
            )
        )
        chosen = [s for s in dict.fromkeys(sentence_ids) if s in valid]
        summary = _plan_and_write(session, project_id, chosen, actor_id, per_phase, mode, groups, phases)
        session.add(
            AuditEvent(
                actor_id=actor_id, action="assign-translations",
                detail={"sentences": summary.sentences, "created": summary.created, "already": summary.already,
                        "shortfall_slots": sum(m for _, _, m in summary.shortfalls), "phases": list(phases)},
            )
        )
        return summary


def reassign_open_work(session: Session, user_id: int, actor_id: int | None) -> AssignmentSummary:
    """Move a (deactivated) user's unfinished translation tasks to other translators. Their
    submitted work stays; their drafts stay stored but no longer count towards the sentence."""
    rows = list(
        session.scalars(
            select(TranslationAssignment).where(
                TranslationAssignment.user_id == user_id,
                TranslationAssignment.status.in_((Status.ASSIGNED, Status.DRAFT, Status.SKIPPED)),
            )
        )
    )
    for row in rows:
        row.status = Status.REASSIGNED
    session.flush()
    sentence_ids = list(dict.fromkeys(r.sentence_id for r in rows))
    if not sentence_ids:
        return AssignmentSummary(0, 0, 0, [])
    project_of = {
        sid: pid for sid, pid in session.execute(
            select(SourceSentence.id, SourceSentence.project_id).where(SourceSentence.id.in_(sentence_ids))
        )
    }
    # Only the slots the user leaves are refilled: group their sentences by project and phase.
    slots: dict[tuple[int, str], list[int]] = {}
    for row in rows:
        slots.setdefault((project_of[row.sentence_id], row.phase), []).append(row.sentence_id)
    created, already, shortfalls = 0, 0, []
    for (project_id, phase), ids in sorted(slots.items()):
        s = _plan_and_write(session, project_id, ids, actor_id, None, None, None, phases=(phase,))
        created += s.created
        already += s.already
        shortfalls += s.shortfalls
    return AssignmentSummary(len(sentence_ids), created, already, shortfalls)


# ----------------------------------------------------------------------------- the translator's queue


def my_queue(engine: Engine, user_id: int) -> list[QueueItem]:
    """The user's own tasks (never anyone else's), in working order."""
    with Session(reader(engine)) as session:
        return _queue(session, user_id)


def _queue(session: Session, user_id: int) -> list[QueueItem]:
    rows = list(
        session.execute(
            select(TranslationAssignment, SourceSentence)
            .join(SourceSentence, SourceSentence.id == TranslationAssignment.sentence_id)
            .where(TranslationAssignment.user_id == user_id, TranslationAssignment.status != Status.REASSIGNED)
        )
    )
    status_of = {(a.sentence_id, a.phase): a.status for a, _ in rows}
    aware_rows = {
        s for s in session.scalars(
            select(Translation.sentence_id)
            .where(Translation.translator_id == user_id, Translation.phase.in_(aspect_phases()))
        )
    }
    items = []
    for a, s in rows:
        locked, reason = False, None
        spec = phase_spec(a.phase)
        seen = [p for p in aspect_phases() if p != a.phase and blind_contaminated(
            status_of.get((a.sentence_id, p)), a.sentence_id in aware_rows)]
        if spec.opens_after is not None and aware_locked(status_of.get((a.sentence_id, spec.opens_after))):
            locked, reason = True, f"opens after you submit the {spec.opens_after} translation of this sentence"
        elif not spec.shows_source_aspects and a.status != Status.SUBMITTED and seen:
            locked, reason = True, f"you have already worked on the {seen[0]} translation of this sentence"
        preview = s.text if len(s.text) <= 90 else s.text[:87] + "..."
        items.append(
            (
                queue_order(a.phase, a.status, locked, (s.domain, s.split, s.ordinal, s.id)),
                QueueItem(a.id, s.id, s.domain, s.split, s.sentence_id, a.phase, a.status, locked, reason, preview),
            )
        )
    return [item for _, item in sorted(items, key=lambda t: t[0])]


def next_task_id(engine: Engine, user_id: int, exclude: int | None = None) -> int | None:
    """The first open, unlocked task in the user's queue (skipped ones come after fresh ones)."""
    for item in my_queue(engine, user_id):
        if item.open and item.assignment_id != exclude:
            return item.assignment_id
    return None


def queue_counts(items: Sequence[QueueItem]) -> dict[str, int]:
    counts = Counter("locked" if i.locked and i.status != Status.SUBMITTED else i.status for i in items)
    counts["total"] = len(items)
    return dict(counts)


def annotation_counts(engine: Engine, user_id: int) -> dict[str, int]:
    """A tagger's queue counts (read-only; the tagging workspace owns annotation work)."""
    with Session(reader(engine)) as session:
        rows = session.execute(
            select(AnnotationAssignment.status, func.count())
            .where(AnnotationAssignment.user_id == user_id, AnnotationAssignment.status != Status.REASSIGNED)
            .group_by(AnnotationAssignment.status)
        )
        counts = {status: n for status, n in rows}
    counts["total"] = sum(counts.values())
    return counts


def assignment_overview(engine: Engine) -> list[dict[str, object]]:
    """Per translator and phase: tasks by status (for the lead)."""
    with Session(reader(engine)) as session:
        rows = session.execute(
            select(User.username, User.active, TranslationAssignment.phase, TranslationAssignment.status, func.count())
            .join(User, User.id == TranslationAssignment.user_id)
            .group_by(User.username, User.active, TranslationAssignment.phase, TranslationAssignment.status)
            .order_by(User.username)
        )
        table: dict[tuple[str, str], dict[str, object]] = {}
        for username, active, phase, status, n in rows:
            row = table.setdefault(
                (username, phase),
                {"translator": username, "active": active, "phase": phase, Status.ASSIGNED: 0, Status.DRAFT: 0,
                 Status.SKIPPED: 0, Status.SUBMITTED: 0, Status.REASSIGNED: 0},
            )
            row[status] = n
        return list(table.values())


def coverage(engine: Engine, project_id: int) -> list[dict[str, object]]:
    """Per domain/split and phase: sentences, active tasks, submitted translations (for the lead)."""
    with Session(reader(engine)) as session:
        rows = session.execute(
            select(SourceSentence.domain, SourceSentence.split, TranslationAssignment.phase,
                   TranslationAssignment.status, func.count())
            .join(TranslationAssignment, TranslationAssignment.sentence_id == SourceSentence.id)
            .where(SourceSentence.project_id == project_id, TranslationAssignment.status != Status.REASSIGNED)
            .group_by(SourceSentence.domain, SourceSentence.split, TranslationAssignment.phase,
                      TranslationAssignment.status)
        )
        table: dict[tuple[str, str, str], dict[str, object]] = {}
        for domain, split, phase, status, n in rows:
            row = table.setdefault((domain, split, phase), {"domain": domain, "split": split, "phase": phase,
                                                            "tasks": 0, Status.SUBMITTED: 0})
            row["tasks"] += n
            if status == Status.SUBMITTED:
                row[Status.SUBMITTED] += n
        return [table[k] for k in sorted(table)]


# ----------------------------------------------------------------------------- the lead's lists (Home's links)

#: The kinds of task a lead's overdue list shows (``?kind=`` on the Assignments page).
TASK_KINDS = ("translation", "tagging")


@dataclass(frozen=True)
class SentenceRow:
    sentence_pk: int
    key: str  # domain/split/id
    text: str


@dataclass(frozen=True)
class OverdueTask:
    task_id: int
    kind: str  # "translation" or "tagging"
    person: str
    sentence_pk: int
    key: str
    phase: str
    status: str
    assigned_at: datetime
    text: str


@dataclass(frozen=True)
class Reassigned:
    moved: int    # tasks taken from their person
    created: int  # new tasks given to others
    short: int    # sentences or translations still short of people (nobody eligible)

    def __str__(self) -> str:
        text = f"{self.moved} task(s) moved; {self.created} new task(s) given to others"
        if self.short:
            text += f"; {self.short} still short of people (nobody else eligible)"
        return text


def _sentence_rows(session: Session, ids: Iterable[int]) -> dict[int, SentenceRow]:
    ids = sorted(set(ids))
    out: dict[int, SentenceRow] = {}
    for i in range(0, len(ids), 500):
        for pk, domain, split, sid, text in session.execute(
            select(SourceSentence.id, SourceSentence.domain, SourceSentence.split, SourceSentence.sentence_id,
                   SourceSentence.text).where(SourceSentence.id.in_(ids[i:i + 500]))
        ):
            out[pk] = SentenceRow(pk, f"{domain}/{split}/{sid}", text)
    return out


def _unassigned(session: Session, project_id: int, phase: str) -> list[SentenceRow]:
    rows = session.execute(
        select(SourceSentence.id, SourceSentence.domain, SourceSentence.split, SourceSentence.sentence_id,
               SourceSentence.text)
        .where(SourceSentence.project_id == project_id)
        .order_by(SourceSentence.domain, SourceSentence.split, SourceSentence.ordinal, SourceSentence.id)
    ).all()
    wanted = set(unassigned_sentences([r[0] for r in rows], coverage_rows(session, project_id), phase))
    return [SentenceRow(pk, f"{d}/{sp}/{sid}", text) for pk, d, sp, sid, text in rows if pk in wanted]


def unassigned_in_phase(engine: Engine, project_id: int, phase: str) -> list[SentenceRow]:
    """The sentences with no translator in ``phase``, in corpus order: the Home page's rule
    (``corpus.work_queue.unassigned_sentences``) over the same rows (``db.work_queue``)."""
    if phase not in tuple(Phase):
        raise ValueError(f"phase must be one of {', '.join(Phase)}, not {phase!r}")
    return read(engine, _unassigned, project_id, phase)


def _overdue(session: Session, project_id: int, kind: str, now: datetime, days: int) -> list[OverdueTask]:
    rows = translation_task_rows(session, project_id) if kind == "translation" else tagging_task_rows(session,
                                                                                                        project_id)
    late = overdue_tasks(rows, now, days)
    sentences = _sentence_rows(session, (t.sentence for t in late))
    return [OverdueTask(t.task, kind, t.person, t.sentence, sentences[t.sentence].key, t.phase, t.status,
                        t.assigned_at, sentences[t.sentence].text) for t in late]


def overdue_work(engine: Engine, project_id: int, kind: str, now: datetime | None = None,
                 days: int = OVERDUE_DAYS) -> list[OverdueTask]:
    """The overdue tasks of ``kind`` ("translation" or "tagging"), oldest first: the Home page's rule
    (``corpus.work_queue.overdue_tasks``) over the same rows, as of ``now`` (naive UTC)."""
    if kind not in TASK_KINDS:
        raise ValueError(f"kind must be one of {', '.join(TASK_KINDS)}, not {kind!r}")
    return read(engine, _overdue, project_id, kind, now or utcnow(), days)


def reassign_tasks(engine: Engine, kind: str, task_ids: Sequence[int], actor_id: int | None) -> Reassigned:
    """Take the given open tasks from their people and give their slots to others, least-loaded first, as
    deactivating a person does (``reassign_open_work``, ``reassign_open_tagging``): the person
    never gets that sentence (or translation) back; their drafts stay stored. Tasks no longer open (submitted
    or moved meanwhile) are left alone."""
    if kind not in TASK_KINDS:
        raise ValueError(f"kind must be one of {', '.join(TASK_KINDS)}, not {kind!r}")
    with transaction(engine) as session:
        check_writer(session, actor_id, roles=(Role.LEAD,))
        model = TranslationAssignment if kind == "translation" else AnnotationAssignment
        rows = list(session.scalars(select(model).where(model.id.in_(list(task_ids)),
                                                        model.status.in_(OPEN_STATUSES)).order_by(model.id)))
        for row in rows:
            row.status = Status.REASSIGNED
        session.flush()
        if kind == "translation":
            summary = _refill_translation_slots(session, rows, actor_id)
            created, short = summary.created, len(summary.shortfalls)
        else:
            created, short = _refill_tagging_slots(session, rows, actor_id)
        session.add(AuditEvent(actor_id=actor_id, action=f"reassign-{kind}",
                               detail={"tasks": [r.id for r in rows], "created": created, "short": short}))
        return Reassigned(len(rows), created, short)


def _refill_translation_slots(session: Session, rows: list[TranslationAssignment],
                              actor_id: int | None) -> AssignmentSummary:
    project_of = dict(session.execute(select(SourceSentence.id, SourceSentence.project_id).where(
        SourceSentence.id.in_([r.sentence_id for r in rows]))).all()) if rows else {}
    slots: dict[tuple[int, str], list[int]] = {}
    for row in rows:
        slots.setdefault((project_of[row.sentence_id], row.phase), []).append(row.sentence_id)
    created, already, shortfalls = 0, 0, []
    for (project_id, phase), ids in sorted(slots.items()):
        s = _plan_and_write(session, project_id, ids, actor_id, None, None, None, phases=(phase,))
        created, already, shortfalls = created + s.created, already + s.already, shortfalls + s.shortfalls
    return AssignmentSummary(len({r.sentence_id for r in rows}), created, already, shortfalls)


def _refill_tagging_slots(session: Session, rows: list[AnnotationAssignment], actor_id: int | None) -> tuple[int, int]:
    if not rows:
        return 0, 0
    translations = list(session.scalars(select(Translation).where(
        Translation.id.in_([r.translation_id for r in rows])).order_by(Translation.id)))
    created, short = 0, 0
    for project_id in sorted({t.sentence.project_id for t in translations}):
        k = settings_in(session, project_id).annotators_per_item
        report = top_up_tagging(session, [t for t in translations if t.sentence.project_id == project_id], k, actor_id)
        created, short = created + report.created, short + len(report.short)
    return created, short


# ---------------------------------------------------------------- tagging assignments


@dataclass(frozen=True)
class AssignmentReport:
    created: int
    targets: int
    short: list[int] = field(default_factory=list)  # translation ids with fewer than K eligible annotators


def tagging_targets(session: Session, project_id: int) -> list[Translation]:
    """The translations to tag under the project's ``tagging_scope`` ("all" or "best")."""
    project = settings_in(session, project_id)
    submitted = list(
        session.scalars(
            select(Translation)
            .join(SourceSentence, Translation.sentence_id == SourceSentence.id)
            .where(
                SourceSentence.project_id == project_id,
                Translation.status == Status.SUBMITTED,
                Translation.untranslatable.is_(False),
                Translation.text.is_not(None),
            )
            .order_by(SourceSentence.domain, SourceSentence.split, SourceSentence.ordinal, SourceSentence.id,
                      Translation.phase, Translation.id)
        )
    )
    if project.tagging_scope != "best":
        return submitted
    keep: set[int] = set()
    for sentence_id in dict.fromkeys(t.sentence_id for t in submitted):
        for winner in phase_winners(session, sentence_id).values():
            if winner is not None:
                keep.add(winner.translation_id)
    return [t for t in submitted if t.id in keep]


def _active_annotators(session: Session) -> list[User]:
    return list(
        session.scalars(
            select(User)
            .join(UserRole, UserRole.user_id == User.id)
            .where(UserRole.role == Role.ANNOTATOR, User.active.is_(True))
            .order_by(User.id)
        ).unique()
    )


def assign_annotators(
    engine: Engine, project_id: int, actor_id: int | None = None, per_item: int | None = None
) -> AssignmentReport:
    """Top every target up to K annotators (never its translator), least-loaded annotator first."""
    with transaction(engine) as session:
        check_writer(session, actor_id, roles=(Role.LEAD,))
        k = per_item or settings_in(session, project_id).annotators_per_item
        report = top_up_tagging(session, tagging_targets(session, project_id), k, actor_id)
        if report.created:
            session.add(
                AuditEvent(actor_id=actor_id, action="assign-annotators",
                           detail={"project_id": project_id, "created": report.created, "per_item": k})
            )
        return report


def _translators_of_sentences(session: Session, sentence_ids: set[int]) -> set[tuple[int, int]]:
    """(user, sentence) for everyone who translates, translated or is due to translate a sentence, in either
    phase: a translation row, or a task not taken from them. Such a person never tags a colleague's
    translation of that sentence, which would leak it into their own and break the independence of
    translations that ROUGE-L agreement relies on."""
    pairs: set[tuple[int, int]] = set()
    ids = sorted(sentence_ids)
    for i in range(0, len(ids), 500):
        chunk = ids[i:i + 500]
        pairs.update(session.execute(
            select(Translation.translator_id, Translation.sentence_id).where(Translation.sentence_id.in_(chunk))
        ).all())
        pairs.update(session.execute(
            select(TranslationAssignment.user_id, TranslationAssignment.sentence_id).where(
                TranslationAssignment.sentence_id.in_(chunk), TranslationAssignment.status != Status.REASSIGNED,
            )
        ).all())
    return pairs


def top_up_tagging(session: Session, targets: list[Translation], k: int, actor_id: int | None) -> AssignmentReport:
    annotators = _active_annotators(session)
    translators_by_sentence: dict[int, set[int]] = defaultdict(set)
    for uid, sid in _translators_of_sentences(session, {t.sentence_id for t in targets}):
        translators_by_sentence[sid].add(uid)
    existing = list(
        session.scalars(select(AnnotationAssignment).where(AnnotationAssignment.status.not_in(INACTIVE_STATUSES)))
    )
    load = Counter({a.id: 0 for a in annotators})
    load.update(a.user_id for a in existing if a.user_id in load)
    assigned: dict[int, set[int]] = {}
    for a in existing:
        assigned.setdefault(a.translation_id, set()).add(a.user_id)
    # Nobody gets an item back that they gave up, skipped, or had taken from them.
    ever = {(a.user_id, a.translation_id) for a in session.scalars(select(AnnotationAssignment))}

    created, short = 0, []
    for t in targets:
        have = assigned.setdefault(t.id, set())
        need = k - len(have)
        if need <= 0:
            continue
        of_sentence = translators_by_sentence.get(t.sentence_id, frozenset())
        eligible = [
            a.id for a in annotators
            if tagging_refusal(a.id, t.translator_id, of_sentence) is None
            and a.id not in have and (a.id, t.id) not in ever
        ]
        eligible.sort(key=lambda uid: (load[uid], uid))
        for uid in eligible[:need]:
            session.add(AnnotationAssignment(user_id=uid, translation_id=t.id, assigned_by=actor_id))
            have.add(uid)
            load[uid] += 1
            created += 1
        if len(have) < k:
            short.append(t.id)
    session.flush()
    return AssignmentReport(created=created, targets=len(targets), short=short)


def reassign_open_tagging(session: Session, user_id: int, actor_id: int | None) -> AssignmentReport:
    """Move a (deactivated) user's unfinished tagging tasks to other annotators. Their submitted
    annotations stay and count; their drafts stay stored but the item goes to someone else."""
    rows = list(
        session.scalars(
            select(AnnotationAssignment).where(
                AnnotationAssignment.user_id == user_id,
                AnnotationAssignment.status.in_((Status.ASSIGNED, Status.DRAFT)),
            )
        )
    )
    for row in rows:
        row.status = Status.REASSIGNED
    session.flush()
    if not rows:
        return AssignmentReport(created=0, targets=0)
    translations = list(
        session.scalars(select(Translation).where(Translation.id.in_([r.translation_id for r in rows]))
                        .order_by(Translation.id))
    )
    created, short = 0, []
    for project_id in sorted({t.sentence.project_id for t in translations}):
        k = settings_in(session, project_id).annotators_per_item
        report = top_up_tagging(session, [t for t in translations if t.sentence.project_id == project_id], k, actor_id)
        created += report.created
        short += report.short
    return AssignmentReport(created=created, targets=len(translations), short=short)
